//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// ptyStep is what the screen must show (drawn since the step before's
// keys), then the keys pressed.
type ptyStep struct {
	want []string
	keys string
}

// consoleOnPty runs aipwatch with args on a pseudo-terminal (stdin and
// stdout, as an operator's terminal), takes steps in turn, then waits for
// the run to end and returns its exit code, the screen's text and stderr.
// The waits only bound a failure.
func consoleOnPty(t *testing.T, args []string, steps ...ptyStep) (code int, screen, stderr string) {
	t.Helper()
	return consoleOnPtyEnv(t, noEnv, args, steps...)
}

// consoleOnPtyEnv is consoleOnPty with the environment getenv.
func consoleOnPtyEnv(t *testing.T, getenv func(string) string, args []string, steps ...ptyStep) (code int, screen, stderr string) {
	t.Helper()
	master, slave := openPty(t, 160)
	var mu sync.Mutex
	var drawn bytes.Buffer
	drawnMore := make(chan struct{}, 1)
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			mu.Lock()
			drawn.Write(b[:n])
			mu.Unlock()
			select {
			case drawnMore <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	text := func(from int) string {
		mu.Lock()
		defer mu.Unlock()
		return ansi.Strip(drawn.String()[from:])
	}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(args, slave, slave, &errb, getenv, testKeys()) }()
	from := 0
	for _, st := range steps {
		timeout := time.After(20 * time.Second)
		for !hasAll(text(from), st.want) {
			select {
			case <-drawnMore:
			case code = <-done:
				t.Fatalf("%v ended (exit %d) before showing %q\n%s\n%s", args, code, st.want, text(from), errb.String())
			case <-timeout:
				t.Fatalf("%v: %q not shown\n%s", args, st.want, text(from))
			}
		}
		mu.Lock()
		from = drawn.Len()
		mu.Unlock()
		if _, err := master.Write([]byte(st.keys)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v did not end\n%s", args, text(from))
	}
	return code, text(0), errb.String()
}

func hasAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// design §7, §9: with no ACTION_ID on a terminal, aipwatch opens the
// console on that terminal: --demo=console lists the console demo's one
// daemon, --demo=fleet the actions of both its daemons (east's and
// west's); q detaches with exit 0.
func TestConsoleOnATerminal(t *testing.T) {
	t.Parallel()
	// enter follows the row selected: its live view (export is its key), esc
	// back to the list, q detaches.
	code, screen, errOut := consoleOnPty(t, []string{"--demo=console"},
		ptyStep{[]string{"act_sim_console_dead_lettered"}, "\r"}, ptyStep{[]string{"export"}, "\x1b"},
		ptyStep{[]string{"enter follow"}, "q"})
	if code != 0 || strings.Contains(screen, "act_sim_west") {
		t.Errorf("--demo=console: exit %d, west's actions shown: %v\n%s", code, strings.Contains(screen, "act_sim_west"), errOut)
	}
	code, _, errOut = consoleOnPty(t, []string{"--demo=fleet"}, ptyStep{[]string{"act_sim_console_dead_lettered", "act_sim_west_done_length"}, "q"})
	if code != 0 {
		t.Errorf("--demo=fleet: exit %d\n%s", code, errOut)
	}
}

// design §2.6: a daemon that refuses the credentials ends the console on
// a terminal with exit 1, the refusal and what to check on stderr.
func TestConsoleOnATerminalEndsWhenRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"code":"auth.native_http_unauthorized","message":"no"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	code, _, errOut := consoleOnPty(t, []string{"--url", srv.URL})
	if code != 1 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "hint: aipd refused the credentials") {
		t.Errorf("refused: exit %d, stderr %q", code, errOut)
	}
}

// The console across contexts none of whose daemons answers says what to
// check and points at --demo=console on its status line (issue 46 item
// 18), as the console of one daemon does; q leaves it.
func TestConsoleAcrossContextsWithNoDaemonHints(t *testing.T) {
	t.Parallel()
	down := func() string { // a port nothing listens on any more: refused
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		return srv.URL
	}
	f := newContextFixture(t, fmt.Sprintf("current = \"east\"\n[contexts.east]\nurl = %q\n[contexts.west]\nurl = %q\n", down(), down()))
	code, _, errOut := consoleOnPtyEnv(t, f.getenv, nil,
		ptyStep{[]string{"no context answered", "check: aipwatch contexts", "aipwatch --demo=console"}, "q"})
	if code != 0 {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

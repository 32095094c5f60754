//go:build linux

package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// consoleOnPty runs aipwatch with args on a pseudo-terminal (stdin and
// stdout, as an operator's terminal), waits until the screen drawn shows
// every one of want, then presses q (detach) and returns the exit code,
// the screen's text and stderr; with no want, it waits for the console
// to end by itself. The waits only bound a failure.
func consoleOnPty(t *testing.T, args []string, want ...string) (code int, screen, stderr string) {
	t.Helper()
	master, slave := openPty(t, 160)
	var mu sync.Mutex
	var drawn bytes.Buffer
	shown := make(chan struct{})
	go func() {
		b := make([]byte, 4096)
		once := sync.Once{}
		for {
			n, err := master.Read(b)
			mu.Lock()
			drawn.Write(b[:n])
			text := ansi.Strip(drawn.String())
			mu.Unlock()
			if hasAll(text, want) {
				once.Do(func() { close(shown) })
			}
			if err != nil {
				return
			}
		}
	}()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Run(args, slave, slave, &errb, noEnv, testKeys()) }()
	wait := shown
	if len(want) == 0 {
		wait = nil // nothing to wait for: only the end
	}
	select {
	case <-wait:
	case code = <-done:
		if len(want) == 0 {
			mu.Lock()
			defer mu.Unlock()
			return code, ansi.Strip(drawn.String()), errb.String()
		}
		t.Fatalf("%v ended (exit %d) before showing %q\n%s", args, code, want, errb.String())
	case <-time.After(20 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%v: %q not shown, or no end\n%s", args, want, ansi.Strip(drawn.String()))
	}
	if _, err := master.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v: q did not end the console", args)
	}
	mu.Lock()
	defer mu.Unlock()
	return code, ansi.Strip(drawn.String()), errb.String()
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
	code, screen, errOut := consoleOnPty(t, []string{"--demo=console"}, "act_sim_console_dead_lettered")
	if code != 0 || strings.Contains(screen, "act_sim_west") {
		t.Errorf("--demo=console: exit %d, west's actions shown: %v\n%s", code, strings.Contains(screen, "act_sim_west"), errOut)
	}
	code, _, errOut = consoleOnPty(t, []string{"--demo=fleet"}, "act_sim_console_dead_lettered", "act_sim_west_done_length")
	if code != 0 {
		t.Errorf("--demo=fleet: exit %d\n%s", code, errOut)
	}
}

// design §2.6: a daemon that refuses the credentials ends the console on
// a terminal with exit 1, the refusal and what to check on stderr.
func TestConsoleOnATerminalEndsWhenRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"code":"auth.native_http_unauthorized","message":"no"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	code, _, errOut := consoleOnPty(t, []string{"--url", srv.URL})
	if code != 1 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "hint: aipd refused the credentials") {
		t.Errorf("refused: exit %d, stderr %q", code, errOut)
	}
}

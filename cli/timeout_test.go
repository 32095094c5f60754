package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// hungServer accepts every request and never answers until the test ends.
func hungServer(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv.URL
}

// runBounded runs aipwatch with f's environment, failing the test if it
// has not ended within 25 s: under the transport's 30 s bound on a reply's
// headers, the wait issue 46 item 9 found.
func runBounded(t *testing.T, f *contextFixture, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code     int
		out, err string
	}
	done := make(chan res, 1)
	go func() {
		code, out, errOut := f.run(args...)
		done <- res{code, out, errOut}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(25 * time.Second):
		t.Fatalf("%v still waits on a daemon that never answers", args)
	}
	return 0, "", ""
}

// Issue 46 item 9: ls, ls --all-contexts and stats give up on a daemon
// that accepts and never answers after --timeout, and name it; across
// contexts the ones that answered are printed all the same.
func TestReadTimeoutOnAHungDaemon(t *testing.T) {
	t.Parallel()
	hung := hungServer(t)
	urls := consoleDaemons(t, 1)
	f := newContextFixture(t, fmt.Sprintf("[contexts.east]\nurl = %q\n[contexts.hung]\nurl = %q\n", urls[0], hung))
	code, out, errOut := runBounded(t, f, "ls", "--all-contexts", "--timeout", "300ms", "--output", "jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a daemon not read)\n%s", code, errOut)
	}
	rows := map[string]int{}
	unreachable := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			Context     string `json:"context"`
			Unreachable string `json:"unreachable"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		rows[row.Context]++
		if row.Unreachable != "" {
			unreachable = row.Context + ": " + row.Unreachable
		}
	}
	if rows["east"] < 5 || !strings.HasPrefix(unreachable, "hung: list: no answer from 127.0.0.1:") || !strings.HasSuffix(unreachable, "within 300ms") {
		t.Errorf("rows by context %v, the hung one %q", rows, unreachable)
	}
	if !strings.Contains(errOut, "aipwatch ls: context hung: list: no answer from") || strings.Contains(errOut, "context east") {
		t.Errorf("stderr does not name the hung context alone:\n%s", errOut)
	}
	for _, args := range [][]string{{"ls"}, {"stats"}, {"ls", "--verdict"}} {
		args = append(args, "--url", hung, "--timeout", "300ms")
		code, _, errOut := runBounded(t, f, args...)
		if code != 1 || !strings.Contains(errOut, "no answer from 127.0.0.1:") || !strings.Contains(errOut, "within 300ms") {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	if code, _, errOut := f.run("ls", "--timeout", "0s"); code != 2 || !strings.Contains(errOut, "--timeout takes a duration above 0") {
		t.Errorf("--timeout 0s: exit %d %s", code, errOut)
	}
}

// The default is well under the transport's 30 s (issue 46 item 9), and
// one definition serves every command that reads the list.
func TestReadTimeoutDefault(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ls", "stats"} {
		cmd, _, err := Tree().Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		fl := cmd.Flags().Lookup("timeout")
		if fl == nil {
			t.Fatalf("%s has no --timeout", name)
		}
		d, err := time.ParseDuration(fl.DefValue)
		if err != nil || d <= 0 || d > 15*time.Second {
			t.Errorf("%s --timeout defaults to %q", name, fl.DefValue)
		}
	}
}

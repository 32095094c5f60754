package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/sim"
)

// TestTokenProtectedInEveryCommand: every command that reads the token
// registers it for scrubbing itself (loadToken), not only the follow
// command. Each command runs in a fresh process of this test binary: the
// registered secrets are process-wide, so an earlier test's registration
// would hide a command that forgot.
func TestTokenProtectedInEveryCommand(t *testing.T) {
	t.Parallel()
	if args := os.Getenv("AIPWATCH_TOKEN_CHILD"); args != "" {
		dir := os.Getenv("AIPWATCH_TOKEN_STATE")
		getenv := func(k string) string {
			if k == "XDG_STATE_HOME" {
				return dir
			}
			return ""
		}
		os.Exit(Run(strings.Split(args, "\x1f"), strings.NewReader(""), os.Stdout, os.Stderr, getenv, testKeys()))
	}
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokFile, []byte(echoedToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startSim(t, "responses-failed", sim.Knobs{Token: echoedToken, EchoToken: echoedToken})
	for name, args := range map[string][]string{
		"reconcile plain": {"reconcile", "--url", srv.URL(), "--token-file", tokFile, "--output", "plain", srv.ActionID()},
		"reconcile jsonl": {"reconcile", "--url", srv.URL(), "--token-file", tokFile, "--output", "jsonl", srv.ActionID()},
		"follow plain":    {"--url", srv.URL(), "--token-file", tokFile, "--output", "plain", srv.ActionID()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a process and a state directory each
			cmd := exec.Command(os.Args[0], "-test.run=^TestTokenProtectedInEveryCommand$")
			// A -race child would sleep 1 s on exit (atexit_sleep_ms) for
			// goroutines still to report a race; what is checked here is
			// its output, written by then.
			cmd.Env = append(os.Environ(), "AIPWATCH_TOKEN_CHILD="+strings.Join(args, "\x1f"), "AIPWATCH_TOKEN_STATE="+t.TempDir(),
				"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), "verdict") {
				t.Fatalf("the command did not run:\n%s", out)
			}
			if sub, ok := leak12(string(out), echoedToken); ok {
				t.Fatalf("output holds %q:\n%s", sub, out)
			}
		})
	}
}

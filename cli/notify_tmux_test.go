package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"aipwatch/safe"
)

// realTmuxPassthrough is the tmuxPassthrough the program ships, kept
// before any test replaces it (TestNotifyThroughAMultiplexer does).
var realTmuxPassthrough = tmuxPassthrough

// design §13: the console asks the tmux it runs under ($TMUX) for
// allow-passthrough, and says how to allow it when it is off. Asked of a
// real tmux server of the test's own (a private socket, no config file,
// killed at the end), its answer is tmux's: "on", "off"; "" once there is
// no server to ask. The other tests replace the asking; only this one
// holds it. Skipped only where tmux is not installed. Not parallel: it
// sets $TMUX and tmuxPassthrough, process-wide.
func TestTmuxPassthroughAsksTheRealTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	// A short path: a unix socket's path has about 100 bytes.
	dir, err := os.MkdirTemp("", "aipwatch-tmux")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s")
	tmux := func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	}
	if out, err := tmux("new-session", "-d", "-s", "aipwatch-test", "sleep 600"); err != nil {
		t.Fatalf("starting a tmux server: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	// tmux (and tmuxPassthrough's tmux) finds its server from $TMUX.
	t.Setenv("TMUX", fmt.Sprintf("%s,%d,0", sock, os.Getpid()))

	if out, err := tmux("set-option", "-g", "allow-passthrough", "off"); err != nil {
		if !bytes.Contains(out, []byte("invalid option")) {
			t.Fatalf("tmux set-option: %v: %s", err, out)
		}
		// tmux before 3.3 has no such option and passes the OSCs through.
		if got := realTmuxPassthrough(); got != "on" {
			t.Fatalf("a tmux without allow-passthrough: %q, want on", got)
		}
		return
	}
	if got := realTmuxPassthrough(); got != "off" {
		t.Errorf("allow-passthrough off: asked %q, want off", got)
	}
	defer func(f func() string) { tmuxPassthrough = f }(tmuxPassthrough)
	tmuxPassthrough = realTmuxPassthrough
	getenv := func(k string) string {
		return map[string]string{"TMUX": os.Getenv("TMUX"), "TERM": "tmux-256color"}[k]
	}
	if _, hint := notifyRoute(getenv); hint != safe.PassthroughHint {
		t.Errorf("allow-passthrough off: hint %q, want %q", hint, safe.PassthroughHint)
	}

	if out, err := tmux("set-option", "-g", "allow-passthrough", "on"); err != nil {
		t.Fatalf("tmux set-option: %v: %s", err, out)
	}
	if got := realTmuxPassthrough(); got != "on" {
		t.Errorf("allow-passthrough on: asked %q, want on", got)
	}
	if _, hint := notifyRoute(getenv); hint != "" {
		t.Errorf("allow-passthrough on: hint %q, want none", hint)
	}

	if out, err := tmux("kill-server"); err != nil {
		t.Fatalf("tmux kill-server: %v: %s", err, out)
	}
	if got := realTmuxPassthrough(); got != "" {
		t.Errorf("no tmux server: asked %q, want none", got)
	}
}

//go:build linux

package cli

import (
	"bytes"
	"os"
	"testing"
)

// A full-screen view reads its keys from stdin when stdin is a terminal
// (or not a file at all: a test's reader); from the controlling terminal,
// which Bubble Tea opens when given none, when stdin is a file or a pipe
// that is no terminal: `xargs aipwatch` (stdin /dev/null) ended the live
// view at once, at stdin's end, before q or c could be pressed.
func TestKeysFromTheTerminalNotARedirectedStdin(t *testing.T) {
	t.Parallel()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = devNull.Close() })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = r.Close(), w.Close() })
	for name, stdin := range map[string]*os.File{"/dev/null": devNull, "a pipe": r} {
		if got := keysFrom(stdin); got != nil {
			t.Errorf("stdin %s: keys read from it (%v), not from the terminal", name, got)
		}
	}
	_, slave := openPty(t, 80)
	if got := keysFrom(slave); got != slave {
		t.Errorf("stdin a terminal: keys read from %v", got)
	}
	var keys bytes.Buffer
	if got := keysFrom(&keys); got != &keys {
		t.Errorf("stdin a reader, no file: keys read from %v", got)
	}
}

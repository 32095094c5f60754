package ui

import (
	"strings"
	"testing"
)

// Every row of a frame passes safe.Row: a part a renderer forgot to
// sanitise still cannot write the clipboard, set the title, conceal the
// verdict or start a row of its own; our own styling is untouched.
func TestScreenRowsAreGuarded(t *testing.T) {
	t.Parallel()
	var sc screen
	sc.reset(3)
	sc.row("\x1b[1mverdict\x1b[0m ", "\x1b]52;c;cm0gLXJm\x07\x1b[8m hidden\nFORGED row")
	sc.row("second")
	out := joinRows(sc.out)
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "⏎FORGED row") {
		t.Fatalf("a part started a row of its own: %q", out)
	}
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") || strings.Contains(out, "\x1b[8m") {
		t.Fatalf("a control reached the frame: %q", out)
	}
	if !strings.HasPrefix(out, "\x1b[1mverdict\x1b[0m ") {
		t.Fatalf("own styling changed: %q", out)
	}
}

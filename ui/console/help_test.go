package console

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// ? in the console lists every binding of the list (from keymap.go), and
// any key closes it; the one-line help offers it.
func TestConsoleHelpOverlay(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 100, 30)
	if !strings.Contains(screenOf(c), "? more") {
		t.Fatalf("the help line does not offer ?:\n%s", screenOf(c))
	}
	press(c, "?")
	s := screenOf(c)
	k := c.keys
	for _, h := range []string{k.Select.Desc, k.Open.Help().Desc, k.Back.Help().Desc, k.Cancel.Help().Desc, k.Reconcile.Help().Desc,
		k.Filter.Help().Desc, k.States.Help().Desc, k.Refresh.Help().Desc, k.Quit.Help().Desc} {
		if !strings.Contains(s, h) {
			t.Errorf("the ? overlay lacks %q:\n%s", h, s)
		}
	}
	if strings.Contains(s, "e6f70") {
		t.Errorf("the overlay did not replace the rows:\n%s", s)
	}
	press(c, "esc")
	if c.showHelp || !strings.Contains(screenOf(c), "e6f70") {
		t.Fatalf("esc did not close the overlay:\n%s", screenOf(c))
	}
}

// At 80 columns the state is whole (completed, running), not "comple…".
func TestConsoleStateWholeAt80(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 80, 24)
	s := screenOf(c)
	if !strings.Contains(s, " completed ") || strings.Contains(s, "comple…") {
		t.Fatalf("the state is cut at 80 columns:\n%s", s)
	}
}

// The one help line fits 80 columns (design's width) by leaving out the
// least important keys first: ? and q stay, on one daemon and across
// contexts (the line was cut at its end, losing x, ? and q).
func TestConsoleHelpLineKeepsHelpAndQuitAt80(t *testing.T) {
	t.Parallel()
	one, _ := newConsoleHarness(t, 80, 24)
	several, _ := newContextsConsole(t)
	several.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for name, c := range map[string]*Console{"one daemon": one, "contexts": several} {
		lines := strings.Split(screenOf(c), "\n")
		last := lines[len(lines)-1]
		for _, want := range []string{"? more", "q quit", "enter follow"} {
			if !strings.Contains(last, want) || strings.Contains(last, "…") {
				t.Errorf("%s: the help line at 80 columns lacks %q or is cut: %q", name, want, last)
			}
		}
		if name == "contexts" && !strings.Contains(last, "x context") {
			t.Errorf("across contexts the help line lacks x: %q", last)
		}
	}
}

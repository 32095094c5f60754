package console

import (
	"strings"
	"testing"
)

// space marks rows (at most four: a split view's panes), enter opens the
// marked ones in a split view, in the order marked, and esc comes back to
// the list, the marks gone; c acts on the selected row alone.
func TestConsoleMarksOpenASplitView(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 200, 50)
	press(c, "down", "space", "up", "space")
	s := screenOf(c)
	if !strings.Contains(s, "2 rows marked (enter: split view)") || !strings.Contains(lineOf(s, "6f70"), " + ") ||
		!strings.Contains(lineOf(s, "6f71"), " + ") || strings.Contains(lineOf(s, "6f72"), " + ") {
		t.Fatalf("two marked rows:\n%s", s)
	}
	press(c, "enter")
	if c.split == nil || len(c.split.Panes()) != 2 {
		t.Fatalf("enter did not open the two marked rows:\n%s", screenOf(c))
	}
	s = screenOf(c)
	first, second := strings.Index(s, "┏ 1 act_0193b8e2c1a07d3e9f1a2b3c4d5e6f71"), strings.Index(s, "┌ 2 act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70") // the first pane has the focus (heavy)
	if first < 0 || second < 0 {
		t.Fatalf("the panes are not in the order marked:\n%s", s)
	}
	press(c, "esc")
	if c.split != nil || strings.Contains(screenOf(c), "marked") || strings.Contains(screenOf(c), " + ") {
		t.Fatalf("back in the list, the marks stay:\n%s", screenOf(c))
	}
	// Four at most; space on a marked row unmarks it.
	press(c, "space", "down", "space", "down", "space", "down", "space", "down", "space")
	if s := screenOf(c); !strings.Contains(s, "4 rows marked") || !strings.Contains(s, "four rows are marked already") {
		t.Fatalf("a fifth mark:\n%s", s)
	}
	press(c, "up", "space")
	if s := screenOf(c); !strings.Contains(s, "3 rows marked") {
		t.Fatalf("space did not unmark:\n%s", s)
	}
	// c is the selected row's, alone.
	press(c, "g", "c")
	if c.split == nil || len(c.split.Panes()) != 1 || !strings.Contains(screenOf(c), "Cancel action act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70") {
		t.Fatalf("c with rows marked:\n%s", screenOf(c))
	}
	press(c, "esc", "esc")
	if b.cancels.Load() != 0 {
		t.Fatal("a cancel was sent")
	}
}

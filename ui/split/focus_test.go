package split

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/ui"
)

// design §12: ctrl+w moves the focus to the next pane, and from the last
// back to the first.
func TestSplitFocusWrapsAround(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 3, 180, 40)
	s := pb.s
	for _, want := range []int{1, 2, 0, 1} {
		s.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
		if got := s.Focused().Action().ID; got != fmt.Sprintf("act_cache_pane_%d", want) {
			t.Fatalf("the focus is on %s, want pane %d", got, want+1)
		}
	}
}

// design §12: up to four actions at once; a fifth given to New is left
// out.
func TestSplitAtMostFourPanes(t *testing.T) {
	t.Parallel()
	var opts []ui.Options
	for i := range 5 {
		opts = append(opts, ui.Options{ActionID: fmt.Sprintf("act_five_%d", i), Keys: liveKeys(t), NoColor: true})
	}
	s := New(context.Background(), opts)
	t.Cleanup(s.Close)
	if n := len(s.Panes()); n != 4 {
		t.Fatalf("%d panes, want 4", n)
	}
}

// The terminal's cursor stands on the focused pane's search line, placed
// on the whole screen: the second pane side by side starts at column 100
// plus its border.
func TestSplitCursorIsInTheFocusedPane(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 2, 200, 50)
	s := pb.s
	s.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	s.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	if s.Mode() != ui.ModeSearch {
		t.Fatalf("/ did not open the search: mode %v", s.Mode())
	}
	s.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}) // typed into the query
	frame, _ := pb.frameLagging()
	c := s.Cursor()
	if c == nil {
		t.Fatal("no cursor while the search line is typed")
	}
	rows := strings.Split(ansi.Strip(frame), "\n")
	if c.Y < 1 || c.Y >= len(rows)-2 || c.X <= 101 || c.X >= 199 {
		t.Fatalf("the cursor at %d,%d is not inside the second pane (columns 101-198)", c.X, c.Y)
	}
	// The query typed ("q") stands just left of the cursor, in the second
	// pane's half of its row.
	row := []rune(rows[c.Y])
	if string(row[c.X-1]) != "q" {
		t.Fatalf("left of the cursor (%d,%d): %q in row %q", c.X, c.Y, string(row[c.X-1]), rows[c.Y])
	}
}

// A split view of one pane (the console's enter on one row) is the live
// view alone: the cursor stands on its search line, just right of the
// query typed.
func TestSplitOfOnePaneCursorOnItsSearchLine(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 1, 120, 40)
	s := pb.s
	s.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	if s.Mode() != ui.ModeSearch {
		t.Fatalf("/ did not open the search: mode %v", s.Mode())
	}
	s.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	frame, _ := pb.frameLagging()
	c := s.Cursor()
	if c == nil {
		t.Fatal("no cursor while the search line is typed")
	}
	rows := strings.Split(ansi.Strip(frame), "\n")
	if c.Y < 0 || c.Y >= len(rows) || c.X < 1 {
		t.Fatalf("the cursor at %d,%d is off the frame of %d rows", c.X, c.Y, len(rows))
	}
	if row := []rune(rows[c.Y]); c.X > len(row) || string(row[c.X-1]) != "q" {
		t.Fatalf("left of the cursor (%d,%d) in row %q: not the query", c.X, c.Y, rows[c.Y])
	}
}

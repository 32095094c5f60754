package ui

import (
	"fmt"
	"testing"
)

// TestPanelScroll: the text panel's viewport moves as the panels always
// did: every move is the old offset plus the step, kept between the top
// and the last page of the current body, also from an offset left past
// the last page (the body grew when the ? overlay closed).
func TestPanelScroll(t *testing.T) {
	t.Parallel()
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	p := newPanel(realKeys(t), 0)
	p.setLines(lines, 80, 5, false)
	top := func() int { return p.vp.YOffset() }
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"down", func() { p.update(keyMsg("j"), 5) }, 1},
		{"page down", func() { p.update(keyMsg("pgdown"), 5) }, 6},
		{"page up", func() { p.update(keyMsg("b"), 5) }, 1},
		{"up past the top", func() { p.update(keyMsg("k"), 5); p.update(keyMsg("up"), 5) }, 0},
		{"wheel down", func() { p.scroll(3, 5) }, 3},
		{"bottom", func() { p.gotoBottom(5) }, 15},
		{"down at the bottom", func() { p.update(keyMsg("down"), 5) }, 15},
		{"bottom of a smaller body", func() { p.gotoBottom(3) }, 17},
		{"down, past the end of a taller body", func() { p.update(keyMsg("j"), 5) }, 15},
		{"back past the end", func() { p.gotoBottom(3) }, 17},
		{"up, past the end of a taller body", func() { p.update(keyMsg("k"), 5) }, 15},
		{"back past the end again", func() { p.gotoBottom(3) }, 17},
		{"a wheel event that does not scroll", func() { p.scroll(0, 5) }, 15},
		{"top", func() { p.gotoTop(5) }, 0},
		{"a key that is not a scroll key", func() { p.update(keyMsg("h"), 5) }, 0},
	}
	for _, s := range steps {
		s.do()
		if got := top(); got != s.want {
			t.Fatalf("%s: offset %d, want %d", s.name, got, s.want)
		}
	}
	if p.scrollKey(keyMsg("h")) || !p.scrollKey(keyMsg("f")) {
		t.Error("scrollKey: h scrolls or f does not")
	}
	if rows := p.rows(5); len(rows) != 5 || rows[0] != "line 0" {
		t.Errorf("rows at the top = %q", rows)
	}
	p.gotoBottom(3)
	if rows := p.rows(5); len(rows) != 3 || rows[0] != "line 17" {
		t.Errorf("rows past the end = %q, want the last 3", rows)
	}
	// Fewer rows: the offset moves up to the new last page; the log keeps
	// its end when asked to.
	p.setLines(lines[:10], 80, 5, false)
	if top() != 5 {
		t.Errorf("after fewer rows: offset %d, want 5", top())
	}
	p.gotoTop(5)
	if !p.atBottom(20) || p.atBottom(5) {
		t.Error("atBottom is wrong")
	}
	p.setLines(lines, 80, 5, true)
	if top() != 15 {
		t.Errorf("setLines at the bottom: offset %d, want 15", top())
	}
}

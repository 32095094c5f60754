package pulse

import (
	"fmt"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

// design §13: the figures per capability take at most a third of the
// console's height (a line at least), under the pulse's lines.
func TestStripCapabilitiesAtMostAThirdOfTheHeight(t *testing.T) {
	t.Parallel()
	st := render.NewStyles(false)
	s := New()
	for i := range 30 {
		s.Settle(fmt.Sprintf("k%d", i), model.Judged{CapabilityID: fmt.Sprintf("cap:hermes_agent:ep:cap_%02d", i), Verdict: "verified",
			SettledAt: t0.Add(-time.Duration(i) * time.Second)}, t0)
	}
	s.ToggleCapabilities()
	for _, c := range []struct{ w, h, lines int }{
		{160, 45, 3 + 15}, {160, 30, 3 + 10}, {160, 24, 3 + 8}, {80, 45, 1 + 15}, {80, 2, 1 + 1},
	} {
		if got := s.Lines(st, c.w, c.h, t0); len(got) != c.lines {
			t.Errorf("%dx%d: %d lines, want %d", c.w, c.h, len(got), c.lines)
		}
	}
}

// The lines kept are those of the room asked for: a resize draws them
// again, each within the new width.
func TestStripRedrawsOnAResize(t *testing.T) {
	t.Parallel()
	st := render.NewStyles(false)
	s := fed()
	s.Lines(st, 160, 45, t0)
	gen := s.Gen()
	for _, c := range []struct{ w, h, lines int }{{120, 45, 3}, {120, 20, 1}, {60, 20, 1}} {
		got := s.Lines(st, c.w, c.h, t0)
		if len(got) != c.lines || s.Gen() == gen {
			t.Fatalf("%dx%d: %d lines (want %d), gen %d then %d", c.w, c.h, len(got), c.lines, gen, s.Gen())
		}
		gen = s.Gen()
		for _, l := range got {
			if render.Width(l) > c.w {
				t.Fatalf("%dx%d: a line of %d cells", c.w, c.h, render.Width(l))
			}
		}
	}
}

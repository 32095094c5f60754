package pulse

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

var t0 = time.Date(2026, 12, 4, 21, 0, 5, 0, time.UTC)

func chunk(id string, seq int, at time.Time) model.Event {
	return model.Event{Kind: "aip.stream.chunk", ActionID: id, OccurredAt: at.Format(time.RFC3339Nano),
		Data: []byte(`{"action_id":"` + id + `","sequence":` + strconv.Itoa(seq) + `}`)}
}

func fed() *Strip {
	s := New()
	var evs []model.Event
	for i := range 30 {
		evs = append(evs, chunk("act_a", i, t0.Add(-time.Duration(30-i)*time.Second)))
	}
	s.AddEvents(evs, t0)
	for i, v := range []string{"verified", "verified", "failed", ""} {
		s.Settle("k"+strconv.Itoa(i), model.Judged{CapabilityID: "cap:hermes_agent:ep:chat_stream", Verdict: v,
			SettledAt: t0.Add(-time.Duration(i) * time.Minute),
			Timing:    model.TurnTiming{FirstTokenMS: 400, HasFirstToken: true, DurationMS: 6200, HasDuration: true}}, t0)
	}
	return s
}

// design §13: one to three lines, the first alone at 80 columns or on a
// short screen, none when folded; every line within the width.
func TestStripSizes(t *testing.T) {
	st := render.NewStyles(false)
	for _, c := range []struct {
		w, h, lines int
	}{{160, 45, 3}, {80, 45, 1}, {160, 20, 1}, {99, 45, 1}, {100, 24, 3}, {0, 45, 0}} {
		s := fed()
		got := s.Lines(st, c.w, c.h, t0)
		if len(got) != c.lines {
			t.Errorf("%dx%d: %d lines, want %d: %q", c.w, c.h, len(got), c.lines, got)
		}
		for _, l := range got {
			if render.Width(l) > c.w {
				t.Errorf("%dx%d: %d cells: %q", c.w, c.h, render.Width(l), l)
			}
		}
		if len(got) > 0 && !strings.HasPrefix(got[0], "chunks/s ") {
			t.Errorf("%dx%d: the first line %q", c.w, c.h, got[0])
		}
		if len(got) == 3 && !strings.Contains(got[2], "VF") { // the verdicts judged in the window
			t.Errorf("%dx%d: no letters under the bars: %q", c.w, c.h, got[2])
		}
	}
}

func TestStripFoldAndCapabilities(t *testing.T) {
	st := render.NewStyles(false)
	s := fed()
	s.ToggleFold()
	if got := s.Lines(st, 160, 45, t0); len(got) != 0 || !s.Folded() {
		t.Fatalf("folded: %q", got)
	}
	s.ToggleCapabilities() // opening unfolds
	got := s.Lines(st, 160, 45, t0)
	if want := "chat_stream  first token p50 0.4s p95 0.4s (3) · duration p50 6.2s p95 6.2s (3) · 3 judged of 4"; s.Folded() || len(got) != 4 || got[3] != want {
		t.Fatalf("capabilities: %q", got)
	}
	s.ToggleCapabilities()
	if got := s.Lines(st, 160, 45, t0); len(got) != 3 || s.Capabilities() {
		t.Fatalf("closed: %q", got)
	}
	empty := New()
	empty.ToggleCapabilities()
	if got := empty.Lines(st, 160, 45, t0); len(got) != 4 || got[3] != "no settled action judged in the last 15 minutes" {
		t.Fatalf("no capability: %q", got)
	}
}

// The lines are drawn again when what they show changes (a judgement, the
// next step of aipd's clock, the room), not at every call or every batch
// of chunks within a step.
func TestStripKeepsItsLines(t *testing.T) {
	st := render.NewStyles(false)
	s := fed()
	first := s.Lines(st, 160, 45, t0)
	line := first[0]
	s.AddEvents([]model.Event{chunk("act_b", 0, t0)}, t0)
	if again := s.Lines(st, 160, 45, t0.Add(time.Second)); &again[0] != &first[0] || again[0] != line {
		t.Fatal("drawn again within the step")
	}
	s.Settle("k9", model.Judged{Verdict: "failed", SettledAt: t0}, t0)
	if got := s.Lines(st, 160, 45, t0.Add(time.Second)); got[0] == line {
		t.Fatal("a judgement did not change the lines")
	}
	line = s.Lines(st, 160, 45, t0)[0]
	if got := s.Lines(st, 160, 45, t0.Add(model.PulseStep))[0]; got == line {
		t.Fatal("the next step did not move the rate")
	}
}

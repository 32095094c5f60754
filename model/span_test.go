package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// aipd's times from year 1 to 9999 gave "duration 153722867m16s" (Go's
// longest duration) with no word: a span past a week is an anomaly, and
// no duration, first-token time or run span is given; a span within it is
// measured as before.
func TestAbsurdSpanIsAnAnomalyAndNoFigure(t *testing.T) {
	ev := func(a *Action, seq int, at string) {
		a.IngestEvent(Event{ID: fmt.Sprint("evt_", seq), Kind: chunkEventKind, OccurredAt: at,
			Data: json.RawMessage(fmt.Sprintf(`{"action_id":"act_1","sequence":%d,"kind":"data"}`, seq))})
	}
	for _, c := range []struct{ first, last string }{
		{"0001-01-01T00:00:01Z", "9999-12-31T23:59:59Z"},
		{"2026-01-01T00:00:00Z", "2026-01-08T00:00:01Z"}, // a week and a second
		{"2026-01-08T00:00:01Z", "2026-01-01T00:00:00Z"}, // backwards as far
	} {
		a := NewAction("act_1")
		ev(a, 1, c.first)
		ev(a, 2, c.last)
		if tm := a.Timing(); tm.HasDuration || tm.HasFirstToken || tm.DurationMS != 0 {
			t.Fatalf("%s..%s: timing %+v", c.first, c.last, tm)
		}
		if s, e := a.RunSpan(); !s.IsZero() || !e.IsZero() {
			t.Fatalf("%s..%s: run span %v..%v", c.first, c.last, s, e)
		}
		var times []Anomaly
		for _, an := range a.Anomalies() {
			if an.Kind == AnomalyTimes {
				times = append(times, an)
			}
		}
		if len(times) != 1 || !strings.Contains(times[0].Detail, "more than a week") {
			t.Fatalf("%s..%s: anomalies %+v", c.first, c.last, a.Anomalies())
		}
		if strings.Contains(a.Cost(), "m") && strings.Contains(a.Cost(), "153722867") {
			t.Fatalf("cost line %q", a.Cost())
		}
	}
	// Six days apart: believed.
	a := NewAction("act_1")
	ev(a, 1, "2026-01-01T00:00:00Z")
	ev(a, 2, "2026-01-07T00:00:00Z")
	if tm := a.Timing(); !tm.HasDuration || tm.DurationMS != (6*24*time.Hour).Milliseconds() || a.AnomalyCount() != 0 {
		t.Fatalf("six days: %+v, %d anomalies", tm, a.AnomalyCount())
	}
}

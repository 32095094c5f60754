package model

import (
	"testing"
	"time"
)

// aipd's clock is the newest chunk's time read (design §13): a chunk read
// later but older (another action's, from earlier in the log) does not
// move it back, in one batch or the next.
func TestPulseClockIsTheNewestChunk(t *testing.T) {
	local := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // this machine's clock, far from aipd's
	newest := pt0.Add(14 * time.Second)
	p := NewPulse()
	p.AddEvents([]Event{chunkEv("", "act_b", 0, newest), chunkEv("", "act_a", 0, pt0)}, local)
	if got := p.Now(local); !got.Equal(newest) {
		t.Errorf("after a batch newest first: aipd's now %v, want the newest chunk's %v", got, newest)
	}
	p.AddEvents([]Event{chunkEv("", "act_c", 0, pt0.Add(time.Second))}, local.Add(time.Second))
	if got, want := p.Now(local.Add(time.Second)), newest.Add(time.Second); !got.Equal(want) {
		t.Errorf("after an older chunk: aipd's now %v, want %v", got, want)
	}
}

// A row settled ahead of aipd's clock as the figures are asked for (asked
// at a local time before the row was read) is counted only within a
// minute of it: the window is the 15 minutes up to aipd's now (design
// §13), with a minute's leeway for clocks, not every row ahead of it.
func TestPulseRowsAheadOfTheClockBeyondAMinuteAreOutsideTheWindow(t *testing.T) {
	local := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	p := NewPulse()
	p.AddEvents([]Event{chunkEv("", "act_a", 0, pt0)}, local)
	p.Settle("r", Judged{Verdict: VerdictFailed, SettledAt: pt0.Add(10 * time.Minute)}, local.Add(10*time.Minute))
	for _, c := range []struct {
		at   time.Duration // the local time asked, after the chunk
		want int
	}{{10 * time.Minute, 1}, {9*time.Minute + 30*time.Second, 1}, {5 * time.Minute, 0}} {
		if f := p.Figures(local.Add(c.at)); f.Settled != c.want || len(p.Capabilities(local.Add(c.at))) != c.want {
			t.Errorf("asked %v after the chunk, the row %v ahead: %d settled, want %d", c.at, 10*time.Minute-c.at, f.Settled, c.want)
		}
	}
}

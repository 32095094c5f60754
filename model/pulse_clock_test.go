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

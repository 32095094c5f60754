package stream

import (
	"testing"
	"time"
)

// Batches are timed by the process's beat: whatever the phase of the
// stream, a batch due at t goes on the beat nearest t (at most half an
// interval away), so two streams followed at once hand theirs over at the
// same instants.
func TestBatchesKeepToTheBeat(t *testing.T) {
	const iv = DefaultBatchInterval
	base := beatEpoch.Add(1000 * iv)
	for _, phase := range []time.Duration{0, time.Millisecond, iv/2 - time.Millisecond, iv / 2, iv - time.Millisecond} {
		due := base.Add(phase)
		b := onBeat(due, iv)
		if off := b.Sub(beatEpoch) % iv; off != 0 {
			t.Errorf("due at +%v: the batch goes %v off the beat", phase, off)
		}
		if d := b.Sub(due).Abs(); d > iv/2 {
			t.Errorf("due at +%v: the batch goes %v from when it was due", phase, d)
		}
	}
	// Two streams at different phases: their next batches on one beat.
	a, b := onBeat(base.Add(3*time.Millisecond), iv), onBeat(base.Add(-5*time.Millisecond), iv)
	if !a.Equal(b) {
		t.Fatalf("two streams 8 ms apart batch at %v and %v", a.Sub(beatEpoch), b.Sub(beatEpoch))
	}
}

package model

import (
	"testing"
	"time"
)

// A retry's countdown (the live view's start line and status bar) counts
// whole seconds up, so the last second still reads "in 1s", and zero is now.
func TestWaitLeft(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "now", 0: "now", time.Millisecond: "in 1s", time.Second: "in 1s",
		time.Second + time.Millisecond: "in 2s", 3702 * time.Millisecond: "in 4s", 90 * time.Second: "in 90s",
	} {
		if got := WaitLeft(d); got != want {
			t.Errorf("WaitLeft(%v) = %q, want %q", d, got, want)
		}
	}
}

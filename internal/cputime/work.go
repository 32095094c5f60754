package cputime

import (
	"runtime"
	"slices"
	"time"
)

// Work is the process's CPU time running f (the measure for the
// hostile orders: "CPU"), the GC's background work included, after a
// collection, so that of two runs compared neither pays for the other's
// garbage. Unlike the wall clock, it leaves out the time the shared box's
// other work held the cores.
func Work(f func()) time.Duration {
	runtime.GC()
	c0 := Process()
	f()
	return Process() - c0
}

// Pct is the p-th percentile of d, in milliseconds (0 for none).
func Pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[min((len(s)*p)/100, len(s)-1)]) / float64(time.Millisecond)
}

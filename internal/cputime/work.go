package cputime

import (
	"runtime"
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

//go:build !linux

package output

import "time"

var cpuStart = time.Now()

// threadCPU falls back to the wall clock where the thread's CPU clock is
// not at hand.
func threadCPU() time.Duration { return time.Since(cpuStart) }

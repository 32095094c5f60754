//go:build !linux

// Package cputime reads the CPU time of the calling OS thread, for the
// benchmarks of output/ and ui/.
package cputime

import "time"

var start = time.Now()

// Thread falls back to the wall clock where the thread's CPU clock is not
// at hand.
func Thread() time.Duration { return time.Since(start) }

// Process is wall time since start where no process clock is read.
func Process() time.Duration { return time.Since(start) }

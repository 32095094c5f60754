// Package cputime reads the CPU time of the calling OS thread, for the
// benchmarks of output/ and ui/: they lock their goroutine to its thread
// while they measure, so a measure leaves out the time the shared box's
// other work held the core (a wall-clock p99 there is mostly that).
package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// Thread is the CPU time the calling OS thread has used
// (CLOCK_THREAD_CPUTIME_ID).
func Thread() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	_, _, _ = syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// Process is the CPU time the whole process has used, user and system:
// the work of every goroutine, the GC's background workers included.
func Process() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build unix

package output

import (
	"syscall"
	"time"
)

// procCPU is the CPU time the test process has used (user and system, all
// threads, the garbage collector's too): on a shared machine it moves far
// less with the load than the wall clock.
func procCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build !unix

package output

import "time"

var cpuStart = time.Now()

// procCPU falls back to the wall clock where getrusage is missing.
func procCPU() time.Duration { return time.Since(cpuStart) }

package cli

import (
	"flag"
	"os"
	"testing"
	"time"
)

// TestMain shortens the back-off of every client the commands make: a test
// of a daemon that is not there, or refuses, then fails in milliseconds
// instead of waiting out the production back-off (250 ms doubling to 10 s).
// What the tests assert (the error, its hint, the exit code) does not
// depend on the pacing.
//
// It also lets more parallel tests run at once than go test's default
// (GOMAXPROCS) unless -parallel is given: most of this package's time is
// spent waiting on a simulator (a demo's pacing, a probe's or a
// completion's bound, a stall timeout, a live run at its speed), not on
// the CPU, and those waits can overlap. The tests that set process-wide
// state are not parallel and run before any parallel one.
func TestMain(m *testing.M) {
	retryPacing.min, retryPacing.max = time.Millisecond, 20*time.Millisecond
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}

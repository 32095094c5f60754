package cli

import (
	"os"
	"testing"
	"time"
)

// TestMain shortens the back-off of every client the commands make: a test
// of a daemon that is not there, or refuses, then fails in milliseconds
// instead of waiting out the production back-off (250 ms doubling to 10 s).
// What the tests assert (the error, its hint, the exit code) does not
// depend on the pacing.
func TestMain(m *testing.M) {
	retryPacing.min, retryPacing.max = time.Millisecond, 20*time.Millisecond
	os.Exit(m.Run())
}

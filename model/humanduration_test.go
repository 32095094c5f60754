package model

import (
	"testing"
	"time"
)

// One rule for every duration shown to people (a tool's "completed in",
// the cost line, a wait): 900ms and 1.1s read alike, tenths under ten
// seconds, milliseconds under a tenth.
func TestHumanDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0ms"},
		{0, "0ms"},
		{43 * time.Millisecond, "43ms"},
		{99 * time.Millisecond, "99ms"},
		{100 * time.Millisecond, "0.1s"},
		{900 * time.Millisecond, "0.9s"},
		{1100 * time.Millisecond, "1.1s"},
		{9949 * time.Millisecond, "9.9s"},
		{12*time.Second + 700*time.Millisecond, "12s"},
		{3*time.Minute + 5*time.Second, "3m05s"},
		{time.Hour + 2*time.Minute + 30*time.Second, "1h02m"},
	} {
		if got := HumanDuration(c.d); got != c.want {
			t.Errorf("HumanDuration(%s) = %q, want %q", c.d, got, c.want)
		}
	}
	if Seconds(900) != HumanDuration(900*time.Millisecond) {
		t.Fatal("Seconds is another rule")
	}
}

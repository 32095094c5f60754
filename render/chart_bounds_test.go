package render

import (
	"testing"
	"unicode/utf8"
)

// Compact is at most five cells (its doc: "999T", then ">999T"), at the
// boundary too: a value that would round up to 1000T is ">999T", never
// the six-cell "1000T".
func TestCompactAtMostFiveCellsAtTheTop(t *testing.T) {
	for _, v := range []float64{999.5e12, 999.49e12, 1e15} {
		got := Compact(v)
		if utf8.RuneCountInString(got) > 5 {
			t.Errorf("Compact(%v) = %q: more than five cells", v, got)
		}
	}
	if got := Compact(999.5e12); got != ">999T" {
		t.Errorf("Compact(999.5e12) = %q, want >999T", got)
	}
}

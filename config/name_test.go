package config

import "testing"

// A context's name is letters, digits, '-', '_' and '.', so that it prints
// as itself everywhere (validName): each range whole to its last letter or
// digit, and not one byte beyond: the bytes next to each range ('`', '{',
// '@', '[', '/', ':') are refused.
func TestValidNameRanges(t *testing.T) {
	for _, ok := range []string{"a", "z", "A", "Z", "0", "9", "prod-eu_2.b"} {
		if !validName(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "`", "{", "@", "[", "/", ":", "a b", "é"} {
		if validName(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// parseRFC3339 answers as time.Parse(time.RFC3339Nano, …) does, the same
// instant, location and error or none, for aipd's own form and for the
// forms around it it hands to time.Parse.
func TestParseRFC3339(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, err := parseRFC3339(s)
		want, werr := time.Parse(time.RFC3339Nano, s)
		// UTC: the same instant in the same location.
		same := got.Equal(want) && got.Location() == want.Location()
		if len(s) > 0 && s[len(s)-1] != 'Z' { // time.Parse makes a zone a call
			n1, o1 := got.Zone()
			n2, o2 := want.Zone()
			same = got.Equal(want) && n1 == n2 && o1 == o2
		}
		if (err == nil) != (werr == nil) || !same {
			t.Fatalf("%q: %v (%v), time.Parse %v (%v)", s, got, err, want, werr)
		}
	}
	for _, s := range []string{
		"2026-12-03T15:22:03.45713526Z", "2026-12-03T15:22:03Z", "2026-12-03T15:22:03.1Z",
		"2026-12-03T15:22:03.123456789Z", "2026-12-03T15:22:03.1234567891Z", "2026-12-03T15:22:03.Z",
		"2026-12-03T15:22:03,5Z", "2026-02-29T00:00:00Z", "2028-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
		"2100-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-31T23:59:59.5Z", "2026-11-30T12:00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-12-00T00:00:00Z", "2026-12-31T24:00:00Z",
		"2026-12-31T23:60:00Z", "2026-12-31T23:59:60Z", "2026-12-03t15:22:03Z", "2026-12-03T15:22:03z",
		"2026-12-03T15:22:03+02:00", "2026-12-03T15:22:03.5-07:30", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "2026-1-03T15:22:03Z", "2026-12-03T15:22:0aZ", "-026-12-03T15:22:03Z",
		"2026-12-03T15:22:03.12a4Z", "", "Z", "2026-12-03T15:22:03.+5Z",
	} {
		check(s)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := []byte("2026-12-03T15:22:03.457135Z")
		b = b[:20+rnd.IntN(8)]
		b = append(b, 'Z')
		for range rnd.IntN(3) {
			b[rnd.IntN(len(b))] = "0123456789.-:TZ+ "[rnd.IntN(17)]
		}
		check(string(b))
	}
}

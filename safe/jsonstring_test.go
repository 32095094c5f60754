package safe

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// jsonPieces: what JSON escapes, what safe replaces, and what both leave.
var jsonPieces = []string{"plain ", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1b]0;T\x07", "\x1f", "\x7f",
	"<", ">", "&", "\u2028", "\u2029", "\u2027", "\u202a", "\u202e", "\u2066", "\u2069", "\u0080", "\u0085",
	"\u009b", "\u009f", "\u00a0", "é", "日本語", "😀", "\xff", "\xc2", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"␛", "\\u001b", "/"}

// checkJSONString: AppendJSONString writes json.Marshal of the neutralised
// string (clean, as Line and Text make it, before their scrub).
func checkJSONString(t *testing.T, s string) {
	t.Helper()
	for _, multi := range []bool{false, true} {
		want, err := json.Marshal(clean(s, multi, false))
		if err != nil {
			t.Fatal(err)
		}
		got := AppendJSONString([]byte("x"), s, multi)
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("AppendJSONString(%q, %v) = %s, want %s", s, multi, got[1:], want)
		}
	}
}

func TestAppendJSONStringIsMarshalOfNeutralised(t *testing.T) {
	for c := 0; c < 256; c++ {
		checkJSONString(t, "a"+string([]byte{byte(c)})+"b")
	}
	for r := rune(0); r < 0x2100; r++ {
		checkJSONString(t, string(r))
	}
	// A sample of random strings of the pieces; FuzzJSONString (run by
	// make fuzz-ci) holds the same property for any string and carries
	// the rest.
	rng := rand.New(rand.NewSource(27))
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for k := rng.Intn(6); k > 0; k-- {
			b.WriteString(jsonPieces[rng.Intn(len(jsonPieces))])
		}
		checkJSONString(t, b.String())
	}
}

// FuzzJSONString: whatever the string, the encoding is json.Marshal's of
// the neutralised string, and decodes to it.
func FuzzJSONString(f *testing.F) {
	for _, p := range jsonPieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkJSONString(t, s)
		var back string
		if err := json.Unmarshal(AppendJSONString(nil, s, false), &back); err != nil || back != clean(s, false, false) {
			t.Fatalf("%q decodes to %q (%v)", s, back, err)
		}
	})
}

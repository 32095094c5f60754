package safe

import (
	"strings"
	"testing"
)

// The ends of every replaced range are replaced and their neighbours kept:
// U+0080…U+009F (C1), U+202A…U+202E (bidi embeddings and overrides),
// U+2066…U+2069 (bidi isolates), and DEL beside the printable ASCII
// (no test sampled the endpoints).
func TestRangeEndpoints(t *testing.T) {
	replaced := []rune{0x7f, 0x80, 0x9f, 0x202a, 0x202e, 0x2066, 0x2069}
	kept := []rune{0x7e, 0xa0, 0x2029, 0x202f, 0x2065, 0x206a}
	for _, r := range replaced {
		in := "a" + string(r) + "b"
		for name, out := range map[string]string{"Text": Text(in), "Line": Line(in)} {
			if strings.ContainsRune(out, r) || !strings.HasPrefix(out, "a") || !strings.HasSuffix(out, "b") {
				t.Errorf("%s(U+%04X) = %q: not replaced", name, r, out)
			}
		}
		if out := string(JSON([]byte(`"` + in + `"`))); strings.ContainsRune(out, r) {
			t.Errorf("JSON(U+%04X) = %q: not escaped", r, out)
		}
	}
	for _, r := range kept {
		in := "a" + string(r) + "b"
		if Text(in) != in || Line(in) != in || string(JSON([]byte(in))) != in {
			t.Errorf("U+%04X changed: %q %q %q", r, Text(in), Line(in), JSON([]byte(in)))
		}
	}
}

// Mask hides content without naming its length, and keeps an empty field
// visibly empty.
func TestMask(t *testing.T) {
	if Mask("") != "" || Mask("x") != Masked || Mask(strings.Repeat("secret ", 100)) != Masked {
		t.Fatalf("Mask: %q %q", Mask(""), Mask("x"))
	}
}

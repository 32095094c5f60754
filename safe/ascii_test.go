package safe

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// firstUnsafeByByte is firstUnsafe without the word-at-a-time run of
// printable ASCII: the reference it must agree with.
func firstUnsafeByByte(s string, keepLayout, keepSGR bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if keepSGR && c == 0x1b {
			if n := sgrLen(s[i:]); n > 0 {
				i += n
				continue
			}
		}
		if c < utf8.RuneSelf {
			if unsafeASCII(c, keepLayout) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// TestPlainASCIIEveryByte puts every byte value at every position of a
// run of printable ASCII: plainASCII must stop at the word holding it,
// exactly when it is not printable.
func TestPlainASCIIEveryByte(t *testing.T) {
	base := []byte(strings.Repeat("~ az!09ZZ", 3)) // 27 printable bytes, '~' (0x7e) and ' ' (0x20) the edges
	for pos := range base {
		for c := 0; c < 256; c++ {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			want := len(b) / 8 * 8
			if c < 0x20 || c >= 0x7f {
				want = pos / 8 * 8
			}
			if got := plainASCII(string(b)); got != want {
				t.Fatalf("byte %#x at %d: plainASCII = %d, want %d", c, pos, got, want)
			}
		}
	}
}

// TestFirstUnsafeAgreesByteByByte: random strings mixing printable runs,
// controls, DEL, SGR, C1, bidi, U+2028, other runes and invalid bytes, at
// every alignment and in every mode.
func TestFirstUnsafeAgreesByteByByte(t *testing.T) {
	pieces := []string{"plain text ", "abcdefgh", "~", " ", "\n", "\t", "\x1b[1m", "\x1b[0m", "\x1b]0;x\x07",
		"\x00", "\x1f", "\x7f", "\u0085", "\u009b", "\u00a0", "é", "\u202e", "\u2066", "\u2028", "日本語",
		"\xff", "\xc2", "\xe2\x80", "😀", "[token]", "<&>", "─", "│", "┃", "╿", "\xe2\x94", "\xe2\x95\x41", "\xe2\x96\x80"}
	rng := rand.New(rand.NewSource(16))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		for _, keepLayout := range []bool{false, true} {
			for _, keepSGR := range []bool{false, true} {
				if got, want := firstUnsafe(s, keepLayout, keepSGR), firstUnsafeByByte(s, keepLayout, keepSGR); got != want {
					t.Fatalf("firstUnsafe(%q, %v, %v) = %d, want %d", s, keepLayout, keepSGR, got, want)
				}
			}
		}
	}
}

// TestFirstUnsafeBoxDrawing: the box-drawing and block characters
// firstUnsafe passes without decoding (U+2500 to U+25BF: E2 94 to E2 96,
// then a continuation byte) and every three bytes around them, valid or
// not, are judged as the reference judges them.
func TestFirstUnsafeBoxDrawing(t *testing.T) {
	for b1 := 0x92; b1 <= 0x97; b1++ {
		for b2 := 0; b2 < 256; b2++ {
			for _, s := range []string{"a\xe2" + string([]byte{byte(b1), byte(b2)}) + "z", "\xe2" + string([]byte{byte(b1), byte(b2)}), "\xe2" + string([]byte{byte(b1)})} {
				for _, keepSGR := range []bool{false, true} {
					if got, want := firstUnsafe(s, false, keepSGR), firstUnsafeByByte(s, false, keepSGR); got != want {
						t.Fatalf("firstUnsafe(%q) = %d, want %d", s, got, want)
					}
				}
			}
		}
	}
	if got := Row("┌─ 1 ─┐│x│┃y┃▌"); got != "┌─ 1 ─┐│x│┃y┃▌" {
		t.Fatalf("a box's lines changed: %q", got)
	}
}

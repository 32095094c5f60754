// Package safe neutralises untrusted text (design §5) before it reaches a
// terminal, a record or an export: model output, tool names and labels,
// function arguments and outputs, error messages and IDs.
//
// Every C0 control (except newline and tab in Text), DEL, every C1 control
// and every bidi override or isolate is replaced by a visible placeholder,
// and invalid UTF-8 by U+FFFD. With ESC, CSI (U+009B), OSC (U+009D), DCS,
// APC, PM and SOS gone, no escape sequence can survive: what was
// "\x1b]52;c;…\a" is shown as "␛]52;c;…␇". Text with nothing to replace is
// returned as it is, without allocating.
package safe

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Text sanitises multi-line text: newline and tab are kept. Every
// 12-character substring of a protected secret becomes TokenMark.
func Text(s string) string { return Scrub(clean(s, true, false)) }

// Line sanitises text shown on one line (labels, IDs, error messages,
// statuses, codes, cursors): newline and tab become visible too, so no
// field can start a line of its own. Secrets are scrubbed as in Text.
func Line(s string) string { return Scrub(clean(s, false, false)) }

// clean replaces what a terminal would obey with placeholders: C0
// controls and DEL (a newline and a tab too, unless keepLayout), C1 and
// bidi controls and invalid UTF-8; with keepSGR an SGR sequence (Row's
// styling) is kept. A string with nothing to replace is returned as it is.
func clean(s string, keepLayout, keepSGR bool) string {
	i := firstUnsafe(s, keepLayout, keepSGR)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if keepSGR && c == 0x1b {
			if n := sgrLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		if c < utf8.RuneSelf {
			if unsafeASCII(c, keepLayout) {
				b.WriteString(placeholderASCII(c))
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case unsafeRune(r):
			b.WriteString(placeholderRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the byte offset of the first character clean
// replaces, or -1.
func firstUnsafe(s string, keepLayout, keepSGR bool) int {
	// Eight bytes at a time while they are printable ASCII, which nothing
	// replaces (most text); byte by byte in the word that holds anything
	// else and in the last few bytes, and by words again after each byte
	// or character that is not printable ASCII.
	i := plainASCII(s)
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		n := 0
		if keepSGR && c == 0x1b {
			n = sgrLen(s[i:])
		}
		switch {
		case n > 0:
			i += n
		case c < utf8.RuneSelf:
			if unsafeASCII(c, keepLayout) {
				return i
			}
			i++
		case boxRune(s[i:]):
			i += 3
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
				return i
			}
			i += size
		}
		i += plainASCII(s[i:])
	}
	return -1
}

// boxRune: s starts with a box-drawing or block character (U+2500 to
// U+25BF: the rules, borders and gutter bars every frame draws by the
// hundred), which clean keeps: E2, then 94, 95 or 96, then a continuation
// byte, read without decoding.
func boxRune(s string) bool {
	return len(s) >= 3 && s[0] == 0xe2 && s[1] >= 0x94 && s[1] <= 0x96 && s[2]&0xc0 == 0x80
}

// plainASCII is the length of the run of printable ASCII (0x20 to 0x7e)
// that s starts with, counted in whole 8-byte words: the bytes after it
// may be printable too. Each word is tested at once: a byte from 0x80 has
// its high bit set already; of the others, the lowest byte below 0x20 or
// equal to 0x7f gets its high bit set by one of the two subtractions (the
// printable bytes under it lend it no borrow), and printable bytes set
// none.
func plainASCII(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for ; n+8 <= len(s); n += 8 {
		w := s[n : n+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		below := x - 0x20*ones        // a byte < 0x20
		del := (x ^ 0x7f*ones) - ones // a byte == 0x7f
		if (x|below|del)&highs != 0 {
			break
		}
	}
	return n
}

func unsafeASCII(c byte, keepLayout bool) bool {
	if c == '\n' || c == '\t' {
		return !keepLayout
	}
	return c < 0x20 || c == 0x7f
}

// unsafeRune: C1 controls, bidi embeddings/overrides and isolates.
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func placeholderASCII(c byte) string {
	switch c {
	case 0x7f:
		return "␡"
	case '\n':
		return "⏎"
	case '\t':
		return "⇥"
	}
	return string(rune(0x2400 + int(c))) // Unicode control pictures: ␀ … ␟, ␛ for ESC
}

func placeholderRune(r rune) string {
	return "⟨U+" + strings.ToUpper(strconv.FormatInt(int64(r), 16)) + "⟩"
}

// JSON makes encoded JSON terminal-safe without changing its meaning:
// encoding/json already escapes C0 controls, but writes DEL, C1 controls
// and bidi controls raw, which some terminals obey. Those runes can only
// occur inside JSON strings, so they are rewritten as \uXXXX escapes.
//
// Secrets are scrubbed too, in their raw and JSON-escaped forms; TokenMark
// holds nothing JSON escapes, so the text stays valid JSON.
func JSON(b []byte) []byte {
	if sc := secrets.Load(); sc != nil {
		if s := view(b); sc.spans(s) != nil {
			b = []byte(sc.scrub(s))
		}
	}
	return escapeJSON(b)
}

// view is b read as a string without a copy, for code that only reads it
// while b does not change.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func escapeJSON(b []byte) []byte {
	s := view(b) // out is a new slice: b is only read
	i := firstUnsafe(s, true, false)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		// DEL too: firstUnsafe stops on it, and FuzzText found it copied
		// through raw (encoding/json does not escape 0x7f).
		if unsafeRune(r) || r == 0x7f {
			out = append(out, `\u`...)
			hex := strconv.FormatInt(int64(r), 16)
			for n := len(hex); n < 4; n++ {
				out = append(out, '0')
			}
			out = append(out, hex...)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return out
}

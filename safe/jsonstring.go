package safe

import (
	"unicode/utf8"
)

// AppendJSONString appends s to b as a JSON string whose decoded value is
// s neutralised (design §5): Line(s), or Text(s) when multiline, but for
// the token scrub, which the Writer that takes the line applies to all of
// it (a JSONLines Writer, as jsonl's). It is one pass over s, and writes
// the bytes encoding/json.Marshal writes for the neutralised string: its
// HTML-safe escapes (\u003c \u003e \u0026), \u2028 and \u2029, \" and
// \\, \n and \t where they stay. A field encoded so carries placeholders,
// not escapes, so a script that decodes it (jq -r) prints nothing a
// terminal obeys.
func AppendJSONString(b []byte, s string, multiline bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonAsIs[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			case c == '\n' && multiline:
				b = append(b, '\\', 'n')
			case c == '\t' && multiline:
				b = append(b, '\\', 't')
			default:
				b = append(b, placeholderASCII(c)...)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
		case unsafeRune(r):
			b = append(b, s[start:i]...)
			b = append(b, placeholderRune(r)...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// jsonAsIs marks the ASCII bytes written as they are: printable ASCII but
// the quote, the backslash and <, > and & (encoding/json's HTML-safe set;
// DEL is a placeholder here).
var jsonAsIs = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

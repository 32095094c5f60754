package output

import (
	"strconv"
	"unicode/utf8"
)

// The jsonl lines of every type but the verdict are encoded by hand, the
// bytes encoding/json.Marshal writes for the line's struct (its tags, its
// omitempty fields, its HTML-safe string escaping), without reflection:
// one per chunk on a fast stream. TestLineEncodersMatchMarshal and
// FuzzLineEncoders hold them to json.Marshal. What comes out goes through
// safe.JSON as before, so the escapes safe adds and the token scrub are
// applied to the same bytes.

// jsonLine is a line struct that encodes itself.
type jsonLine interface {
	appendJSON(b []byte) []byte
}

// objStart opens an object with its "type".
func objStart(b []byte, typ string) []byte {
	b = append(b, `{"type":`...)
	return appendString(b, typ)
}

// field appends ,"key": (key is one of ours and needs no escape).
func field(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// strField appends ,"key":"value".
func strField(b []byte, key, v string) []byte { return appendString(field(b, key), v) }

// omitStr and omitNum append a field that has omitempty: not at all when
// the value is empty or zero.
func omitStr(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return strField(b, key, v)
}

func omitNum[N int64 | uint64](b []byte, key string, n N) []byte {
	if n == 0 {
		return b
	}
	if n < 0 {
		return strconv.AppendInt(field(b, key), int64(n), 10)
	}
	return strconv.AppendUint(field(b, key), uint64(n), 10)
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the ASCII bytes encoding/json copies into a string as
// they are (its HTML-safe set): printable ASCII and DEL, but for the
// quote, the backslash and <, > and &.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendString appends s as a JSON string the way encoding/json does
// with HTML escaping: \" \\ \b \f \n \r \t, \u00XX for the other C0
// controls and for <, > and &, \ufffd for each byte of invalid UTF-8,
// \u2028 and \u2029; everything else as it is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
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

func (l connLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = omitNum(b, "attempt", int64(l.Attempt))
	b = omitStr(b, "cursor", l.Cursor)
	b = omitNum(b, "wait_ms", l.WaitMs)
	b = omitStr(b, "cause", l.Cause)
	b = omitStr(b, "code", l.Code)
	return append(b, '}')
}

func (l textLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "item", l.Item)
	return append(strField(b, "delta", l.Delta), '}')
}

func (l toolLineJSON) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "id", l.ID)
	b = strField(strField(b, "name", l.Name), "label", l.Label)
	return append(strField(b, "status", l.Status), '}')
}

func (l noteLine) appendJSON(b []byte) []byte {
	b = omitStr(objStart(b, l.Type), "kind", l.Kind)
	b = omitNum(b, "sequence", l.Sequence)
	return append(strField(b, "text", l.Text), '}')
}

func (l reconcileLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "advice", l.Advice)
	b = omitStr(b, "response_get_input", l.ResponseGetInput)
	return append(omitStr(b, "session_id", l.SessionID), '}')
}

func (l errorLine) appendJSON(b []byte) []byte {
	b = strField(objStart(b, l.Type), "code", l.Code)
	return append(strField(b, "message", l.Message), '}')
}

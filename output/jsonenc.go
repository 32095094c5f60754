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

// strField appends ,"key":"value"; key is one of ours and needs no escape.
func strField(b []byte, key, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func intField(b []byte, key string, n int64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, n, 10)
}

func uintField(b []byte, key string, n uint64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendUint(b, n, 10)
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
	if l.Attempt != 0 {
		b = intField(b, "attempt", int64(l.Attempt))
	}
	if l.Cursor != "" {
		b = strField(b, "cursor", l.Cursor)
	}
	if l.WaitMs != 0 {
		b = intField(b, "wait_ms", l.WaitMs)
	}
	if l.Cause != "" {
		b = strField(b, "cause", l.Cause)
	}
	if l.Code != "" {
		b = strField(b, "code", l.Code)
	}
	return append(b, '}')
}

func (l textLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = strField(b, "item", l.Item)
	b = strField(b, "delta", l.Delta)
	return append(b, '}')
}

func (l toolLineJSON) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = strField(b, "id", l.ID)
	b = strField(b, "name", l.Name)
	b = strField(b, "label", l.Label)
	b = strField(b, "status", l.Status)
	return append(b, '}')
}

func (l noteLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	if l.Kind != "" {
		b = strField(b, "kind", l.Kind)
	}
	if l.Sequence != 0 {
		b = uintField(b, "sequence", l.Sequence)
	}
	b = strField(b, "text", l.Text)
	return append(b, '}')
}

func (l reconcileLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = strField(b, "advice", l.Advice)
	if l.ResponseGetInput != "" {
		b = strField(b, "response_get_input", l.ResponseGetInput)
	}
	if l.SessionID != "" {
		b = strField(b, "session_id", l.SessionID)
	}
	return append(b, '}')
}

func (l errorLine) appendJSON(b []byte) []byte {
	b = objStart(b, l.Type)
	b = strField(b, "code", l.Code)
	b = strField(b, "message", l.Message)
	return append(b, '}')
}

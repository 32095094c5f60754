package sim

import (
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The simulator needs two JSON dialects, and byte-exact control over both:
//
//   - Python's json.dumps with default settings, which is what the Hermes
//     server writes on the wire (", " and ": " separators, every character
//     outside printable ASCII escaped as \uXXXX, astral characters as
//     surrogate pairs, keys in insertion order). This becomes raw_data.
//   - serde_json's compact output, which is what aipd writes (no spaces,
//     UTF-8 left as is, only '"', '\\' and control characters escaped). The
//     re-encoded provider payload (hermes_sse.data) is a serde_json::Value,
//     whose map keys come out sorted.
//
// Values are built from a small tree: nil, bool, int, int64, uint64, string,
// obj (an ordered object), []any, and rawJSON (already encoded compact JSON,
// only valid in the compact dialect).

type kv struct {
	K string
	V any
}

// obj is a JSON object that keeps its key order.
type obj []kv

// o builds an obj from alternating keys and values.
func o(pairs ...any) obj {
	if len(pairs)%2 != 0 {
		panic("sim: o() needs key/value pairs")
	}
	out := make(obj, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, kv{pairs[i].(string), pairs[i+1]})
	}
	return out
}

// get returns the value stored under k.
func (ob obj) get(k string) (any, bool) {
	for _, p := range ob {
		if p.K == k {
			return p.V, true
		}
	}
	return nil, false
}

// str returns the string stored under k, if there is one.
func (ob obj) str(k string) (string, bool) {
	v, ok := ob.get(k)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// rawJSON is pre-encoded compact JSON embedded verbatim.
type rawJSON []byte

// dialect is how one of the two writers spells what they share: the
// separators, strings, and whether keys are sorted and pre-encoded JSON
// allowed.
type dialect struct {
	comma, colon string
	str          func([]byte, string) []byte
	sortKeys     bool
	raw          bool // rawJSON is written verbatim (the compact dialect only)
	name         string
}

var (
	pyDialect            = dialect{comma: ", ", colon: ": ", str: appendPyString, name: "appendPy"}
	compactDialect       = dialect{comma: ",", colon: ":", str: appendCompactString[string], raw: true, name: "appendCompact"}
	compactSortedDialect = dialect{comma: ",", colon: ":", str: appendCompactString[string], raw: true, sortKeys: true, name: "appendCompact"}
)

// appendPy appends v as Python json.dumps(v) would write it.
func appendPy(b []byte, v any) []byte { return appendIn(b, v, &pyDialect) }

// appendCompact appends v as serde_json's compact writer would. With
// sortKeys, object keys are written in byte order (a serde_json::Value map);
// without, in the obj's own order (a Rust struct).
func appendCompact(b []byte, v any, sortKeys bool) []byte {
	if sortKeys {
		return appendIn(b, v, &compactSortedDialect)
	}
	return appendIn(b, v, &compactDialect)
}

// appendIn appends v in dialect d.
func appendIn(b []byte, v any, d *dialect) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case string:
		return d.str(b, x)
	case rawJSON:
		if d.raw {
			return append(b, x...)
		}
	case obj:
		if d.sortKeys && !slices.IsSortedFunc(x, cmpKey) {
			var tmp [16]kv
			x = append(tmp[:0], x...)
			slices.SortStableFunc(x, cmpKey)
		}
		b = append(b, '{')
		for i, p := range x {
			if i > 0 {
				b = append(b, d.comma...)
			}
			b = d.str(b, p.K)
			b = append(b, d.colon...)
			b = appendIn(b, p.V, d)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, d.comma...)
			}
			b = appendIn(b, e, d)
		}
		return append(b, ']')
	}
	panic("sim: " + d.name + ": unsupported value type")
}

const hexDigits = "0123456789abcdef"

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendPyString follows CPython's py_encode_basestring_ascii: printable
// ASCII (0x20..0x7e) is kept, the usual short escapes are used for '"', '\\',
// \n, \r, \t, \b, \f, and everything else becomes lowercase \uXXXX, with
// characters above U+FFFF split into a UTF-16 surrogate pair.
func appendPyString(b []byte, s string) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		// Bulk-copy the leading run of bytes that need no escape.
		n := 0
		for n < len(s) && s[n] >= 0x20 && s[n] <= 0x7e && s[n] != '"' && s[n] != '\\' {
			n++
		}
		b = append(b, s[:n]...)
		s = s[n:]
		if len(s) == 0 {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if esc, short := appendShortEscape(b, r); short {
			b = esc
			continue
		}
		switch {
		case r >= 0x20 && r <= 0x7e:
			b = append(b, byte(r))
		case r < 0x10000:
			b = appendU4(b, r)
		default:
			r -= 0x10000
			b = appendU4(b, 0xd800+(r>>10))
			b = appendU4(b, 0xdc00+(r&0x3ff))
		}
	}
	return append(b, '"')
}

// appendShortEscape appends the two-character escape both dialects write
// for '"', '\\', \n, \r, \t, \b and \f; short is false for any other r.
func appendShortEscape(b []byte, r rune) (_ []byte, short bool) {
	switch r {
	case '"':
		return append(b, '\\', '"'), true
	case '\\':
		return append(b, '\\', '\\'), true
	case '\n':
		return append(b, '\\', 'n'), true
	case '\r':
		return append(b, '\\', 'r'), true
	case '\t':
		return append(b, '\\', 't'), true
	case '\b':
		return append(b, '\\', 'b'), true
	case '\f':
		return append(b, '\\', 'f'), true
	}
	return b, false
}

func cmpKey(a, b kv) int {
	switch {
	case a.K < b.K:
		return -1
	case a.K > b.K:
		return 1
	}
	return 0
}

// appendCompactString escapes like serde_json: '"', '\\', the short control
// escapes, other control characters as \u00xx; all other bytes verbatim.
// Invalid UTF-8 is replaced by U+FFFD so the output is always valid JSON.
func appendCompactString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	run := 0 // start of the pending run of verbatim bytes
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, size := decodeRune(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b = append(b, s[run:i]...)
		if esc, short := appendShortEscape(b, rune(c)); short {
			b = esc
		} else if c < 0x20 {
			b = appendU4(b, rune(c))
		} else {
			b = append(b, "\ufffd"...) // invalid UTF-8
		}
		i++
		run = i
	}
	b = append(b, s[run:]...)
	return append(b, '"')
}

func decodeRune[T string | []byte](s T) (rune, int) {
	switch x := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(x)
	case []byte:
		return utf8.DecodeRune(x)
	}
	panic("unreachable")
}

// compact is appendCompact into a fresh, exactly sized slice, struct
// (insertion) order.
func compact(v any) []byte {
	scratch := scratchPool.Get().(*[]byte)
	b := appendCompact((*scratch)[:0], v, false)
	out := append([]byte(nil), b...)
	*scratch = b
	scratchPool.Put(scratch)
	return out
}

var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

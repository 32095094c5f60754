package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"unicode/utf8"
)

// jsonHash is a hash of a JSON value as jsonEqual sees it: object members
// in any order, numbers by their float64 value (by their text when they do
// not fit one), strings by their content (spelled one way: appendCanonical).
// Values jsonEqual calls equal have
// the same hash, so different hashes prove a conflict without decoding both
// values into maps (100,000 conflicting chunks spent most of
// their time in json.Unmarshal). ok is false when the hash cannot promise
// that (a duplicate key, a string that is not valid UTF-8, bad JSON): the
// caller then decides with jsonEqual.
func jsonHash(b []byte) (h uint64, ok bool) {
	s := hscan{b: b}
	h, ok = s.value(0)
	if s.pooled != nil && cap(s.scratch) <= 64<<10 {
		*s.pooled = s.scratch
		scratchPool.Put(s.pooled)
	}
	if !ok {
		return 0, false
	}
	s.ws()
	return h, s.i == len(b)
}

// scratchPool holds the buffers strings that are not spelled canonically
// are spelled again in, taken by the first such string of a value (not
// one allocation per hash); one grown past 64 KiB is not kept.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

var hashSeed = maphash.MakeSeed()

const (
	tagNull uint64 = iota + 0x9e3779b97f4a7c15
	tagTrue
	tagFalse
	tagNum
	tagNumText
	tagStr
	tagArr
	tagObj
)

func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	// murmur3's finaliser: every bit of h reaches every bit of the result.
	// A multiply alone left an object's sum of members open to
	// cancelling: {"a":1,"b":2} and {"a":2,"b":1} shared a hash for about
	// one seed in 200 (TestJSONHashTellsApart, run in fresh processes).
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

type hscan struct {
	b       []byte
	i       int
	scratch []byte
	pooled  *[]byte // scratch's box in scratchPool
}

func (s *hscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *hscan) value(depth int) (uint64, bool) {
	s.ws()
	if s.i >= len(s.b) || depth > 200 {
		return 0, false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		s.i++
		h, n := tagArr, uint64(0)
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return mix(h, 0), true
		}
		for {
			v, ok := s.value(depth + 1)
			if !ok {
				return 0, false
			}
			h, n = mix(h, v), n+1
			more, ok := s.next(']')
			if !ok {
				return 0, false
			}
			if !more {
				return mix(h, n), true
			}
		}
	case c == '"':
		str, ok := s.str()
		if !ok {
			return 0, false
		}
		return mix(tagStr, maphash.Bytes(hashSeed, str)), true
	case c == 't':
		return tagTrue, s.lit("true")
	case c == 'f':
		return tagFalse, s.lit("false")
	case c == 'n':
		return tagNull, s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		for s.i < len(s.b) {
			c := s.b[s.i]
			if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
				s.i++
				continue
			}
			break
		}
		text := s.b[start:s.i]
		if f, ok := smallInt(text); ok {
			return mix(tagNum, math.Float64bits(f)), true
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return mix(tagNumText, maphash.Bytes(hashSeed, text)), true
			}
			return 0, false
		}
		if f == 0 {
			f = 0 // -0 equals 0
		}
		return mix(tagNum, math.Float64bits(f)), true
	}
	return 0, false
}

// smallInt is the value of text when it is an integer of at most 15
// digits, with or without a minus (a sequence, an index, a Unix time):
// exactly what strconv.ParseFloat gives, without its general path. ok is
// false for any other text.
func smallInt(text []byte) (float64, bool) {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	f := float64(n) // exact: n < 10^15 < 2^53
	if len(digits) < len(text) && n != 0 {
		f = -f // -0 is 0, as jsonEqual sees it
	}
	return f, true
}

func (s *hscan) object(depth int) (uint64, bool) {
	s.i++ // {
	var sum, n uint64
	var keys [16]uint64
	seen := keys[:0]
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return mix(tagObj, 0), true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return 0, false
		}
		key, ok := s.str()
		if !ok {
			return 0, false
		}
		kh := maphash.Bytes(hashSeed, key)
		for _, k := range seen {
			if k == kh {
				return 0, false // a duplicate key (or a hash collision): let jsonEqual decide
			}
		}
		seen = append(seen, kh)
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return 0, false
		}
		s.i++
		v, ok := s.value(depth + 1)
		if !ok {
			return 0, false
		}
		sum += mix(kh, v) // a sum: member order does not matter
		n++
		more, ok := s.next('}')
		if !ok {
			return 0, false
		}
		if !more {
			return mix(mix(tagObj, sum), n), true
		}
	}
}

// next reads what follows a member of an array or object: a comma (more:
// another member follows) or the closing bracket end (more is false); ok
// is false on anything else or the end of the input.
func (s *hscan) next(end byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case end:
		s.i++
		return false, true
	}
	return false, false
}

// str reads a string literal and returns the bytes its hash is of: the
// string spelled one way only, its canonical literal (appendCanonical).
// ok is false when it is not valid UTF-8 or not a literal at all. A
// literal whose escapes are all \" \\ \b \f \n \r \t is already canonical:
// it is scanned as jscan.str scans and hashed as it is, without a copy
// (a conflicting Hermes chunk is hashed whole, and its raw_data
// is its frame again as a string, an escaped quote every few bytes). Any
// other (with \u or \/, or not JSON) is read again by strSlow.
func (s *hscan) str() ([]byte, bool) {
	b := s.b
	start := s.i + 1
	for i := start; i < len(b); i++ {
		for i+8 <= len(b) { // to the next special byte, as jscan.str
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:i], true
		case c == '\\':
			if i+1 >= len(b) || !canonicalEscape[b[i+1]] {
				return s.strSlow()
			}
			i++
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false
			}
			i += size - 1
		}
	}
	return nil, false
}

// canonicalEscape marks the letters of the escapes appendCanonical writes
// for their characters.
var canonicalEscape = [256]bool{'"': true, '\\': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// shortEscape is the letter of a control character's one-letter escape (0:
// it has none, and is written \u00xx).
var shortEscape = [0x20]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// appendCanonical appends the canonical literal of str (valid UTF-8, the
// content of a string): " and \ and the control characters escaped, with
// their one-letter escape where they have one and \u00xx (lower-case hex)
// where not, every other character as itself. Strings are equal exactly
// when their canonical literals are.
func appendCanonical(b, str []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range str {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 && shortEscape[c] != 0:
			b = append(b, '\\', shortEscape[c])
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

// buffer returns the scratch buffer, emptied.
func (s *hscan) buffer() []byte {
	if s.pooled == nil {
		s.pooled = scratchPool.Get().(*[]byte)
		s.scratch = *s.pooled
	}
	return s.scratch[:0]
}

// strSlow is str for a literal that is not canonical: read with the
// decoder's scanner (jscan.str), unquoted (appendUnquoted) and spelled
// again canonically, in the scratch buffer (valid until the next call).
// ok is false when the string is not valid UTF-8 or an escape decodes to
// U+FFFD (a lone surrogate does, as an escaped \ufffd does: both sides
// would hash alike only by luck, so such a string is left to jsonEqual).
func (s *hscan) strSlow() ([]byte, bool) {
	j := jscan{b: s.b, i: s.i}
	lit, _, ok := j.str()
	if !ok || !utf8.Valid(lit) {
		return nil, false
	}
	s.i = j.i
	str := appendUnquoted(s.buffer(), lit)
	if bytes.Contains(lit, []byte(`\u`)) && bytes.ContainsRune(str, utf8.RuneError) {
		return nil, false
	}
	s.scratch = appendCanonical(str, str) // after str in the buffer
	return s.scratch[len(str):], true
}

func (s *hscan) lit(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

// jsonSame is jsonEqual with a fast answer when the hashes prove the values
// differ.
func jsonSame(a, b json.RawMessage) bool {
	if len(a) > 0 && len(b) > 0 && !bytesEqual(a, b) {
		ha, okA := jsonHash(a)
		hb, okB := jsonHash(b)
		if okA && okB && ha != hb {
			return false
		}
	}
	return jsonEqual(a, b)
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

package model

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonHash is a hash of a JSON value as jsonEqual sees it: object members
// in any order, numbers by their float64 value (by their text when they do
// not fit one), strings after unescaping. Values jsonEqual calls equal have
// the same hash, so different hashes prove a conflict without decoding both
// values into maps (issue 16: 100,000 conflicting chunks spent most of
// their time in json.Unmarshal). ok is false when the hash cannot promise
// that (a duplicate key, a string that is not valid UTF-8, bad JSON): the
// caller then decides with jsonEqual.
func jsonHash(b []byte) (h uint64, ok bool) {
	s := hscan{b: b}
	h, ok = s.value(0)
	if !ok {
		return 0, false
	}
	s.ws()
	return h, s.i == len(b)
}

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
	return h * 0xff51afd7ed558ccd
}

type hscan struct {
	b       []byte
	i       int
	scratch []byte
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

// str reads a string literal (with the decoder's scanner, jscan.str) and
// returns its unescaped bytes (in a scratch buffer when it has escapes:
// valid until the next call). ok is false when a string is not valid UTF-8
// or an escape decodes to U+FFFD (a lone surrogate does, as an escaped
// \ufffd does: both sides would hash alike only by luck, so such a string
// is left to jsonEqual).
func (s *hscan) str() ([]byte, bool) {
	j := jscan{b: s.b, i: s.i}
	lit, plain, ok := j.str()
	if !ok {
		return nil, false
	}
	s.i = j.i
	if plain {
		return lit, true
	}
	if !utf8.Valid(lit) {
		return nil, false
	}
	if bytes.IndexByte(lit, '\\') < 0 {
		return lit, true
	}
	s.scratch = appendUnquoted(s.scratch[:0], lit)
	return s.scratch, !bytes.Contains(lit, []byte(`\u`)) || !bytes.ContainsRune(s.scratch, utf8.RuneError)
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

package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A small, strict JSON reader for the hot path: the shapes aipd and the
// Hermes connector send on every frame (a chunk, an event, the hermes_sse
// envelope, a Chat delta), an events page and a result. It is one scanner
// (jscan), one object walk driven by a table a shape (object, objShape;
// the tables are in fastdecode.go) and one array walk (array). It decodes
// those shapes in one pass without
// reflection and without copying values it does not need, and it answers
// "not sure" (ok == false) for anything outside the plain form it knows:
// a duplicate or case-folded key, an escaped key, a value of an unexpected
// type, an escaped or non-ASCII string it would have to unquote. Every
// caller then takes the encoding/json route it always had, so the result
// is the same as before for every input; the fast path only ever answers
// for input where encoding/json would give exactly what it gives.
//
// What it validates is strict RFC 8259 (the grammar encoding/json
// accepts), so a value it skips is one encoding/json would accept too.

// jscan reads JSON from b at i.
type jscan struct {
	b     []byte
	i     int
	depth int         // of the values being skipped
	hints []chunkHint // where newHint takes the next chunk's hint from
}

// newHint returns a zero chunkHint from a block of them: a page decodes a
// hint a chunk, and one allocation serves up to 64 (each was one of the
// firehose's largest allocations). A hint is dropped once its chunk is
// applied, so a block lives about as long as its page.
func (s *jscan) newHint() *chunkHint {
	if len(s.hints) == cap(s.hints) {
		// Blocks grow from one: a chunk decoded on its own (a live
		// follow's) takes one hint, not a block.
		s.hints = make([]chunkHint, 0, min(64, 2*cap(s.hints)+1))
	}
	s.hints = s.hints[:len(s.hints)+1]
	return &s.hints[len(s.hints)-1]
}

// maxFastDepth bounds nesting on the fast path (encoding/json allows
// 10000; deeper input takes the slow path and gets its answer there).
const maxFastDepth = 512

func (s *jscan) ws() {
	// Compact JSON (what aipd sends) has none: one test says so.
	for s.i < len(s.b) && s.b[s.i] <= ' ' {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only whitespace is left.
func (s *jscan) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// peek returns the next non-space byte (0 at the end).
func (s *jscan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// str reads a string at s.i, eight bytes at a time while none is
// special. lit is its content between the quotes as written; plain means
// it has no escape and no byte outside ASCII, so string(lit) is exactly
// what encoding/json would decode.
func (s *jscan) str() (lit []byte, plain, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	plain = true
	for j := start; j < len(s.b); j++ {
		// Eight bytes at a time while none of them is special, then
		// straight to the first that is.
		for j+8 <= len(s.b) {
			if m := special(binary.LittleEndian.Uint64(s.b[j:])); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		if j >= len(s.b) {
			break
		}
		c := s.b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], plain, true
		case c == '\\':
			plain = false
			j++
			if j >= len(s.b) {
				return nil, false, false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return nil, false, false
				}
				for k := j + 1; k <= j+4; k++ {
					if !isHex(s.b[k]) {
						return nil, false, false
					}
				}
				j += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			plain = false
		}
	}
	return nil, false, false
}

// special marks (in its high bit) each of the eight bytes of x that is a
// quote, a backslash, a control character or a byte outside ASCII. A byte
// above a marked one may be marked too (a borrow), so only the lowest mark
// is exact: the first special byte.
func special(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := x ^ (ones * '"')
	bslash := x ^ (ones * '\\')
	t := (quote - ones) &^ quote
	t |= (bslash - ones) &^ bslash
	t |= x - ones*0x20 // a byte below 0x20 borrows into its high bit
	t |= x
	return t & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// strAs reads a string and decodes it exactly as encoding/json does: a
// plain one (no escape, ASCII only) is conv of its bytes, any other is
// unquoted.
func (s *jscan) strAs(conv func(lit []byte) string) (string, bool) {
	lit, plain, ok := s.str()
	switch {
	case !ok:
		return "", false
	case !plain:
		return unquote(lit), true
	}
	return conv(lit), true
}

// strValue reads a string of its own.
func (s *jscan) strValue() (string, bool) { return s.strAs(copyStr) }

// strView reads a string that may share the input: a plain string is a
// view of its bytes, not a copy. Only for strings read from bytes that
// never change (a chunk's own Raw) and kept no longer than a few of them
// (a Chat frame's id, model, role and text: the text is copied into the
// transcript, the others replace the last ones).
func (s *jscan) strView() (string, bool) { return s.strAs(viewStr) }

func copyStr(lit []byte) string { return string(lit) }

func viewStr(lit []byte) string {
	if len(lit) == 0 {
		return ""
	}
	return unsafe.String(&lit[0], len(lit))
}

// unquote decodes the content of a string literal already validated by
// str, the way encoding/json's unquote does: escapes, UTF-16 surrogate
// pairs (a lone or broken surrogate is U+FFFD), and U+FFFD for each byte
// of invalid UTF-8.
func unquote(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		return string(lit)
	}
	return string(appendUnquoted(make([]byte, 0, len(lit)+8), lit))
}

// simpleEscape maps the letter after a backslash to the byte it stands
// for, for every escape but \u (0: not a one-letter escape). \' is
// accepted as encoding/json's unquote accepts it.
var simpleEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', '\'': '\'',
	'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendUnquoted appends lit decoded as unquote does to b.
func appendUnquoted(b, lit []byte) []byte {
	for r := 0; r < len(lit); {
		c := lit[r]
		switch {
		case c == '\\':
			r++
			if s := simpleEscape[lit[r]]; s != 0 {
				b = append(b, s)
				r++
				break
			}
			// \uXXXX, the only other escape a validated literal holds.
			r--
			rr := getu4(lit[r:])
			r += 6
			if utf16.IsSurrogate(rr) {
				rr1 := getu4(lit[r:])
				if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
					r += 6
					b = utf8.AppendRune(b, dec)
					break
				}
				rr = unicode.ReplacementChar
			}
			b = utf8.AppendRune(b, rr)
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(lit[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number reads a number literal (RFC 8259 grammar) and returns it.
func (s *jscan) number() ([]byte, bool) {
	b, i := s.b, s.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return b[start:i], true
}

// literal reads true, false or null.
func (s *jscan) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// null reads a null if one is next (after whitespace).
func (s *jscan) null() bool {
	return s.peek() == 'n' && s.literal("null")
}

// value skips one value (after whitespace), validating it, and returns its
// bytes exactly as written.
func (s *jscan) value() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

func (s *jscan) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == '{' || c == '[':
		if s.depth >= maxFastDepth {
			return false
		}
		s.depth++
		var ok bool
		if c == '{' {
			ok = s.skipObject()
		} else {
			ok = array(s, &s.depth, func(s *jscan, _ *int) bool { return s.skip() })
		}
		s.depth--
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		_, ok := s.number()
		return ok
	}
	return false
}

// skipObject validates the object at s.i (its '{'): keys and values as
// object reads them, without a table (no key is known, and a skipped
// object's keys decide nothing: duplicates and escapes are fine).
func (s *jscan) skipObject() bool {
	s.i++ // '{'
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		if _, _, ok := s.str(); !ok || s.peek() != ':' {
			return false
		}
		s.i++
		s.ws()
		if !s.skip() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// A shape is how one kind of object is decoded: its known keys, each with
// the decoder of its value. Decoding any object of the hot path is one walk
// (object) over one such table; a decoder reads its value at s.i (after
// whitespace) into v and returns false when it is not sure (or the value is
// malformed).
type objShape[T any] struct {
	fields []field[T]
	// soft: a member the walk is not sure of does not fail the object; it
	// is skipped, and its field's group reported (see object).
	soft bool
}

// field is one known key of a shape.
type field[T any] struct {
	name  string
	dec   func(s *jscan, v *T) bool
	group uint32 // soft shapes: the set of fields this one is decoded with
}

// allGroups is every group of a soft shape.
const allGroups = ^uint32(0)

// object reads an object into v with shape sh. The one rule for keys:
// encoding/json matches keys to fields case-insensitively and lets the
// last of duplicate keys win, so the walk is not sure of a known key seen
// twice, a key written with an escape or a byte outside ASCII, an unknown
// key that folds onto a known one, or a value its decoder is not sure of;
// other unknown keys are skipped (validated). In a hard shape any of those
// makes the object not sure (ok false); in a soft shape the walk skips the
// member instead and reports the groups it was not sure of in unsure (a key
// not plain: all of them), and ok is false only for malformed JSON.
func object[T any](s *jscan, v *T, sh *objShape[T]) (unsure uint32, ok bool) {
	if s.peek() != '{' {
		return 0, false
	}
	s.i++
	var seen uint32
	next := 0 // the field after the last key's: where the next key usually is
	for n := 0; ; n++ {
		c := s.peek()
		if c == '}' {
			s.i++
			return unsure, true
		}
		if n > 0 {
			if c != ',' {
				return 0, false
			}
			s.i++
			s.ws()
		}
		var key []byte
		var k int
		plain := true
		if next < len(sh.fields) && s.keyIs(sh.fields[next].name) {
			k = next // the usual case: no string scan and no search
		} else {
			var ok bool
			if key, plain, ok = s.str(); !ok {
				return 0, false
			}
			k = sh.index(key, next)
		}
		if s.peek() != ':' {
			return 0, false
		}
		s.i++
		s.ws()
		start := s.i
		var miss uint32 // groups of this member not sure
		bad := false
		if k >= 0 {
			next = k + 1
		}
		switch {
		case !plain:
			bad, miss = true, allGroups
		case k < 0:
			miss, bad = sh.folded(key)
		case seen&(1<<k) != 0:
			bad, miss = true, sh.fields[k].group
		default:
			seen |= 1 << k
			if sh.fields[k].dec(s, v) {
				continue
			}
			bad, miss = true, sh.fields[k].group
			s.i = start
		}
		if bad && !sh.soft {
			return 0, false
		}
		unsure |= miss
		if _, ok := s.value(); !ok {
			return 0, false
		}
	}
}

// keyIs reads the string at s.i when it is name, quotes and all. A
// field's name is plain ASCII with no quote or backslash, so these bytes
// are exactly the key name, as str would have read it.
func (s *jscan) keyIs(name string) bool {
	end := s.i + 1 + len(name)
	if end >= len(s.b) || s.b[s.i] != '"' || s.b[end] != '"' || string(s.b[s.i+1:end]) != name {
		return false
	}
	s.i = end + 1
	return true
}

// index is the field whose name is key, or -1. The search starts at
// field from and wraps around: senders write an object's keys in one order,
// mostly the table's, so the key after field k is usually field k+1.
func (sh *objShape[T]) index(key []byte, from int) int {
	n := len(sh.fields)
	for j := range n {
		k := from + j
		if k >= n {
			k -= n
		}
		if sh.fields[k].name == string(key) {
			return k
		}
	}
	return -1
}

// folded reports whether an unknown key matches a field the case-insensitive
// way encoding/json matches names (found), and the groups of those fields.
func (sh *objShape[T]) folded(key []byte) (groups uint32, found bool) {
	for k := range sh.fields {
		if n := sh.fields[k].name; len(n) == len(key) && bytes.EqualFold(key, []byte(n)) {
			groups |= sh.fields[k].group
			found = true
		}
	}
	return groups, found
}

// array reads an array into v, each element with elem (after whitespace).
// null is the caller's to handle.
func array[T any](s *jscan, v *T, elem func(s *jscan, v *T) bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		s.ws()
		if !elem(s, v) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// whole decodes all of b (nothing but whitespace after the object) with sh.
func whole[T any](b []byte, sh *objShape[T]) (T, bool) {
	var zero T
	return wholeFrom(b, sh, zero)
}

// wholeFrom is whole decoding onto v (its slices' capacity is used).
func wholeFrom[T any](b []byte, sh *objShape[T], v T) (T, bool) {
	// The decoders are called through the table, so what they are given
	// escapes: one allocation for the scanner and the value.
	d := &struct {
		s jscan
		v T
	}{s: jscan{b: b}, v: v}
	_, ok := object(&d.s, &d.v, sh)
	return d.v, ok && d.s.end()
}

// The value decoders of fields: each reads one value as encoding/json
// fills that Go type, and is not sure of a value of another JSON type.

// into reads a value with read into dst; null leaves dst as it is (as
// encoding/json leaves a field that is not a pointer).
func into[V any](s *jscan, dst *V, read func(*jscan) (V, bool)) bool {
	if s.null() {
		return true
	}
	v, ok := read(s)
	if ok {
		*dst = v
	}
	return ok
}

// ptrInto fills a pointer field as encoding/json does: null makes it nil,
// a value is read by dec into a new one.
func ptrInto[V any](s *jscan, dst **V, dec func(*jscan, *V) bool) bool {
	if s.null() {
		*dst = nil
		return true
	}
	v := new(V)
	if !dec(s, v) {
		return false
	}
	*dst = v
	return true
}

// objectsInto fills a slice of objects as encoding/json does: null makes
// it nil, [] an empty slice (not nil), each element read with sh.
func objectsInto[E any](s *jscan, dst *[]E, sh *objShape[E]) bool {
	if s.null() {
		*dst = nil
		return true
	}
	*dst = []E{}
	return array(s, dst, func(s *jscan, dst *[]E) bool {
		*dst = append(*dst, *new(E))
		_, ok := object(s, &(*dst)[len(*dst)-1], sh)
		return ok
	})
}

// strInto, viewInto, boolInto and uintInto are into for the readers of
// this file.
func (s *jscan) strInto(dst *string) bool  { return into(s, dst, (*jscan).strValue) }
func (s *jscan) viewInto(dst *string) bool { return into(s, dst, (*jscan).strView) }
func (s *jscan) boolInto(dst *bool) bool   { return into(s, dst, (*jscan).boolValue) }
func (s *jscan) uintInto(dst *uint64) bool { return into(s, dst, (*jscan).uintValue) }

// intInto reads an int the way encoding/json fills one (an integer literal
// in range); null leaves dst as it is.
func (s *jscan) intInto(dst *int) bool {
	return into(s, dst, func(s *jscan) (int, bool) { v, ok := s.int64Value(); return int(v), ok && int64(int(v)) == v })
}

// int64Value reads an int64 the way encoding/json fills one: an integer
// literal without fraction or exponent, in range.
func (s *jscan) int64Value() (int64, bool) {
	lit, ok := s.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	return v, err == nil
}

// strCheck reads a string or null whose value no one needs.
func (s *jscan) strCheck() bool {
	return into(s, new(struct{}), func(s *jscan) (struct{}, bool) {
		_, _, ok := s.str()
		return struct{}{}, ok
	})
}

// strPtr reads a string into a *string (null: nil) with strView; the
// string header lives in arena when it has room.
func (s *jscan) strPtr(dst **string, arena *strArena) bool {
	if s.null() {
		*dst = nil
		return true
	}
	v, ok := s.strView()
	*dst = arena.ptr(v)
	return ok
}

// boolPtr reads a bool into a *bool (null: nil).
func (s *jscan) boolPtr(dst **bool) bool {
	if s.null() {
		*dst = nil
		return true
	}
	v, ok := s.boolValue()
	*dst = &v
	return ok
}

// rawShared reads any value into a RawMessage sharing the input (capacity
// cut, so an append cannot write into it).
func (s *jscan) rawShared(dst *json.RawMessage) bool {
	v, ok := s.value()
	*dst = v[:len(v):len(v)]
	return ok
}

// rawCopy reads any value into a RawMessage of its own, as encoding/json
// does.
func (s *jscan) rawCopy(dst *json.RawMessage) bool {
	v, ok := s.value()
	*dst = append(json.RawMessage(nil), v...)
	return ok
}

// uintValue reads a uint64 the way encoding/json fills one: an integer
// literal without sign, fraction or exponent, in range.
func (s *jscan) uintValue() (uint64, bool) {
	lit, ok := s.number()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(string(lit), 10, 64)
	return n, err == nil
}

// boolValue reads true or false.
func (s *jscan) boolValue() (bool, bool) {
	switch {
	case s.literal("true"):
		return true, true
	case s.literal("false"):
		return false, true
	}
	return false, false
}

// internKind is a chunk kind, event kind or other string that is
// mostly one of a few constants (one a chunk): the constant when it is one,
// not an allocation each time.
func internKind(b []byte) string {
	for _, k := range knownKinds {
		if k == string(b) {
			return k
		}
	}
	return string(b)
}

var knownKinds = [...]string{string(KindData), string(KindProgress), string(KindTool), string(KindThought), string(KindPreview),
	string(KindPendingApproval), string(KindError), string(KindDone), chunkEventKind}

package stream

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// The result of a long Hermes turn carries the connector aggregate twice
// (output, and the data of a json message part), each with an events
// array holding every provider frame (protocol §8.3): for the 100,000-chunk
// firehose about 100 MB. The verdict needs none of those events; the
// model reads the status, the error, the aggregate's operation, endpoint
// and terminal/truncated flags (model.DecodeResult). reduceResult reads
// the body as a stream and writes a copy without those events arrays, so
// the body is never held whole and the events are never built; what is
// left is decoded as before.
//
// What it accepts: the parts it keeps are validated exactly as
// encoding/json would; the dropped events arrays are skipped by their
// structure only (result_skip.go: strings close, brackets balance and
// match, the array ends), not validated byte by byte, which is what kept
// it at a few hundred MB/s. So every document encoding/json accepts gives
// the same reduced document as before, nothing valid is refused, and
// truncation, an unclosed string, unmatched brackets or anything invalid
// in a kept part is an error; only damage inside a dropped array that
// leaves its structure intact is accepted (the verdict never reads it).

// errTooDeep: nesting beyond what encoding/json accepts.
var errTooDeep = errors.New("JSON nested too deeply")

const maxDepth = 10000

// reduceResult reads one JSON value (a result reply: {"action_result":
// ActionResult}, or the bare ActionResult) from r and returns it without
// the aggregate's events arrays. The rest of r must be white space. r
// may be any reader, e.g. one that caps the bytes read.
func reduceResult(r io.Reader) ([]byte, error) { return reduceResultKeeping(r, false) }

// reduceResultKeeping is reduceResult that keeps output.events when
// keepOutput is set: an action whose store holds no chunk is read from
// them (design §14, model.Action.ReadResultEvents). The message part's
// copy is dropped all the same.
func reduceResultKeeping(r io.Reader, keepOutput bool) ([]byte, error) {
	s := &rscan{r: r, buf: make([]byte, 64<<10), keepOutput: keepOutput}
	s.keep = true
	if err := s.value(0); err != nil {
		return nil, err
	}
	c, err := s.peek()
	if err == io.EOF {
		return s.out, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("invalid character %q after the JSON value", c)
}

// rscan is a validating streaming JSON scanner that copies what it reads
// into out while keep is set (a dropped member's scalar is validated with
// keep off; a dropped array or object goes through skip).
type rscan struct {
	r     io.Reader
	buf   []byte
	i, n  int
	err   error // the reader's error, once it has one
	out   []byte
	keep  bool
	path  []string  // keys from the top, "*" for array elements (kept parts only)
	key   []byte    // str's buffer for a key, number's for a number
	esc   [6]byte   // escape's
	stack skipStack // skip's open brackets
	// keepOutput: output.events is kept (reduceResultKeeping).
	keepOutput bool
}

// fill reads more into buf; it returns false at the end of the input.
func (s *rscan) fill() bool {
	if s.err != nil {
		return false
	}
	for {
		m, err := s.r.Read(s.buf)
		s.i, s.n = 0, m
		if err != nil {
			s.err = err
		}
		if m > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// fail is the error for input that ended early: the reader's own error
// (a transport failure, as a readError), or an unexpected end.
func (s *rscan) fail() error {
	if s.err != nil && s.err != io.EOF {
		return readError{s.err}
	}
	return io.ErrUnexpectedEOF
}

// readError is a failure of the reader, not of the JSON.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

// peek skips white space and returns the next byte without consuming it.
func (s *rscan) peek() (byte, error) {
	for {
		for s.i < s.n {
			switch c := s.buf[s.i]; c {
			case ' ', '\t', '\r', '\n':
				s.i++
			default:
				return c, nil
			}
		}
		if !s.fill() {
			if s.err == io.EOF {
				return 0, io.EOF
			}
			return 0, s.fail()
		}
	}
}

func (s *rscan) emit(b ...byte) {
	if s.keep {
		s.out = append(s.out, b...)
	}
}

// expect consumes the byte c (after white space).
func (s *rscan) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return s.fail()
	}
	if got != c {
		return fmt.Errorf("invalid character %q, want %q", got, c)
	}
	s.i++
	s.emit(c)
	return nil
}

func (s *rscan) value(depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	c, err := s.peek()
	if err != nil {
		return s.fail()
	}
	switch {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return fmt.Errorf("invalid character %q looking for a value", c)
}

func (s *rscan) object(depth int) error {
	if empty, err := s.open('{', '}'); empty || err != nil {
		return err
	}
	written := false
	for {
		c, err := s.peek()
		if err != nil {
			return s.fail()
		}
		if c != '"' {
			return fmt.Errorf("invalid character %q looking for an object key", c)
		}
		// Only kept objects are read member by member (a dropped one is
		// skipped whole), and a key is copied only when its member is kept.
		s.keep = false
		key, err := s.str(true)
		s.keep = true
		if err != nil {
			return err
		}
		name := keyName(key)
		drop := s.dropped(name)
		if !drop {
			if written {
				s.out = append(s.out, ',')
			}
			s.out = append(s.out, key...)
			written = true
		}
		s.keep = !drop
		if err := s.expect(':'); err != nil {
			return err
		}
		s.path = append(s.path, name)
		err = s.member(depth+1, drop)
		s.path = s.path[:len(s.path)-1]
		s.keep = true
		if err != nil {
			return err
		}
		if more, err := s.next('}', false, "an object member"); !more || err != nil {
			return err
		}
	}
}

// member reads a member's value; a dropped array or object is skipped
// by its structure only (result_skip.go), a dropped scalar validated.
func (s *rscan) member(depth int, drop bool) error {
	if drop {
		c, err := s.peek()
		if err != nil {
			return s.fail()
		}
		if c == '[' || c == '{' {
			return s.skip(depth)
		}
	}
	return s.value(depth)
}

func (s *rscan) array(depth int) error {
	if empty, err := s.open('[', ']'); empty || err != nil {
		return err
	}
	s.path = append(s.path, "*")
	defer func() { s.path = s.path[:len(s.path)-1] }()
	for {
		if err := s.value(depth + 1); err != nil {
			return err
		}
		if more, err := s.next(']', true, "an array element"); !more || err != nil {
			return err
		}
	}
}

// open reads the opening bracket of an object or array; empty: the
// closing one follows at once (both are read and copied).
func (s *rscan) open(open, end byte) (empty bool, err error) {
	s.i++
	s.emit(open)
	c, err := s.peek()
	if err != nil {
		return false, s.fail()
	}
	if c != end {
		return false, nil
	}
	s.i++
	s.emit(end)
	return true, nil
}

// next reads what follows a member (what names it for the error): a comma
// (more; copied when comma, an object copies its own) or the closing
// bracket end (copied).
func (s *rscan) next(end byte, comma bool, what string) (more bool, err error) {
	c, err := s.peek()
	if err != nil {
		return false, s.fail()
	}
	s.i++
	switch c {
	case ',':
		if comma {
			s.emit(',')
		}
		return true, nil
	case end:
		s.emit(end)
		return false, nil
	}
	return false, fmt.Errorf("invalid character %q after %s", c, what)
}

// dropped: an events member of the aggregate, where a result has it:
// output.events and message[i].data.events, in a result at the top or
// under action_result.
func (s *rscan) dropped(name string) bool {
	if name != "events" {
		return false
	}
	p := s.path
	if len(p) > 0 && p[0] == "action_result" {
		p = p[1:]
	}
	switch len(p) {
	case 1:
		return p[0] == "output" && !s.keepOutput
	case 3:
		return p[0] == "message" && p[1] == "*" && p[2] == "data"
	}
	return false
}

// keyName is a key literal's text (quotes and escapes resolved).
func keyName(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	var k string
	if json.Unmarshal(lit, &k) != nil {
		return ""
	}
	return k
}

// special marks (in its high bit) the bytes of x that end a plain run of
// string bytes: a quote, a backslash or a control character. Only the
// lowest mark is exact (a borrow may mark a byte above it): the first.
func special(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lo * '"')
	b := x ^ (lo * '\\')
	return ((q-lo)&^q | (b-lo)&^b | (x-lo*0x20)&^x) & hi
}

// str reads a string literal, validating its escapes. With ret it returns
// the literal (quotes included; only for keys, which are short), valid
// until the next call.
func (s *rscan) str(ret bool) ([]byte, error) {
	s.key = s.key[:0]
	start := s.i
	s.i++ // the opening quote
	for {
		// Plain bytes, eight at a time, then straight to the first byte
		// that is not.
		for s.i+8 <= s.n {
			if m := special(binary.LittleEndian.Uint64(s.buf[s.i:])); m != 0 {
				s.i += bits.TrailingZeros64(m) >> 3
				break
			}
			s.i += 8
		}
		if s.i >= s.n {
			s.take(ret, s.buf[start:s.n])
			if !s.fill() {
				return nil, s.fail()
			}
			start = 0
			continue
		}
		c := s.buf[s.i]
		switch {
		case c == '"':
			s.i++
			s.take(ret, s.buf[start:s.i])
			return s.key, nil
		case c < 0x20:
			return nil, fmt.Errorf("invalid control character in a string")
		case c == '\\':
			if s.i+6 <= s.n { // the escape is in the buffer: check it in place
				switch s.buf[s.i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					s.i += 2
					continue
				case 'u':
					if isHexDigit(s.buf[s.i+2]) && isHexDigit(s.buf[s.i+3]) && isHexDigit(s.buf[s.i+4]) && isHexDigit(s.buf[s.i+5]) {
						s.i += 6
						continue
					}
				}
			}
			// An escape that may straddle a refill, or a bad one.
			s.take(ret, s.buf[start:s.i])
			n, err := s.escape()
			if err != nil {
				return nil, err
			}
			s.take(ret, s.esc[:n])
			start = s.i
		default:
			s.i++
		}
	}
}

func (s *rscan) take(ret bool, b []byte) {
	if ret {
		s.key = append(s.key, b...)
	}
	if s.keep {
		s.out = append(s.out, b...)
	}
}

// escape reads one escape sequence at s.i into s.esc.
func (s *rscan) escape() (int, error) {
	n, need := 0, 2
	for n < need {
		if s.i >= s.n && !s.fill() {
			return 0, s.fail()
		}
		c := s.buf[s.i]
		s.esc[n] = c
		s.i++
		n++
		if n == 2 {
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				need = 6
			default:
				return 0, fmt.Errorf("invalid escape \\%c in a string", c)
			}
		}
		if n > 2 && !isHexDigit(c) {
			return 0, fmt.Errorf("invalid \\u escape in a string")
		}
	}
	return n, nil
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *rscan) lit(w string) error {
	for k := 0; k < len(w); k++ {
		if s.i >= s.n && !s.fill() {
			return s.fail()
		}
		if s.buf[s.i] != w[k] {
			return fmt.Errorf("invalid character %q in literal %s", s.buf[s.i], w)
		}
		s.i++
	}
	if s.keep {
		s.out = append(s.out, w...)
	}
	return nil
}

// number reads a number literal as JSON defines it.
func (s *rscan) number() error {
	num := s.key[:0]
	for {
		if s.i >= s.n && !s.fill() {
			if s.err != io.EOF {
				return s.fail()
			}
			break
		}
		c := s.buf[s.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			num = append(num, c)
			s.i++
			continue
		}
		break
	}
	s.key = num[:0]
	if !validNumber(num) {
		return fmt.Errorf("invalid number %q", num)
	}
	s.emit(num...)
	return nil
}

// validNumber: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

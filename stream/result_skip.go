package stream

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// A dropped events array is skipped by its structure only: it is never
// built, and not validated byte by byte (the verdict never reads it).
// What is checked: every string closes (a quote after an odd run of
// backslashes is escaped), brackets balance and match ({ with }, [ with
// ]), nesting stays within maxDepth, a backslash outside a string is
// refused, and the array ends. Numbers, literals, commas, colons, control
// characters and escape letters inside it are not checked. Every valid
// document is still read exactly as before; only damage inside a dropped
// array that leaves its structure intact is accepted.
//
// The bytes go 64 at a time: eight 8-byte words give three 64-bit masks
// (quotes, backslashes, bracket candidates), the escaped bytes come from
// the backslash runs by carry arithmetic, the string interiors from a
// prefix XOR of the unescaped quotes, and only the brackets outside
// strings are visited one by one.

// skipStack: one bit an open bracket ('{' set, '[' clear), as deep as
// maxDepth allows.
type skipStack [maxDepth/64 + 1]uint64

const (
	lo8  = 0x0101010101010101
	hi8  = 0x8080808080808080
	low7 = 0x7f7f7f7f7f7f7f7f
	even = 0x5555555555555555
)

// gather packs the high bits of the eight bytes of m (no other bit set)
// into one byte, byte k's into bit k: byte k's bit 8k+7 times the
// multiplier's bit 7(7-k) lands on bit 56+k, and no other product reaches
// the top byte or collides with another.
func gather(m uint64) uint64 {
	return m * 0x0002040810204081 >> 56
}

// wordMasks: for 8 bytes, one bit a byte: the quotes, the backslashes
// and the bracket candidates, the bytes with the bits 0x59 set and bit 7
// clear: exactly [ ] { } and Y _ y DEL (the caller looks at the byte).
// The high bit of a byte of x^c+0x7f (low seven bits) is clear only when
// the byte equals c; x's own high bit rules the byte out.
func wordMasks(x uint64) (q, bs, br uint64) {
	nx := hi8 &^ x
	xl := x & low7
	q = gather(nx &^ (xl ^ lo8*'"' + low7))
	bs = gather(nx &^ (xl ^ lo8*'\\' + low7))
	br = gather(nx &^ (lo8*0x59&^x + low7))
	return q, bs, br
}

// blockMasks: wordMasks for 64 bytes (unrolled: the shifts are
// constants).
func blockMasks(p *[64]byte) (q, bs, br uint64) {
	q, bs, br = wordMasks(binary.LittleEndian.Uint64(p[0:8]))
	a, b, c := wordMasks(binary.LittleEndian.Uint64(p[8:16]))
	q, bs, br = q|a<<8, bs|b<<8, br|c<<8
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[16:24]))
	q, bs, br = q|a<<16, bs|b<<16, br|c<<16
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[24:32]))
	q, bs, br = q|a<<24, bs|b<<24, br|c<<24
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[32:40]))
	q, bs, br = q|a<<32, bs|b<<32, br|c<<32
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[40:48]))
	q, bs, br = q|a<<40, bs|b<<40, br|c<<40
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[48:56]))
	q, bs, br = q|a<<48, bs|b<<48, br|c<<48
	a, b, c = wordMasks(binary.LittleEndian.Uint64(p[56:64]))
	q, bs, br = q|a<<56, bs|b<<56, br|c<<56
	return q, bs, br
}

// escapedBits: the bytes escaped by the backslashes bs, given whether the
// first is escaped by the block before (carry, 0 or 1); carry is set to
// whether the next block's first byte is. A run of backslashes starting
// on an even bit escapes the odd bits after its start, one starting on an
// odd bit the even ones; adding each odd-started run's first bit to the
// runs clears those runs, which tells the two apart.
func escapedBits(bs uint64, carry *uint64) uint64 {
	bs &^= *carry // an escaped backslash starts nothing
	follows := bs<<1 | *carry
	oddStarts := bs &^ even &^ follows
	evenRuns, c := bits.Add64(oddStarts, bs, 0)
	*carry = c
	return (even ^ evenRuns<<1) & follows
}

// prefixXor: bit k is the parity of the bits 0..k of m.
func prefixXor(m uint64) uint64 {
	m ^= m << 1
	m ^= m << 2
	m ^= m << 4
	m ^= m << 8
	m ^= m << 16
	m ^= m << 32
	return m
}

var errSkipBackslash = fmt.Errorf("invalid character '\\\\' outside a string")

// skip reads the array or object at s.buf[s.i] (its depth is depth) by
// structure only, copying nothing. The bytes go 64 at a time; the tail of
// a read shorter than that goes as a block padded with spaces (which
// change no state), and the state carries across refills.
func (s *rscan) skip(depth int) error {
	st := &s.stack
	open := 0             // brackets open
	var inStr, esc uint64 // in a string (all ones) and whether the next byte is escaped (1)
	var pad [64]byte
	for {
		if s.i >= s.n && !s.fill() {
			return s.fail()
		}
		p, w := s.block(&pad)
		q, bs, br := blockMasks(p)
		escaped := escapedBits(bs, &esc)
		quotes := q &^ escaped
		inside := prefixXor(quotes) ^ inStr
		inStr = uint64(int64(inside) >> 63)
		if w < 64 {
			// The padding is not escaped: whether the next read's first
			// byte is, is the bit after the tail.
			esc = escaped >> w & 1
		}
		// A backslash outside a string is refused, if it comes before
		// the end; past it the masks mean nothing, so only the
		// brackets before it are read.
		m := br &^ inside
		bad := bs &^ inside
		if bad != 0 {
			m &= 1<<bits.TrailingZeros64(bad) - 1
		}
		for ; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m)
			if c := p[k]; c == '[' || c == '{' || c == ']' || c == '}' {
				if closed, err := st.bracket(c, &open, depth); err != nil || closed {
					s.i += k + 1
					return err
				}
			}
		}
		if bad != 0 {
			return errSkipBackslash
		}
		s.i += w
	}
}

// block returns the 64 bytes at s.i, or (fewer left in the buffer) the
// rest padded with spaces in pad, and how many of them are the input's.
func (s *rscan) block(pad *[64]byte) (*[64]byte, int) {
	if s.n-s.i >= 64 {
		return (*[64]byte)(s.buf[s.i:]), 64
	}
	w := copy(pad[:], s.buf[s.i:s.n])
	for k := w; k < len(pad); k++ {
		pad[k] = ' '
	}
	return pad, w
}

// push records the bracket opened at level (1 up): an object or not.
func (st *skipStack) push(level int, object bool) {
	w, b := level>>6, uint(level&63)
	if object {
		st[w] |= 1 << b
	} else {
		st[w] &^= 1 << b
	}
}

// bracket takes the bracket c with open brackets open (at depth depth):
// an opening one is pushed, a closing one must match the last one open.
// closed: it closed the first one (the skipped value ends).
func (st *skipStack) bracket(c byte, open *int, depth int) (closed bool, err error) {
	if c == '[' || c == '{' {
		if *open++; depth+*open > maxDepth {
			return false, errTooDeep
		}
		st.push(*open, c == '{')
		return false, nil
	}
	if err := st.pop(*open, c); err != nil {
		return false, err
	}
	*open--
	return *open == 0, nil
}

// pop checks that c closes the bracket open at level (0: none is).
func (st *skipStack) pop(level int, c byte) error {
	object := st[level>>6]>>uint(level&63)&1 == 1
	if level == 0 || object != (c == '}') {
		return fmt.Errorf("invalid character %q: unmatched bracket", c)
	}
	return nil
}

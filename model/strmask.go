package model

import "math/bits"

// strMasksGo is strMasks byte by byte: the reference the SSE2 version is
// tested against.
func strMasksGo(p *[64]byte) (q, bs, ctl, hi uint64) {
	for k, c := range p {
		bit := uint64(1) << k
		switch {
		case c == '"':
			q |= bit
		case c == '\\':
			bs |= bit
		case c < 0x20:
			ctl |= bit
		case c >= 0x80:
			hi |= bit
		}
	}
	return q, bs, ctl, hi
}

const evenBits = 0x5555555555555555

// escapedBits: the bytes escaped by the backslashes bs, given whether the
// first is escaped by the block before (carry, 0 or 1); carry is set to
// whether the next block's first byte is. A run of backslashes starting
// on an even bit escapes the odd bits after its start, one starting on an
// odd bit the even ones; adding each odd-started run's first bit to the
// runs clears those runs, which tells the two apart. (stream's result
// skip has the same arithmetic; model imports nothing of ours.)
func escapedBits(bs uint64, carry *uint64) uint64 {
	bs &^= *carry // an escaped backslash starts nothing
	follows := bs<<1 | *carry
	oddStarts := bs &^ evenBits &^ follows
	evenRuns, c := bits.Add64(oddStarts, bs, 0)
	*carry = c
	return (evenBits ^ evenRuns<<1) & follows
}

//go:build amd64 && !purego

package model

// blockStrings: str reads long strings 64 bytes at a time, with masks
// from SSE2 (every amd64 processor has it).
const blockStrings = true

// strMasks gives, one bit a byte of the 64 at p, the quotes, the
// backslashes, the control characters (below 0x20) and the bytes outside
// ASCII. stream's result skip has masks of its own (quotes, backslashes,
// brackets): model imports nothing of ours, so it keeps this one.
//
//go:noescape
func strMasks(p *[64]byte) (q, bs, ctl, hi uint64)

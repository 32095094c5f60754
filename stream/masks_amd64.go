//go:build amd64 && !purego

package stream

// blockMasks gives blockMasksGo's masks for 64 bytes with SSE2, which
// every amd64 processor has: sixteen bytes a comparison, so the masks of
// the result's dropped arrays (about 100 MB for the firehose) cost about
// a fifth of the word-at-a-time version. Its bracket mask is exact ([ ] {
// } only), a subset of blockMasksGo's candidates, which is all the skip
// needs (it looks at each candidate's byte).
//
//go:noescape
func blockMasks(p *[64]byte) (q, bs, br uint64)

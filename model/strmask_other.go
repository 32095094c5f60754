//go:build !amd64 || purego

package model

// blockStrings: without SSE2 masks, str reads strings by words only.
const blockStrings = false

func strMasks(p *[64]byte) (q, bs, ctl, hi uint64) { return strMasksGo(p) }

//go:build !amd64 || purego

package stream

func blockMasks(p *[64]byte) (q, bs, br uint64) { return blockMasksGo(p) }

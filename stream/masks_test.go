package stream

import (
	"math/rand/v2"
	"testing"
)

// blockMasks (SSE2 on amd64) against blockMasksGo: the same quotes and
// backslashes, and bracket candidates that hold every [ ] { } and nothing
// the Go version does not mark, for every byte value at every position
// and for random blocks.
func TestBlockMasks(t *testing.T) {
	check := func(p *[64]byte) {
		t.Helper()
		q, bs, br := blockMasks(p)
		gq, gbs, gbr := blockMasksGo(p)
		var want uint64
		for k, c := range p {
			if c == '[' || c == ']' || c == '{' || c == '}' {
				want |= 1 << k
			}
		}
		if q != gq || bs != gbs || want&^br != 0 || br&^gbr != 0 {
			t.Fatalf("%q: q %x/%x bs %x/%x br %x (want %x, candidates %x)", p[:], q, gq, bs, gbs, br, want, gbr)
		}
	}
	var p [64]byte
	for c := range 256 {
		for k := range 64 {
			for i := range p {
				p[i] = 'a'
			}
			p[k] = byte(c)
			check(&p)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte(`"\[]{}aY_y` + "\x7f\xff\xdb\xdd\xfb\xfd\x00 ")
	for range 20000 {
		for i := range p {
			p[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		check(&p)
	}
}

func BenchmarkBlockMasks(b *testing.B) {
	var p [64]byte
	for i := range p {
		p[i] = `{"a":"\"b"}`[i%11]
	}
	b.SetBytes(64)
	b.Run("sse2", func(b *testing.B) {
		for b.Loop() {
			blockMasks(&p)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			blockMasksGo(&p)
		}
	})
}

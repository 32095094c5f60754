package stream

import (
	"math/rand/v2"
	"testing"
)

// blockMasks against the bytes: the quotes and backslashes exactly, and
// bracket candidates that hold every [ ] { } and only bytes with the bits
// 0x59 set and bit 7 clear, for every byte value at every position and
// for random blocks.
func TestBlockMasks(t *testing.T) {
	t.Parallel()
	check := func(p *[64]byte) {
		t.Helper()
		q, bs, br := blockMasks(p)
		var wq, wbs, brackets, candidates uint64
		for k, c := range p {
			bit := uint64(1) << k
			switch c {
			case '"':
				wq |= bit
			case '\\':
				wbs |= bit
			case '[', ']', '{', '}':
				brackets |= bit
			}
			if c&0x59 == 0x59 && c < 0x80 {
				candidates |= bit
			}
		}
		if q != wq || bs != wbs || brackets&^br != 0 || br&^candidates != 0 {
			t.Fatalf("%q: q %x/%x bs %x/%x br %x (brackets %x, candidates %x)", p[:], q, wq, bs, wbs, br, brackets, candidates)
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
	for b.Loop() {
		blockMasks(&p)
	}
}

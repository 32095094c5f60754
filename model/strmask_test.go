package model

import (
	"math/rand/v2"
	"testing"
)

// TestStrMasks: the SSE2 masks (on amd64) are the byte-by-byte ones, for
// every byte value at every position and for random blocks.
func TestStrMasks(t *testing.T) {
	check := func(p *[64]byte) {
		t.Helper()
		q, bs, ctl, hi := strMasks(p)
		wq, wbs, wctl, whi := strMasksGo(p)
		if q != wq || bs != wbs || ctl != wctl || hi != whi {
			t.Fatalf("%q: %x %x %x %x, want %x %x %x %x", p[:], q, bs, ctl, hi, wq, wbs, wctl, whi)
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
	rnd := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		for i := range p {
			p[i] = byte(rnd.IntN(256))
		}
		check(&p)
	}
}

// TestStrBlocksAsWords: str (in blocks from its first escape, where 64
// bytes are left) reads every string as the word-at-a-time reading does:
// the same content, plainness, end and refusal, for strings dense in
// escapes, quotes, backslash runs, \u escapes good and bad, control
// characters and bytes outside ASCII, at every offset from the end of the
// buffer.
func TestStrBlocksAsWords(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`a`, `bc`, `\"`, `\\`, `\\\\`, `\\\"`, `\/`, `\n`, `\u00e9`, `\u12`, `\uZZZZ`, `\x`, `\`, `"`,
		"\x01", "\x1f", "\xc3\xa9", "\xff", `0123456789abcdef`, `token 000004 `, `\u`, `\ud83d\ude00`}
	for n := range 30000 {
		var b []byte
		b = append(b, '"')
		for range rnd.IntN(40) {
			b = append(b, pieces[rnd.IntN(len(pieces))]...)
		}
		if rnd.IntN(4) > 0 {
			b = append(b, '"')
		}
		for range rnd.IntN(100) { // what follows the string in the buffer
			b = append(b, ",\"x\":1}"[rnd.IntN(7)])
		}
		words := jscan{b: b}
		wl, wp, wok := words.strWords(1, 1, true, false)
		blocks := jscan{b: b}
		bl, bp, bok := blocks.str()
		if wok != bok || wok && (string(wl) != string(bl) || wp != bp || words.i != blocks.i) {
			t.Fatalf("case %d %q:\nwords  %q %v %v end %d\nblocks %q %v %v end %d", n, b, wl, wp, wok, words.i, bl, bp, bok, blocks.i)
		}
	}
}

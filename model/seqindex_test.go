package model

import (
	"math/rand/v2"
	"testing"
)

// TestSeqIndexAgreesWithAMap: whatever the order and spread of the
// sequences (ascending, descending, hostile ones far away, around the
// slice's edge), the index answers as a map would, and keeps far
// sequences out of its slice.
func TestSeqIndexAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	orders := map[string]func(i int) uint64{
		"ascending":  func(i int) uint64 { return uint64(i) },
		"descending": func(i int) uint64 { return uint64(20000 - i) },
		"far":        func(i int) uint64 { return 1<<60 + uint64(i)*7 },
		"mixed": func(i int) uint64 {
			switch i % 3 {
			case 0:
				return uint64(r.IntN(3 * denseSlack))
			case 1:
				return r.Uint64()
			}
			return uint64(i)
		},
	}
	for name, seq := range orders {
		var x seqIndex[int]
		ref := map[uint64]int{}
		for i := range 20000 {
			s := seq(i)
			if _, ok := ref[s]; ok {
				continue
			}
			ref[s] = i + 1
			x.put(s, i+1)
		}
		for s, v := range ref {
			if got, ok := x.get(s); !ok || got != v {
				t.Fatalf("%s: get(%d) = %d %v, want %d", name, s, got, ok, v)
			}
		}
		for range 2000 {
			s := uint64(r.IntN(len(x.dense) + 2*denseSlack))
			if r.IntN(2) == 0 {
				s = r.Uint64()
			}
			got, ok := x.get(s)
			want, wantOK := ref[s]
			if ok != wantOK || got != want {
				t.Fatalf("%s: get(%d) = %d %v, want %d %v", name, s, got, ok, want, wantOK)
			}
		}
		if x.n != len(ref) || len(x.dense) > 2*len(ref)+denseSlack+1 {
			t.Fatalf("%s: %d held (want %d), slice of %d", name, x.n, len(ref), len(x.dense))
		}
		if name == "far" && len(x.dense) != 0 {
			t.Fatalf("far sequences went to the slice (%d)", len(x.dense))
		}
	}
}

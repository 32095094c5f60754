package model

// seqIndex maps chunk sequences to values. aipd numbers an action's chunks
// 0, 1, 2, …, so while sequences stay near the count the values live in a
// slice indexed by sequence (a firehose's 100,000 map lookups and inserts
// were half of its chunk ingestion); a sequence far beyond (a hostile
// 2^60) goes to a map, so it costs one entry, not a huge slice. The zero
// value of V means "none" and is never stored.
type seqIndex[V comparable] struct {
	dense  []V
	sparse map[uint64]V
	n      int // values held
}

// denseSlack is how far beyond twice the values held a sequence may lie
// and still be kept in the slice.
const denseSlack = 4096

func (x *seqIndex[V]) get(seq uint64) (V, bool) {
	var zero V
	if seq < uint64(len(x.dense)) {
		// A sequence stored in the map before the slice grew over it
		// stays there.
		if v := x.dense[seq]; v != zero || x.sparse == nil {
			return v, v != zero
		}
	}
	v, ok := x.sparse[seq]
	return v, ok
}

// put stores v (not zero) for a sequence that has no value yet.
func (x *seqIndex[V]) put(seq uint64, v V) {
	x.n++
	if seq < uint64(len(x.dense)) {
		x.dense[seq] = v
		return
	}
	if seq <= uint64(2*x.n+denseSlack) {
		if seq >= uint64(cap(x.dense)) {
			// Doubled, not the quarter append adds to a large slice: a
			// million sequences in a row cost about twice the final
			// slice, not five times, in allocation and copying.
			nd := make([]V, len(x.dense), max(2*cap(x.dense), int(seq)+1))
			copy(nd, x.dense)
			x.dense = nd
		}
		x.dense = x.dense[:seq+1] // the slots past len were never written: zero
		x.dense[seq] = v
		return
	}
	if x.sparse == nil {
		x.sparse = map[uint64]V{}
	}
	x.sparse[seq] = v
}

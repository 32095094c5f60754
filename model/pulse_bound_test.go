package model

import (
	"strconv"
	"testing"
)

// design §13's bound holds when every action is in the window too: 4,097
// actions streaming, and 4,097 rows settled, at the same moment keep at
// most 4,096 of each (TestPulseBounded spreads them over hours, so the
// window's own forgetting keeps it under the bound there).
func TestPulseBoundedWithinTheWindow(t *testing.T) {
	const bound = 4096 // design §13
	p := NewPulse()
	for i := range bound + 1 {
		p.AddEvents([]Event{chunkEv("", "act_"+strconv.Itoa(i), 0, pt0)}, pt0)
		p.Settle(strconv.Itoa(i), Judged{Verdict: VerdictVerified, SettledAt: pt0}, pt0)
	}
	if len(p.last) > bound || len(p.settled) > bound {
		t.Fatalf("%d streams and %d settled kept, all in the window: over %d", len(p.last), len(p.settled), bound)
	}
}

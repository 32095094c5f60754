package model

import (
	"strings"
	"testing"
	"time"
)

// A daemon's state, queue state or result status outside AIP's words
// (protocol §6.1, §6.2) is shown marked unknown, never as it came: a row
// must not read "verified" because a daemon said so. AIP's own words are
// shown as they are.
func TestCellsMarkWordsOutsideAIP(t *testing.T) {
	now := time.Now()
	id := func(s string) string { return s }
	for _, compact := range []bool{false, true} {
		r := ActionRow{ActionID: "act_1", State: "verified", QueuedState: "partial", ResultStatus: "truncated"}
		c := r.Cells(now, compact, id)
		for _, cell := range []string{c.State, c.Result} {
			if !strings.HasPrefix(cell, "unknown") {
				t.Fatalf("compact %v: a cell %q is not marked unknown", compact, cell)
			}
		}
		for _, verdict := range []string{"verified", "partial", "truncated"} {
			if c.State == verdict || c.Result == verdict || strings.Contains(c.State, "("+verdict+")") || strings.Contains(c.State, " "+verdict+")") {
				t.Fatalf("compact %v: %q reads as the verdict %q", compact, c.State+" | "+c.Result, verdict)
			}
		}
		if !strings.Contains(c.State, "q") {
			t.Fatalf("compact %v: the queue state is gone: %q", compact, c.State)
		}
		r = ActionRow{ActionID: "act_1", State: StateDeadLettered, QueuedState: ResultRequiresHuman, ResultStatus: ResultPendingApproval}
		c = r.Cells(now, compact, id)
		if !strings.HasPrefix(c.State, "dead_lettered (q") || !strings.Contains(c.State, "requires_human)") || c.Result != "pending_approval" {
			t.Fatalf("compact %v: AIP's words changed: %q | %q", compact, c.State, c.Result)
		}
	}
	for _, s := range []string{"unknown", "accepted", "queued", "running", "streaming", "pending_approval", "cancelling", "cancelled", "completed", "failed", "expired", "dead_lettered"} {
		if !KnownState(s) {
			t.Fatalf("%s is a lifecycle state (protocol §6.1)", s)
		}
	}
	if KnownState("verified") || KnownState("Completed") || KnownResultStatus("verified") || KnownQueuedState("streaming") {
		t.Fatal("a word outside AIP's is known")
	}
}

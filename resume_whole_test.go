package main

import (
	"fmt"
	"testing"

	"aipwatch/sim"
)

// A run resumed from a cursor (the command printed on detach, or any
// --cursor) ends on the verdict of the whole action, not of what followed
// the cursor: the tools that ran before it still count (contract §3), and
// the text is all of it. Its verdict object is the one of a run from the
// beginning, cursor and all.
func TestResumeFromACursorJudgesTheWholeAction(t *testing.T) {
	for _, scenario := range []string{"chat-tools", "responses-tools"} {
		t.Run(scenario, func(t *testing.T) {
			srv := startSim(t, scenario, sim.Knobs{Finished: true})
			_, out, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
			whole := lastJSON(t, out)
			var events, chunks int
			if _, err := fmt.Sscanf(whole["cursor"].(string), "aev_cursor_%d_%d", &events, &chunks); err != nil {
				t.Fatalf("cursor %v: %v", whole["cursor"], err)
			}
			mid := fmt.Sprintf("aev_cursor_%d_%d", events/2, chunks/2)
			code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--cursor", mid, srv.ActionID())
			resumed := lastJSON(t, out)
			if code != 0 || !equalJSON(whole, resumed) {
				t.Fatalf("from %s: exit %d %s\nwhole:   %v\nresumed: %v", mid, code, errOut, whole, resumed)
			}
			if whole["unconfirmed_tool_effects"].(float64) == 0 {
				t.Fatalf("the scenario ran no tools: %v", whole)
			}
		})
	}
}

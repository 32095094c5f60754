package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"aipwatch/sim"
)

// A run resumed from a cursor (the command printed on detach, or any
// --cursor) ends on the verdict of the whole action, not of what followed
// the cursor: the tools that ran before it still count (design §3), and
// the text is all of it. Its verdict object is the one of a run from the
// beginning, cursor and all.
func TestResumeFromACursorJudgesTheWholeAction(t *testing.T) {
	t.Parallel()
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
			// The lines agree with the verdict: the text deltas join to its
			// text (none cut, none repeated), and plain prints what a run
			// from the beginning prints, with no anomaly of a partial view.
			joined := ""
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var obj map[string]any
				if json.Unmarshal([]byte(l), &obj) == nil && obj["type"] == "text" {
					joined += obj["delta"].(string)
				}
			}
			if !strings.Contains(joined, strings.TrimSpace(whole["text"].(string))[:20]) || len(joined) < len(whole["text"].(string)) {
				t.Fatalf("the text deltas do not add up to the verdict's text:\n%q\n%q", joined, whole["text"])
			}
			_, full, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", srv.ActionID())
			_, resumedPlain, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", "--cursor", mid, srv.ActionID())
			if resumedPlain != full || strings.Contains(resumedPlain, "anomaly") {
				t.Fatalf("plain from %s:\n%s\nfrom the beginning:\n%s", mid, resumedPlain, full)
			}
		})
	}
}

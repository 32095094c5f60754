package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// design §7: a journal entry the daemon does not list is added at the end
// only to the whole unfiltered list; under any filter (--state,
// --capability, --since) it cannot be said to match, and is left out.
// Unfiltered, it is added (the control).
func TestListEveryFilterLeavesOutJournalOnlyRows(t *testing.T) {
	t.Parallel()
	f, getenv := fleetWithJournal(t, func(url string) string {
		return `{"kind":"submit","action_id":"act_mine_sync","base_url":"` + url + `"}` + "\n" +
			`{"kind":"submit","action_id":"act_dead","base_url":"` + url + `"}` + "\n"
	})
	code, out, errOut := runWith(getenv, "ls", "--url", f.URL(), "--output", "jsonl")
	if code != 0 || !strings.Contains(out, `"act_mine_sync"`) {
		t.Fatalf("unfiltered: exit %d, the journal's unlisted action missing\n%s\n%s", code, out, errOut)
	}
	capability := ""
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			ActionID     string `json:"action_id"`
			CapabilityID string `json:"capability_id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err == nil && r.ActionID == "act_dead" {
			capability = r.CapabilityID
		}
	}
	if capability == "" {
		t.Fatalf("act_dead listed with no capability:\n%s", out)
	}
	for _, filter := range [][]string{{"--state", "dead_lettered"}, {"--capability", capability}, {"--since", "24h"}} {
		code, out, errOut := runWith(getenv, append([]string{"ls", "--url", f.URL(), "--output", "jsonl"}, filter...)...)
		if code != 0 || !strings.Contains(out, `"act_dead"`) || strings.Contains(out, "act_mine_sync") {
			t.Errorf("%v: exit %d, want act_dead listed and the journal's unlisted action left out\n%s\n%s", filter, code, out, errOut)
		}
	}
}

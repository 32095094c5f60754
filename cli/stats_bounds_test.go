package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"aipwatch/sim"
)

// stats costs what ls costs (design §13): without --limit or --since it
// reads the most recent 100 actions, as ls lists them, never more of a
// long history; each of those is judged.
func TestStatsReadsTheMostRecentHundredByDefault(t *testing.T) {
	t.Parallel()
	u := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 130}},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_sync"}}).URL()
	code, out, errOut := runCLI(t, "stats", "--url", u, "--output", "jsonl")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errOut)
	}
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			Actions int `json:"actions"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		total += s.Actions
	}
	if total != 100 {
		t.Fatalf("stats counted %d actions of a history of 130, want the most recent 100 (design §13)\n%s", total, out)
	}
}

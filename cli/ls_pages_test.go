package cli

import (
	"strings"
	"testing"

	"aipwatch/sim"
)

// A daemon or proxy that returns 2 rows a page whatever the limit (within
// protocol §2.1): ls prints every row, newest first, as it does with whole
// pages, and exits 0; where the tail cannot be read whole (those short
// pages' cursors go backwards) it prints no list as if whole: it exits
// non-zero and says why.
func TestListShortPages(t *testing.T) {
	t.Parallel()
	done := sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_newest"}}
	whole := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 6}}, done)
	short := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 6}, ListPageRows: 2}, done)
	want, got := lsRows(t, "--url", whole.URL()), lsRows(t, "--url", short.URL())
	if len(want) < 7 || len(got) != len(want) {
		t.Fatalf("%d rows in pages of 2, %d in whole pages", len(got), len(want))
	}
	for i := range want {
		if got[i]["action_id"] != want[i]["action_id"] {
			t.Fatalf("row %d: %v, want %v", i, got[i]["action_id"], want[i]["action_id"])
		}
	}
	if got := lsRows(t, "--url", short.URL(), "--limit", "3"); len(got) != 3 || got[0]["action_id"] != want[0]["action_id"] || got[2]["action_id"] != want[2]["action_id"] {
		t.Fatalf("--limit 3: %v", got)
	}
	bad := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 6}, ListPageRows: 2, ListCursorsBackwards: true}, done)
	code, out, errOut := runCLI(t, "ls", "--url", bad.URL())
	if code == 0 || !strings.Contains(errOut, "could not be read") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

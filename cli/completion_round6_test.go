package cli

import (
	"strings"
	"testing"

	"aipwatch/sim"
)

// design §11: completion offers action IDs only (act_…): a daemon that lists
// an "action" named like a word of the command line (-rf, evilword) puts
// nothing of it on the user's line.
func TestCompletionOffersOnlyActionIDs(t *testing.T) {
	t.Parallel()
	members := []sim.Member{{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_good_01"}}}
	for _, id := range []string{"evilword_1", "-rf", "xact_2"} {
		members = append(members, sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: id}})
	}
	f := startFleet(t, sim.FleetKnobs{}, members...)
	getenv, _ := stateEnv(t)
	raw := completeRaw(t, getenv, "--url", f.URL(), "")
	words := strings.Split(strings.TrimSuffix(raw, "\n"), "\n")
	if !has(words, "act_good_01") {
		t.Fatalf("the action ID not offered: %q", raw)
	}
	for _, w := range words {
		if word, _, _ := strings.Cut(w, "\t"); word == "evilword_1" || word == "-rf" || word == "xact_2" {
			t.Errorf("offered %q, not an action ID", word)
		}
	}
}

package stream

import (
	"fmt"
	"slices"
	"testing"

	"aipwatch/model"
	"aipwatch/sim"
)

// design §7: a listing judges the settled rows of each batch it prints
// (a live row keeps no verdict), and counts the rows judged and to judge
// over every batch of the listing, one call at a time.
func TestListingJudgeRowsCountsOverBatches(t *testing.T) {
	t.Parallel()
	f, err := sim.NewFleet(sim.FleetKnobs{},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_a"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_b"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_c"}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 0.01, ActionID: "act_live"}},
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	l := NewJudge(Config{BaseURL: f.URL()}, JudgeOptions{}).NewListing(0)
	defer l.Close()
	var calls []string
	each := func(r *model.ActionRow, jg Judgement, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %s %d/%d", r.ActionID, jg.Word, done, total)) // one at a time: -race says so
	}
	first := []model.ActionRow{{ActionID: "act_a", State: "completed"}, {ActionID: "act_live", State: "running"}, {ActionID: "act_b", State: "completed"}}
	l.JudgeRows(first, each)
	if first[0].Verdict != "failed" || first[1].Verdict != "" || first[2].Verdict != "failed" {
		t.Fatalf("verdicts %q %q %q", first[0].Verdict, first[1].Verdict, first[2].Verdict)
	}
	second := []model.ActionRow{{ActionID: "act_c", State: "completed"}}
	l.JudgeRows(second, each)
	slices.Sort(calls[:2]) // the first batch's two are judged at once
	want := []string{"act_a failed 1/2", "act_b failed 2/2", "act_c failed 3/3"}
	if !slices.Equal(calls, want) && !slices.Equal(calls, []string{"act_a failed 2/2", "act_b failed 1/2", "act_c failed 3/3"}) {
		t.Fatalf("calls %q, want %q (either order within the first batch)", calls, want)
	}
	l.JudgeRows([]model.ActionRow{{ActionID: "act_live", State: "running"}}, nil) // no each, nothing settled: nothing to do
}

package output

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
)

// startFleet serves members on a simulated daemon for the test's life.
func startFleet(t *testing.T, members ...sim.Member) *sim.Fleet {
	t.Helper()
	f, err := sim.NewFleet(sim.FleetKnobs{}, members...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func listClient(t *testing.T, url string) *stream.Client {
	t.Helper()
	c, err := stream.NewDaemon(stream.Config{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// listFleet is a daemon of two settled actions, listed newest first.
func listFleet(t *testing.T) *sim.Fleet {
	return startFleet(t,
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_a"}},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_dead"}},
	)
}

func ids(rows []model.ActionRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ActionID)
	}
	return out
}

// design §7: the journal's actions the daemon lists are marked; one it
// does not list is added at the end, marked, only when the whole
// unfiltered list was read; every row carries the context read.
func TestListRowsMarksTheJournal(t *testing.T) {
	t.Parallel()
	f := listFleet(t)
	c := listClient(t, f.URL())
	var all rowSink
	notes, err := ListRows(context.Background(), c, ListQuery{Context: "east"}, []string{"act_a", "act_gone"}, &all, nil)
	if err != nil || len(notes) != 0 {
		t.Fatalf("notes %v, err %v", notes, err)
	}
	if got := ids(all); len(got) != 3 || got[2] != "act_gone" || !slices.Contains(got, "act_a") || !slices.Contains(got, "act_dead") {
		t.Fatalf("rows %v, want both listed and act_gone last", got)
	}
	for _, r := range all {
		if r.Journal != (r.ActionID != "act_dead") || r.Context != "east" {
			t.Errorf("%s: journal %v, context %q", r.ActionID, r.Journal, r.Context)
		}
	}
	var filtered rowSink
	if _, err := ListRows(context.Background(), c, ListQuery{States: []string{"dead_lettered"}}, []string{"act_gone"}, &filtered, nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(filtered); !slices.Equal(got, []string{"act_dead"}) {
		t.Fatalf("filtered rows %v, want [act_dead] and no journal-only row", got)
	}
	var one rowSink
	if _, err := ListRows(context.Background(), c, ListQuery{Limit: 1}, []string{"act_gone"}, &one, nil); err != nil {
		t.Fatal(err)
	}
	if len(one) != 1 || one[0].ActionID == "act_gone" {
		t.Fatalf("--limit 1: %v", ids(one))
	}
}

// design §7, §13: with a judge, each batch is judged before it is
// written, and only the rows judged one of Keep are.
func TestListRowsKeepsTheVerdictsAsked(t *testing.T) {
	t.Parallel()
	f := startFleet(t,
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_a"}},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_ok"}},
	)
	c := listClient(t, f.URL())
	rj := &RowJudge{Listing: stream.NewJudge(stream.Config{BaseURL: f.URL()}, stream.JudgeOptions{}).NewListing(0), Stderr: &bytes.Buffer{}}
	var kept rowSink
	_, err := ListRows(context.Background(), c, ListQuery{Keep: []string{model.VerdictFailed}}, nil, &kept, rj)
	rj.End()
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 1 || kept[0].ActionID != "act_a" || kept[0].Verdict != model.VerdictFailed {
		t.Fatalf("kept %+v, want act_a judged failed alone", kept)
	}
}

// design §9: across contexts, a daemon not read is a line on stderr and a
// row of its own, counted failed; the others are listed all the same,
// merged newest first with a bound (--limit) and one after the other
// without (--all).
func TestListContextsKeepsTheUnreachable(t *testing.T) {
	t.Parallel()
	f := listFleet(t)
	for _, limit := range []int{5, 0} {
		sources := []ListSource{
			{Name: "down", Err: errors.New("token file unreadable")},
			{Name: "east", Host: "east:1", Client: listClient(t, f.URL())},
		}
		var stderr bytes.Buffer
		var rows rowSink
		failed, err := ListContexts(ListQuery{Limit: limit}, sources, &stderr, &rows)
		if err != nil || failed != 1 {
			t.Fatalf("limit %d: failed %d, err %v", limit, failed, err)
		}
		if stderr.String() != "aipwatch ls: context down: token file unreadable\n" {
			t.Errorf("limit %d: stderr %q", limit, stderr.String())
		}
		var down, east int
		for _, r := range rows {
			switch {
			case r.Context == "down" && r.Unreachable == "token file unreadable":
				down++
			case r.Context == "east" && r.Unreachable == "":
				east++
			default:
				t.Errorf("limit %d: row %+v", limit, r)
			}
		}
		if down != 1 || east != 2 {
			t.Errorf("limit %d: %d rows of down, %d of east", limit, down, east)
		}
		if limit == 0 && rows[0].Context != "down" { // one daemon after the other, in order
			t.Errorf("--all: first row %+v", rows[0])
		}
	}
}

// design §13: stats judges at most its limit of settled rows, counts the
// rest of the span, and says so on stderr with the --limit that would
// judge them all.
func TestStatsRowsJudgeUpToTheLimit(t *testing.T) {
	t.Parallel()
	f := startFleet(t,
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_a"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_b"}},
	)
	var stderr bytes.Buffer
	rj := &RowJudge{Listing: stream.NewJudge(stream.Config{BaseURL: f.URL()}, stream.JudgeOptions{}).NewListing(0), Stderr: &stderr}
	s := NewStatsRows(1, rj)
	if err := s.Add([]model.ActionRow{{ActionID: "act_a", State: "completed"}, {ActionID: "act_live", State: "running"}, {ActionID: "act_b", State: "completed"}}); err != nil {
		t.Fatal(err)
	}
	rj.End()
	if s.taken != 1 || s.beyond != 1 || s.listed != 3 || len(s.judged) != 1 || s.judged[0].Verdict != model.VerdictFailed {
		t.Fatalf("taken %d, beyond %d, listed %d, judged %+v", s.taken, s.beyond, s.listed, s.judged)
	}
	s.Tell(&stderr, time.Hour, 1)
	if want := "aipwatch stats: the 1 most recent settled actions of the last 1h00m judged; 1 more in it not judged (all of them: --limit 2)\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
	var none strings.Builder
	(&StatsRows{listed: 3, taken: 2}).Tell(&none, 0, 3)
	if !strings.Contains(none.String(), "the settled actions among the 3 most recent rows judged (2); more with --since D") {
		t.Fatalf("without --since: %q", none.String())
	}
	if err := s.Write(&none, true); err != nil || !strings.Contains(none.String(), `"failed":1`) {
		t.Fatalf("figures: %v\n%s", err, none.String())
	}
}

package stream

import (
	"context"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

func historyFleet(t *testing.T, k sim.FleetKnobs, members ...sim.Member) (*sim.Fleet, *Client) {
	t.Helper()
	f, err := sim.NewFleet(k, members...)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	c, err := NewDaemon(Config{BaseURL: u, BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

var liveMembers = []sim.Member{
	{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async"}},
	{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_newest_done"}},
}

// design §7: against 100,000 settled actions a poll reads the live states
// (one request each) and the tail: five requests the first time (the tail
// from its total_size), four when nothing changed, never the history.
func TestPollCostsWhatIsLive(t *testing.T) {
	f, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 100_000}}, liveMembers...)
	p := c.NewPoller(0)
	w, err := p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	first := f.Stats().ListRequests
	if first > 5 {
		t.Fatalf("the first poll made %d list requests, want at most 5", first)
	}
	if len(w.Live) != 1 || w.Live[0].ActionID != "act_live_async" {
		t.Fatalf("live %+v", w.Live)
	}
	rows := w.Recent.Rows
	if len(rows) != DefaultRecentRows || rows[len(rows)-1].ActionID != "act_newest_done" || w.Recent.End != 100_002 || len(w.Notes) != 0 {
		t.Fatalf("tail: %d rows ending %s, end %d, notes %q", len(rows), rows[len(rows)-1].ActionID, w.Recent.End, w.Notes)
	}
	if _, err := p.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.Stats().ListRequests - first; n != 4 {
		t.Fatalf("a steady poll made %d list requests, want 4 (3 live states, 1 tail)", n)
	}
}

// A total_size that lies (past the last row) is not believed: the end is
// found by bisection, in a bounded number of requests, and said.
func TestReadTailTotalSizeLies(t *testing.T) {
	f, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 5000}, TotalSizeSkew: 100_000}, liveMembers...)
	tl, err := c.ReadTail(context.Background(), ListQuery{}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Rows) != 100 || tl.Rows[99].ActionID != "act_newest_done" || tl.End != 5002 || !strings.Contains(tl.Note, "total_size (105002) is past its last row (5002)") {
		t.Fatalf("%d rows, end %d, note %q", len(tl.Rows), tl.End, tl.Note)
	}
	if n := f.Stats().ListRequests; n > 25 {
		t.Fatalf("%d requests", n)
	}
	// From the end found, the next read is one request.
	before := f.Stats().ListRequests
	if tl, err = c.ReadTail(context.Background(), ListQuery{}, 100, tl.End); err != nil || len(tl.Rows) != 100 {
		t.Fatalf("%v %d", err, len(tl.Rows))
	}
	if n := f.Stats().ListRequests - before; n != 1 {
		t.Fatalf("%d requests from a known end", n)
	}
}

// Cursors that go backwards: the tail trusts total_size and does not need
// them; a state read whole stops at the first one and says so.
func TestListCursorsBackwards(t *testing.T) {
	t.Parallel()
	_, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 3000}, ListCursorsBackwards: true}, liveMembers...)
	tl, err := c.ReadTail(context.Background(), ListQuery{}, 100, 0)
	if err != nil || len(tl.Rows) != 100 || tl.Rows[99].ActionID != "act_newest_done" {
		t.Fatalf("%v %+v", err, tl)
	}
	rows, note, err := c.ReadState(context.Background(), ListQuery{State: "completed"})
	if err != nil || len(rows) != 1000 || !strings.Contains(note, "cursors go backwards") {
		t.Fatalf("%v: %d rows, note %q", err, len(rows), note)
	}
}

// Newest walks newest first, one page in memory per state, merging states
// by updated_at, each row once.
func TestNewestMergesStatesNewestFirst(t *testing.T) {
	t.Parallel()
	_, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 2500}}, liveMembers...)
	n := c.NewNewest([]string{"failed", "cancelled", "completed"}, "", 300)
	seen := map[string]bool{}
	var last time.Time
	count := 0
	for {
		row, ok, err := n.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		at := updatedAt(&row)
		if count > 0 && at.After(last) {
			t.Fatalf("row %d (%s) is newer than the one before", count, row.ActionID)
		}
		if seen[row.ActionID] {
			t.Fatalf("%s twice", row.ActionID)
		}
		if row.State != "failed" && row.State != "cancelled" && row.State != "completed" {
			t.Fatalf("state %s", row.State)
		}
		seen[row.ActionID] = true
		last = at
		count++
	}
	// 2500 history actions less the dead-lettered (1 in 20), and the
	// completed member.
	if count != 2500-125+1 {
		t.Fatalf("%d rows", count)
	}
	if len(n.walkers[0].buf) > 300 || len(n.walkers[2].buf) > 300 {
		t.Fatal("more than a page held")
	}
}

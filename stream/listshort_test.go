package stream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"aipwatch/sim"
)

// newestIDs walks n to its end and returns the IDs, newest first.
func newestIDs(t *testing.T, n *Newest) []string {
	t.Helper()
	var ids []string
	for {
		row, ok, err := n.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return ids
		}
		ids = append(ids, row.ActionID)
	}
}

// A daemon (or a proxy) that returns fewer rows a page than asked is within
// protocol §2.1: the cursor says where the next page begins. The tail is
// read on by the cursors to the list's end, whatever the page size: the
// newest rows, each once, in order, with no note, in a bounded number of
// requests.
func TestReadTailShortPages(t *testing.T) {
	t.Parallel()
	for _, rows := range []int{1, 2, 3, 7} {
		t.Run(fmt.Sprint("rows=", rows), func(t *testing.T) {
			f, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 5}, ListPageRows: rows}, liveMembers...)
			_, whole := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 5}}, liveMembers...)
			want := newestIDs(t, whole.NewNewest(nil, "", 100))
			if len(want) < 6 {
				t.Fatalf("the fleet lists %d rows", len(want))
			}
			tl, err := c.ReadTail(context.Background(), ListQuery{}, 100, 0)
			if err != nil || tl.Partial || tl.Note != "" || len(tl.Rows) != len(want) || tl.Offset != 0 || tl.End != len(want) {
				t.Fatalf("%v: %d rows of %d, offset %d, end %d, partial %v, note %q", err, len(tl.Rows), len(want), tl.Offset, tl.End, tl.Partial, tl.Note)
			}
			if got := tl.Rows[len(tl.Rows)-1].ActionID; got != want[0] {
				t.Fatalf("the tail ends with %s, want %s", got, want[0])
			}
			// The 3 newest, from a walk of 3 rows a page.
			got := newestIDs(t, c.NewNewest(nil, "", 3))
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("walked %q\nwant   %q", got, want)
			}
			tl, err = c.ReadTail(context.Background(), ListQuery{}, 3, 0)
			if err != nil || tl.Partial || len(tl.Rows) != 3 || tl.Rows[2].ActionID != want[0] || tl.Rows[0].ActionID != want[2] {
				t.Fatalf("%v: the 3 newest %+v", err, tl)
			}
			if n := f.Stats().ListRequests; n > 100 {
				t.Fatalf("%d list requests", n)
			}
		})
	}
}

// The tail of a long list in short pages: total_size names it, so it is
// not walked from the head, and it is the last rows.
func TestReadTailShortPagesLongList(t *testing.T) {
	f, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 5000}, ListPageRows: 7}, liveMembers...)
	tl, err := c.ReadTail(context.Background(), ListQuery{}, 100, 0)
	if err != nil || tl.Partial || len(tl.Rows) != 100 || tl.Rows[99].ActionID != "act_newest_done" || tl.End != 5002 || tl.Offset != 4902 {
		t.Fatalf("%v: %d rows, offset %d, end %d, partial %v, note %q", err, len(tl.Rows), tl.Offset, tl.End, tl.Partial, tl.Note)
	}
	// One page to find total_size, then 100 rows by sevens: 16 requests.
	if n := f.Stats().ListRequests; n > 20 {
		t.Fatalf("%d list requests", n)
	}
}

// When the tail cannot be read whole (short pages whose cursors go
// backwards), a listing stops with an error rather than print rows that
// look like the newest and are not.
func TestNewestPartialTailIsAnError(t *testing.T) {
	_, c := historyFleet(t, sim.FleetKnobs{History: sim.History{Actions: 50}, ListPageRows: 2, ListCursorsBackwards: true}, liveMembers...)
	tl, err := c.ReadTail(context.Background(), ListQuery{}, 10, 0)
	if err != nil || !tl.Partial || !strings.Contains(tl.Note, "cursors go backwards") {
		t.Fatalf("%v: partial %v, note %q", err, tl.Partial, tl.Note)
	}
	_, _, err = c.NewNewest(nil, "", 10).Next(context.Background())
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Error(), "newest rows could not be read") {
		t.Fatalf("the walk's first row: %v", err)
	}
}

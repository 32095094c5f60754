package stream

import (
	"context"
	"strings"
	"time"

	"aipwatch/model"
)

// Newest walks the list from its tail towards its head: the most recently
// updated row first, one page in memory per state (design §7: `ls`, and
// the console's older pages). Several states are merged by updated_at
// (the daemon filters one state per request, §2.1). Offsets shift while
// the set changes (a row that is updated moves to the tail): a row may
// then come twice, which Newest drops when it came within the last two
// pages, or not at all.
type Newest struct {
	c        *Client
	walkers  []*walker
	pageSize int
	recent   map[string]int // IDs given within the last two pages, by generation
	gen      int
	given    int
}

// walker is one state's pages, read backwards.
type walker struct {
	q       ListQuery
	buf     []model.ActionStatus // the current page, oldest first: taken from its end
	next    int                  // rows below this offset are not read yet
	started bool
	note    string
}

// NewNewest returns a walk over the rows in any of states (none = every
// row) and of capability ("" = any), pageSize rows a request (at most
// pageLimit).
func (c *Client) NewNewest(states []string, capability string, pageSize int) *Newest {
	n := &Newest{c: c, pageSize: min(max(pageSize, 1), pageLimit), recent: map[string]int{}}
	if len(states) == 0 {
		states = []string{""}
	}
	for _, st := range states {
		n.walkers = append(n.walkers, &walker{q: ListQuery{State: st, CapabilityID: capability}})
	}
	return n
}

// Next is the next row, newest first; ok is false at the list's head.
func (n *Newest) Next(ctx context.Context) (row model.ActionStatus, ok bool, err error) {
	for {
		var best *walker
		var bestAt time.Time
		for _, w := range n.walkers {
			if err := n.fill(ctx, w); err != nil {
				return row, false, err
			}
			if len(w.buf) == 0 {
				continue
			}
			at := updatedAt(&w.buf[len(w.buf)-1])
			if best == nil || at.After(bestAt) {
				best, bestAt = w, at
			}
		}
		if best == nil {
			return row, false, nil
		}
		row = best.buf[len(best.buf)-1]
		best.buf = best.buf[:len(best.buf)-1]
		if g, seen := n.recent[row.ActionID]; seen && n.gen-g <= 1 {
			continue // a row that moved while the walk went on
		}
		n.remember(row.ActionID)
		return row, true, nil
	}
}

// remember keeps the IDs of the last two pages' worth of rows.
func (n *Newest) remember(id string) {
	n.recent[id] = n.gen
	n.given++
	if n.given%n.pageSize == 0 {
		n.gen++
		for k, g := range n.recent {
			if n.gen-g > 1 {
				delete(n.recent, k)
			}
		}
	}
}

// Exhausted reports, without reading more, that every row was given: the
// walk reached the list's head.
func (n *Newest) Exhausted() bool {
	for _, w := range n.walkers {
		if !w.started || len(w.buf) > 0 || w.next > 0 {
			return false
		}
	}
	return true
}

// Notes are the faults the walk met, one per state at most.
func (n *Newest) Notes() []string {
	var out []string
	for _, w := range n.walkers {
		if w.note != "" {
			out = append(out, w.note)
		}
	}
	return out
}

// fill reads w's next page when its current one is used up.
func (n *Newest) fill(ctx context.Context, w *walker) error {
	if len(w.buf) > 0 {
		return nil
	}
	if !w.started {
		w.started = true
		t, err := n.c.ReadTail(ctx, w.q, n.pageSize, 0)
		if err != nil {
			return err
		}
		if t.Partial {
			// The newest rows are not known: printing these as the list's
			// newest would be a wrong list that looks whole.
			return &Error{Op: "list", Message: "the list's newest rows could not be read: " + t.Note}
		}
		w.buf, w.next, w.note = t.Rows, t.Offset, t.Note
		return nil
	}
	if w.next <= 0 {
		return nil
	}
	off := max(0, w.next-n.pageSize)
	rows, note, err := n.c.ReadRange(ctx, w.q, off, w.next)
	if err != nil {
		return err
	}
	if note != "" {
		return &Error{Op: "list", Message: note}
	}
	w.buf, w.next = rows, off
	if len(rows) == 0 {
		w.next = 0 // the list shrank under the walk: it ends here
	}
	return nil
}

// updatedAt reads a row's updated_at; one that does not parse sorts last.
func updatedAt(st *model.ActionStatus) time.Time {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(st.UpdatedAt))
	if err != nil {
		return time.Time{}
	}
	return t
}

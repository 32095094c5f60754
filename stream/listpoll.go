package stream

import (
	"context"

	"aipwatch/model"
)

// DefaultRecentRows is how many of the most recently updated rows a poll
// reads from the list's tail.
const DefaultRecentRows = 100

// Poller reads the list the way the console polls it (design §7): each
// Poll reads the live states whole, one request each while they are few,
// and the list's tail from where the last poll found its end, one request
// while nothing settled (two when the end moved). Its cost follows what is
// live, not the daemon's history. Poll is used by one goroutine at a time;
// the Client's other reads (ListAt, FollowGlobal) come with it.
type Poller struct {
	*Client
	recentRows int
	end        int  // where the last tail read found the list's end
	totalPast  bool // a read found total_size past the last row: trust it no more
}

// NewPoller returns a Poller reading recentRows rows of the tail
// (0 = DefaultRecentRows).
func (c *Client) NewPoller(recentRows int) *Poller {
	if recentRows <= 0 {
		recentRows = DefaultRecentRows
	}
	return &Poller{Client: c, recentRows: min(recentRows, pageLimit)}
}

// Window is one poll's read.
type Window struct {
	Live   []model.ActionStatus // every row in a live state
	Recent Tail                 // the list's tail
	Notes  []string             // faults met (total_size past the end, cursors backwards, …)
}

// Poll reads the live states and the tail.
func (p *Poller) Poll(ctx context.Context) (Window, error) {
	defer p.closeIdle()
	var w Window
	for _, st := range LiveStates {
		rows, note, err := p.ReadState(ctx, ListQuery{State: st})
		if err != nil {
			return w, err
		}
		w.Live = append(w.Live, rows...)
		if note != "" {
			w.Notes = append(w.Notes, note)
		}
	}
	read := p.ReadTail
	if p.totalPast {
		read = p.ReadTailDistrusting
	}
	t, err := read(ctx, ListQuery{}, p.recentRows, p.end)
	if err != nil {
		return w, err
	}
	p.end, p.totalPast = t.End, p.totalPast || t.TotalPast
	w.Recent = t
	switch {
	case t.Note != "":
		w.Notes = append(w.Notes, t.Note)
	case p.totalPast:
		w.Notes = append(w.Notes, "the list's total_size is past its last row: its tail is found by its cursors")
	}
	return w, nil
}

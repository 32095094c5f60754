package ui

import (
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A host of several live views at once (the split view) draws a frame per
// message: were each view's stream batch a message of its own, four panes
// would cost four frames a tick where one pane costs one (design §12: four
// panes stay as smooth as one). A Gather is one listen for the streams of
// all the views it is given (Options.Gather): what they sent in one tick
// comes back as one message, each view's part a ViewMsg of its own, tagged
// with that view's ID as a lone view's listen tags it. The streams hand
// their batches over on one beat (stream's batch timer keeps to the
// process's grid), so the parts of one tick arrive together; the gather
// waits at most gatherHold for the views that are still to come.

// gatherHold bounds how long a gather waits, once one view's messages
// came, for the other views' of the same tick: a delta reaches the screen
// within 50 ms (p99, design §12), of which the stream's batch takes up to
// 33 ms.
const gatherHold = 8 * time.Millisecond

// Gather takes the stream messages of several live views together. Its
// host makes it, passes it in each view's Options, runs Listen once (and
// again after each message of its own: Parts), and closes it with the
// views.
type Gather struct {
	id    ViewID        // the gather's messages name it, as a view's name the view
	ready chan struct{} // a view's runner queued a message (one token for any number)
	done  chan struct{} // Close

	mu    sync.Mutex
	views []gatheredView

	closeOnce sync.Once
}

type gatheredView struct {
	id  ViewID
	run *runner
}

// gathered is a gather's message: each view's part, in the order the views
// were made.
type gathered []ViewMsg

// NewGather is a gather of no view yet, with an ID of its own.
func NewGather() *Gather {
	return &Gather{id: newViewID(), ready: make(chan struct{}, 1), done: make(chan struct{})}
}

// ID names the gather's messages: its host routes a ViewMsg of this ID to
// Parts, as it routes a view's to the view.
func (g *Gather) ID() ViewID { return g.id }

// add takes a view's runner in (newLive, with Options.Gather): its queued
// messages come back through the gather, not through the view's own listen.
func (g *Gather) add(id ViewID, r *runner) {
	g.mu.Lock()
	g.views = append(g.views, gatheredView{id: id, run: r})
	g.mu.Unlock()
	r.ready = g.ready
}

// Close ends the gather: its Listen returns nothing any more.
func (g *Gather) Close() { g.closeOnce.Do(func() { close(g.done) }) }

// Parts are the views' messages in msg when it is the gather's own (its
// ID), each for its host to give to the view it names; ok says it was,
// and then the host runs Listen again (one listen is out at a time, so
// each view's messages keep their order).
func (g *Gather) Parts(msg ViewMsg) (parts []ViewMsg, ok bool) {
	if msg.ID != g.id {
		return nil, false
	}
	p, _ := msg.msg.(gathered)
	return p, true
}

// Listen waits for the next messages of the views: once one view's came,
// until every view still running has some or gatherHold passed, then hands
// over what each has queued, as one message.
func (g *Gather) Listen() tea.Cmd {
	return func() tea.Msg {
		for {
			select {
			case <-g.ready:
			case <-g.done:
				return nil
			}
			g.mu.Lock()
			views := g.views
			g.mu.Unlock()
			if len(views) > 1 && !g.hold(views) {
				return nil
			}
			var parts gathered
			for _, v := range views {
				if batch := v.run.drain(); len(batch) > 0 {
					parts = append(parts, ViewMsg{ID: v.id, msg: batch})
				}
			}
			for _, v := range views {
				if len(v.run.ch) > 0 { // more than one drain takes
					g.wake()
					break
				}
			}
			if len(parts) > 0 {
				return ViewMsg{ID: g.id, msg: parts}
			}
			// The token was for messages an earlier listen already took.
		}
	}
}

// hold waits for every view still running to have a message queued, at
// most gatherHold; false: the gather was closed meanwhile. The tokens it
// takes are for messages the drain after it hands over.
func (g *Gather) hold(views []gatheredView) bool {
	if allQueued(views) {
		return true
	}
	t := time.NewTimer(gatherHold)
	defer t.Stop()
	for {
		select {
		case <-g.ready: // another view's came
			if allQueued(views) {
				return true
			}
		case <-t.C:
			return true
		case <-g.done:
			return false
		}
	}
}

// wake puts the ready token back (a listen after this one finds it).
func (g *Gather) wake() {
	select {
	case g.ready <- struct{}{}:
	default:
	}
}

// allQueued: every view whose backend still runs has a message queued.
func allQueued(views []gatheredView) bool {
	for _, v := range views {
		if len(v.run.ch) == 0 && !v.run.over() {
			return false
		}
	}
	return true
}

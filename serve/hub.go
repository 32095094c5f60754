package serve

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui/console"
)

// The one reader of the daemon (design §15): every session's console
// reads the list, the global log, the judgements and the actions it
// follows through the hub, which reads each once for them all.
//   - The list: a poll younger than the poll period is every session's
//     answer; an older one is read again, once however many ask (the
//     others wait for it). N sessions cost the daemon one console's polls.
//   - The global log: one follow, its messages kept in a bounded feed that
//     each session reads from where it joined (a late joiner gets the
//     recent ones first).
//   - An action: one follow (stream.Client.Run) however many sessions
//     show it, its messages kept while one shows it (and linger after the
//     last leaves): a session that opens it later replays them, and reads
//     nothing of the daemon.
//   - Verdicts: one stream.Judge (cached by action ID, four reads at once)
//     for the server; a review (a notification's) read once for all who
//     ask at the same time.

// Source is the daemon the hub reads, built by the command from its one
// connection (cli/conn.go).
type Source struct {
	// Daemon is the daemon-wide client's poller (the list, its older
	// pages, the global log).
	Daemon console.Daemon
	// Follow is the client of one action (its Run, and its Cancel).
	Follow func(actionID string) stream.Runner
	// Judge judges settled rows (the VERDICT column).
	Judge *stream.Judge
}

// hub reads Source once for every session.
type hub struct {
	src       Source
	ctx       context.Context
	pollEvery time.Duration
	linger    time.Duration
	globalMax int

	// the list
	pollMu   sync.Mutex
	polled   bool
	lastWin  stream.Window
	lastErr  error
	lastAt   time.Time
	inflight *pollCall

	// the global log
	globalMu   sync.Mutex
	global     *feed
	globalRefs int
	globalStop context.CancelFunc

	// the actions followed
	followMu sync.Mutex
	follows  map[string]*followFeed

	// reviews in flight
	reviewMu sync.Mutex
	reviews  map[string]*reviewCall

	counts hubCounts
}

// hubCounts are what the hub asked of the daemon (tests, the benchmark).
type hubCounts struct {
	polls, globals, follows atomic.Int64
}

type pollCall struct {
	done chan struct{}
	w    stream.Window
	err  error
}

// followFeed is one action's shared follow.
type followFeed struct {
	*feed
	id     string
	refs   int
	cancel context.CancelFunc
	timer  *time.Timer
}

type reviewCall struct {
	done chan struct{}
	a    *model.Action
	j    stream.Judgement
}

// The hub's defaults.
const (
	// followLinger is how long an action's follow outlives its last
	// viewer: a session that goes back to the list and opens it again
	// reads nothing of the daemon.
	followLinger = 30 * time.Second
	// globalKept bounds the global log's messages kept for a joiner.
	globalKept = 512
)

func newHub(ctx context.Context, src Source, pollEvery time.Duration) *hub {
	if pollEvery <= 0 {
		pollEvery = console.DefaultPollEvery
	}
	return &hub{src: src, ctx: ctx, pollEvery: pollEvery, linger: followLinger, globalMax: globalKept,
		follows: map[string]*followFeed{}, reviews: map[string]*reviewCall{}}
}

// daemon is the console.Daemon of one session.
func (h *hub) daemon() console.Daemon { return hubDaemon{h} }

type hubDaemon struct{ h *hub }

// Poll answers with the last poll while it is younger than the poll
// period, else with a new one, read once for every session asking.
func (d hubDaemon) Poll(ctx context.Context) (stream.Window, error) {
	h := d.h
	h.pollMu.Lock()
	if h.polled && time.Since(h.lastAt) < h.pollEvery && h.inflight == nil {
		w, err := copyWindow(h.lastWin), h.lastErr
		h.pollMu.Unlock()
		return w, err
	}
	call := h.inflight
	if call == nil {
		call = &pollCall{done: make(chan struct{})}
		h.inflight = call
		go h.poll(call)
	}
	h.pollMu.Unlock()
	select {
	case <-call.done:
		return copyWindow(call.w), call.err
	case <-ctx.Done():
		return stream.Window{}, ctx.Err()
	}
}

// pollTimeout bounds one shared poll (the console bounds its own wait).
const pollTimeout = 30 * time.Second

func (h *hub) poll(call *pollCall) {
	h.counts.polls.Add(1)
	ctx, cancel := context.WithTimeout(h.ctx, pollTimeout)
	call.w, call.err = h.src.Daemon.Poll(ctx)
	cancel()
	h.pollMu.Lock()
	h.polled, h.lastWin, h.lastErr, h.lastAt, h.inflight = true, call.w, call.err, time.Now(), nil
	h.pollMu.Unlock()
	close(call.done)
}

// copyWindow is w with slices of its own: each console keeps what it is
// given.
func copyWindow(w stream.Window) stream.Window {
	w.Live = append([]model.ActionStatus(nil), w.Live...)
	w.Recent.Rows = append([]model.ActionStatus(nil), w.Recent.Rows...)
	w.Notes = append([]string(nil), w.Notes...)
	return w
}

// ListAt reads an older page (a scroll past the end): rare, and read for
// the session that asks.
func (d hubDaemon) ListAt(ctx context.Context, q stream.ListQuery, offset, n int) (stream.ListPage, error) {
	return d.h.src.Daemon.ListAt(ctx, q, offset, n)
}

// FollowGlobal joins the one follow of the global log (started for the
// first session, or again once it ended; stopped when the last leaves).
func (d hubDaemon) FollowGlobal(ctx context.Context, o stream.GlobalOptions, sink stream.Sink) error {
	f := d.h.joinGlobal(o)
	defer d.h.leaveGlobal(f)
	return f.deliver(ctx, sink)
}

func (h *hub) joinGlobal(o stream.GlobalOptions) *feed {
	h.globalMu.Lock()
	defer h.globalMu.Unlock()
	h.globalRefs++
	if h.global != nil {
		h.global.mu.Lock()
		ended := h.global.done
		h.global.mu.Unlock()
		if !ended {
			return h.global
		}
	}
	f := newFeed(h.globalMax)
	ctx, cancel := context.WithCancel(h.ctx)
	h.global, h.globalStop = f, cancel
	h.counts.globals.Add(1)
	go func() {
		err := h.src.Daemon.FollowGlobal(ctx, o, stream.SinkFunc(f.add))
		f.finish(err)
	}()
	return f
}

func (h *hub) leaveGlobal(f *feed) {
	h.globalMu.Lock()
	defer h.globalMu.Unlock()
	h.globalRefs--
	if h.globalRefs == 0 && h.global == f {
		h.globalStop()
		h.global = nil
	}
}

// follow is the runner of one action for a session: its Run reads the
// shared follow; its Cancel is the session's own (session.go wraps it).
func (h *hub) follow(id string) stream.Runner { return hubRunner{h: h, id: id} }

type hubRunner struct {
	h  *hub
	id string
}

// Run joins the action's shared follow and reads it from its start.
func (r hubRunner) Run(ctx context.Context, sink stream.Sink) error {
	f := r.h.joinFollow(r.id)
	defer r.h.leaveFollow(f)
	return f.deliver(ctx, sink)
}

// Cancel sends a cancel on a client of its own (the session's runner
// records it first: session.go).
func (r hubRunner) Cancel(ctx context.Context, reason string) stream.CancelMsg {
	c := r.h.src.Follow(r.id)
	if c == nil {
		return stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "not sent: no client for " + r.id}}
	}
	return c.Cancel(ctx, reason)
}

func (h *hub) joinFollow(id string) *followFeed {
	h.followMu.Lock()
	defer h.followMu.Unlock()
	if f, ok := h.follows[id]; ok {
		f.refs++
		if f.timer != nil {
			f.timer.Stop()
			f.timer = nil
		}
		return f
	}
	ctx, cancel := context.WithCancel(h.ctx)
	f := &followFeed{feed: newFeed(0), id: id, refs: 1, cancel: cancel}
	h.follows[id] = f
	h.counts.follows.Add(1)
	c := h.src.Follow(id)
	if c == nil {
		f.finish(&stream.Error{Op: "follow", Message: "no client for " + id})
		return f
	}
	go func() {
		err := c.Run(ctx, stream.SinkFunc(f.add))
		f.finish(err)
	}()
	return f
}

// leaveFollow drops a viewer; the follow stops linger after the last one
// left (at once when it ended on an error: the next viewer tries again).
func (h *hub) leaveFollow(f *followFeed) {
	h.followMu.Lock()
	defer h.followMu.Unlock()
	f.refs--
	if f.refs > 0 {
		return
	}
	f.mu.Lock()
	failed := f.done && f.err != nil
	f.mu.Unlock()
	if failed || h.linger <= 0 {
		h.dropFollowLocked(f)
		return
	}
	f.timer = time.AfterFunc(h.linger, func() {
		h.followMu.Lock()
		defer h.followMu.Unlock()
		if f.refs == 0 {
			h.dropFollowLocked(f)
		}
	})
}

func (h *hub) dropFollowLocked(f *followFeed) {
	f.cancel()
	if h.follows[f.id] == f {
		delete(h.follows, f.id)
	}
}

// judge is the server's one judge, its reviews read once for all who ask
// at the same time.
func (h *hub) judge() console.Judge {
	if h.src.Judge == nil {
		return nil
	}
	return hubJudge{h}
}

type hubJudge struct{ h *hub }

// Judge reads on the server's context, not the session's: the judge
// reads an ID once for all who ask at the same time, so a session that
// leaves (its context ends) while others wait for the same verdict must
// not cancel the read for them (they would show it unknown and read it
// again). The session waits until its own context ends.
func (j hubJudge) Judge(ctx context.Context, id string) stream.Judgement {
	if jg, ok := j.h.src.Judge.Cached(id); ok {
		return jg
	}
	done := make(chan stream.Judgement, 1)
	go func() { done <- j.h.src.Judge.Judge(j.h.ctx, id) }()
	select {
	case jg := <-done:
		return jg
	case <-ctx.Done():
		return stream.Judgement{ID: id, Word: stream.VerdictUnknown, Err: ctx.Err()}
	}
}

func (j hubJudge) Review(ctx context.Context, id string) (*model.Action, stream.Judgement) {
	h := j.h
	h.reviewMu.Lock()
	call, ok := h.reviews[id]
	if !ok {
		call = &reviewCall{done: make(chan struct{})}
		h.reviews[id] = call
		go func() {
			rctx, cancel := context.WithTimeout(h.ctx, stream.DefaultJudgeTimeout)
			call.a, call.j = h.src.Judge.Review(rctx, id)
			cancel()
			h.reviewMu.Lock()
			delete(h.reviews, id)
			h.reviewMu.Unlock()
			close(call.done)
		}()
	}
	h.reviewMu.Unlock()
	select {
	case <-call.done:
		return call.a, call.j
	case <-ctx.Done():
		return nil, stream.Judgement{ID: id, Word: stream.VerdictUnknown, Err: ctx.Err()}
	}
}

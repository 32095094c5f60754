package stream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"aipwatch/model"
)

// Run is the whole run of design §2: probe the status, follow (or, for an
// action that had already settled, page through it), drain, read the result
// and the final status. Every message goes to sink, in order, from Run's
// goroutine. Run returns nil when the action settled, the *Error it
// reported in an ErrorMsg on a fatal error, or ctx.Err() when ctx ended (no
// DoneMsg then). No goroutine it started outlives it.
func (c *Client) Run(ctx context.Context, sink Sink) error {
	defer c.closeIdle()
	r := newRunner(c, sink)
	defer r.batchTimer.Stop()
	err := r.run(ctx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// runner is the state of one Run.
type runner struct {
	c       *Client
	sink    Sink
	cursor  string // the resume cursor: only ever a cursor or terminal frame's
	attempt int    // follow connections tried so far
	restart bool   // the one restart from the beginning is used up
	bad     int    // undecodable frames / page items so far

	// What aipd has shown of the action (settle.go): whether it has a
	// record, and when the action last made progress.
	unknown   bool      // no record yet (state unknown): the appear and stall rules apply
	appearBy  time.Time // with unknown and nothing seen: give up then (§2 step 1)
	seen      bool      // an event or chunk of the action arrived
	maxSeq    uint64    // highest chunk sequence seen (valid when hasSeq)
	hasSeq    bool
	progress  time.Time // when a new chunk (a higher sequence) last arrived
	unsettled bool      // §2 step 6b decided: the run ends without a result
	// Cursor-free reading (cursorfree.go): aipd refused its own cursors twice.
	cursorFree bool

	pend       BatchMsg // chunks and events not sent yet
	lastFlush  time.Time
	lastLive   time.Time
	batchTimer *time.Timer
	armed      bool
}

func newRunner(c *Client, sink Sink) *runner {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &runner{c: c, sink: sink, cursor: c.cfg.Cursor, batchTimer: t}
}

func (r *runner) send(m Msg) {
	if _, isBatch := m.(BatchMsg); !isBatch {
		r.flush()
	}
	r.sink.Send(m)
}

func (r *runner) run(ctx context.Context) error {
	st, e := r.probe(ctx)
	if e != nil {
		return r.fail(ctx, e)
	}
	r.send(StatusMsg{Status: st})
	if st.State == model.StateUnknown {
		// Not "no such action": a synchronous action has no record until it
		// settles (design §2 step 1). Follow, within the appear timeout.
		r.unknown = true
		r.appearBy = time.Now().Add(r.c.cfg.AppearTimeout)
		r.send(NoRecordMsg{ActionID: r.c.cfg.ActionID, AppearTimeout: r.c.cfg.AppearTimeout})
	}

	if model.TerminalState(st.State) {
		// Review: the action had settled before we attached. Page, no follow.
		r.send(ModeMsg{Review: true})
		// From the beginning, a resume's cursor too (runner.before): in a
		// review, the log is all there is to read.
		if err := r.pages(ctx, ""); err != nil {
			return err
		}
		r.terminal()
	} else {
		r.send(ModeMsg{Review: false})
		if err := r.before(ctx); err != nil {
			return err
		}
		if err := r.follow(ctx); err != nil {
			return err
		}
		if r.unsettled {
			r.send(DoneMsg{})
			return nil
		}
		// aip.stream.terminal describes the action, not "nothing left to
		// read" (protocol §5.4 caveat 1): drain from its cursor.
		if err := r.pages(ctx, r.cursor); err != nil {
			return err
		}
	}
	if err := r.result(ctx); err != nil {
		return err
	}
	st, err := r.finalStatus(ctx)
	if err != nil {
		return err
	}
	r.send(StatusMsg{Status: st, Final: true})
	r.send(DoneMsg{})
	return nil
}

// before reads, when a live run starts from Config.Cursor (a resume), the
// log from its beginning as pages, then the follow goes on from where they
// end (at or after that cursor). What came before a cursor decides the verdict
// too (design §3: the tools that ran, the conflicts, a Responses text
// checked against all its deltas; from a mid-log cursor alone a completed
// Responses turn read incomplete), and read first it reaches the printers
// in order, so the lines and the verdict agree. Pages cost less than the
// follow's frames, and nothing is read twice.
func (r *runner) before(ctx context.Context) error {
	if r.c.cfg.Cursor == "" {
		return nil
	}
	return r.pages(ctx, "")
}

// fail reports a fatal error (ErrorMsg, DoneMsg) and returns it; when ctx
// ended it reports nothing and returns ctx.Err().
func (r *runner) fail(ctx context.Context, e *Error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	r.send(ErrorMsg{Err: e})
	r.send(DoneMsg{})
	return e
}

// useRestart spends the one restart from the beginning (design §2.6).
// When it is spent, aipd refuses the cursors it hands out itself (a
// Postgres-backed daemon always does): the run switches to cursor-free
// reading and says so once; the caller then reads that way.
func (r *runner) useRestart(e *Error) {
	if r.restart {
		if !r.cursorFree {
			r.cursorFree = true
			r.send(CursorFreeMsg{Code: e.Code})
		}
		return
	}
	r.restart = true
	r.cursor = ""
	r.send(RestartMsg{Code: e.Code})
}

// backoff is the wait before try number n (1-based) after failures: from
// BackoffMin doubling to BackoffMax, minus up to a quarter of jitter; at
// least the server's Retry-After hint, never more than BackoffMax.
func (r *runner) backoff(n int, hint time.Duration) time.Duration {
	lo, hi := r.c.cfg.BackoffMin, r.c.cfg.BackoffMax
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	if q := int64(d / 4); q > 0 {
		d -= time.Duration(rand.Int64N(q + 1))
	}
	d = max(d, hint)
	return min(d, hi)
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-retryNow(ctx): // the operator's "retry now" (retrynow.go)
		return true
	}
}

// ---- follow ----

type endKind int

const (
	endTerminal  endKind = iota // aip.stream.terminal
	endCtx                      // ctx ended
	endRetry                    // lost: reconnect with the cursor
	endRestart                  // cursor refused: start again from the beginning
	endFatal                    // stop, report
	endUnsettled                // §2 step 6b: no record, no result, no progress: never settles
)

// stuckLimit is how many healthy follow connections in a row may end
// without moving the cursor before the run catches up with non-follow pages.
const stuckLimit = 3

// MaxReconnectsWithoutProgress bounds the follow connections in a row that
// end without moving the cursor: past it the run ends (exit 1) naming the
// last cause, instead of reconnecting for ever (design §2 step 6).
const MaxReconnectsWithoutProgress = 30

type connEnd struct {
	kind    endKind
	err     *Error
	healthy bool // the connection delivered at least one frame (other than aip.error)
}

// follow connects and reconnects until the terminal frame, a fatal error,
// the end of ctx, or the finding that the action will never settle; once
// aipd refuses its own cursors it reads without them instead.
func (r *runner) follow(ctx context.Context) error {
	failures, stuck, idle := 0, 0, 0
	for {
		if r.cursorFree {
			return r.poll(ctx)
		}
		r.attempt++
		from := r.cursor
		end := r.connection(ctx)
		r.flush()
		switch end.kind {
		case endTerminal, endUnsettled:
			return nil
		case endCtx:
			return ctx.Err()
		case endFatal:
			return r.fail(ctx, end.err)
		case endRestart:
			r.useRestart(end.err)
			failures = 0
		case endRetry:
			// The back-off resets only after a connection that moved the
			// cursor: a server that sends a frame and drops every connection
			// must not be hammered (design §2 step 6).
			if r.cursor != from {
				failures, idle = 0, 0
			} else if idle++; idle >= MaxReconnectsWithoutProgress {
				return r.fail(ctx, r.c.clean(&Error{Op: "follow", Code: end.err.Code,
					Message: fmt.Sprintf("%d reconnects in a row without progress; last: %s", idle, cause(end.err))}))
			}
			failures++
			wait := r.backoff(failures, end.err.retryAfter)
			r.send(ReconnectingMsg{Attempt: r.attempt + 1, Wait: wait, Cause: cause(end.err)})
			if !sleep(ctx, wait) {
				return ctx.Err()
			}
			if end, done := r.check(ctx); done {
				if end.kind == endFatal {
					return r.fail(ctx, end.err)
				}
				return nil
			}
			// Connections that keep ending before a cursor frame (something
			// cuts them shorter than one page) would replay the same frames
			// forever: catch up with JSON pages, then follow from there.
			if !end.healthy || r.cursor != from {
				stuck = 0 // a failed connect is a failure, not a cut page
			} else if stuck++; stuck >= stuckLimit {
				stuck = 0
				if err := r.pages(ctx, r.cursor); err != nil {
					return err
				}
			}
		}
	}
}

// cause is an Error's line without its "follow: " prefix.
func cause(e *Error) string {
	c := *e
	c.Op = ""
	return c.Error()
}

func (r *runner) followURL() string {
	q := url.Values{"include_chunks": {"true"}, "follow": {"true"}, "limit": {strconv.Itoa(pageLimit)}}
	if r.cursor != "" {
		q.Set("cursor", r.cursor)
	}
	return r.c.actionURL("/events", q)
}

// readItem is one frame, or the end of the body, from the reader goroutine.
type readItem struct {
	frame Frame
	err   error
}

// connection is one follow request, read until it ends.
func (r *runner) connection(ctx context.Context) connEnd {
	idle := r.c.cfg.IdleTimeout
	connCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The idle rule covers waiting for the reply headers too.
	var headerIdle atomic.Bool
	hdr := time.AfterFunc(idle, func() { headerIdle.Store(true); cancel() })
	req, err := r.c.newRequest(connCtx, http.MethodGet, r.followURL(), nil)
	if err != nil {
		hdr.Stop()
		return connEnd{kind: endFatal, err: r.c.clean(&Error{Op: "follow", Message: "cannot build the request"})}
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	// The checks of an action without a record run on their own clock from
	// here, the wait for the headers included: a daemon may send them with
	// its first frame, a keep-alive 15 s away (protocol §2.2),
	// and the appear timeout must not wait for it.
	checks := newCheckTimer(r)
	defer checks.stop()
	resp, checked, err := r.awaitReply(ctx, req, cancel, checks)
	if checked != nil {
		hdr.Stop()
		return *checked
	}
	if !hdr.Stop() && err == nil && headerIdle.Load() {
		resp.Body.Close() // the reply came just as the watchdog fired
		return retry(&Error{Op: "follow", Message: "no reply within " + idle.String(), Retryable: true}, false)
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return connEnd{kind: endCtx}
		case headerIdle.Load():
			return retry(&Error{Op: "follow", Message: "no reply within " + idle.String(), Retryable: true}, false)
		}
		return retry(r.c.transportError("follow", err), false)
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		e := r.c.httpError("follow", resp)
		switch {
		case cursorRefused(e.Code):
			return connEnd{kind: endRestart, err: e}
		case e.Retryable:
			return retry(e, false)
		}
		return connEnd{kind: endFatal, err: e}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
			return connEnd{kind: endFatal, err: r.c.clean(&Error{Op: "follow", HTTPStatus: resp.StatusCode,
				Message: "the reply is " + oneLine(ct, 60) + ", not an event stream"})}
		}
	}
	r.send(ConnectedMsg{Attempt: r.attempt, Cursor: r.cursor, Resumed: r.attempt > 1})

	fr := startFrames(connCtx, cancel, resp.Body, idle)
	defer fr.stop()
	healthy := false
	for {
		var batchC <-chan time.Time
		if r.armed {
			batchC = r.batchTimer.C
		}
		select {
		case <-ctx.Done():
			return connEnd{kind: endCtx}
		case <-batchC:
			r.armed = false
			r.flush()
		case <-fr.watchdog.C:
			if fr.idle() {
				return retry(&Error{Op: "follow", Message: "no complete frame for " + idle.String(), Retryable: true}, healthy)
			}
		case <-checks.c():
			r.flush()
			if end, done := r.check(ctx); done {
				return end
			}
			checks.rearm()
		case items := <-fr.items:
			for i := range items {
				it := &items[i]
				if it.err != nil {
					return r.bodyEnd(ctx, it.err, healthy)
				}
				end, done := r.handle(&it.frame)
				checks.update()
				if !done || end.kind == endTerminal {
					healthy = true // an aip.error frame does not count
				}
				if done {
					end.healthy = healthy
					return end
				}
			}
		}
	}
}

// awaitReply sends the follow request and waits for its reply's headers,
// running the checks (checkTimer) while it waits. A non-nil checked is the
// end a check found for the run's following part: the request is then
// cancelled and its reply, if one came meanwhile, closed.
func (r *runner) awaitReply(ctx context.Context, req *http.Request, cancel context.CancelFunc, checks *checkTimer) (
	resp *http.Response, checked *connEnd, err error) {
	type reply struct {
		resp *http.Response
		err  error
	}
	replies := make(chan reply, 1)
	go func() {
		resp, err := r.c.follow.Do(req)
		replies <- reply{resp, err}
	}()
	for {
		select {
		case rep := <-replies:
			return rep.resp, nil, rep.err
		case <-checks.c():
			if end, done := r.check(ctx); done {
				cancel()
				if rep := <-replies; rep.resp != nil {
					rep.resp.Body.Close()
				}
				return nil, &end, nil
			}
			checks.rearm()
		}
	}
}

func retry(e *Error, healthy bool) connEnd {
	return connEnd{kind: endRetry, err: e, healthy: healthy}
}

// bodyEnd classifies the end of a follow body.
func (r *runner) bodyEnd(ctx context.Context, err error, healthy bool) connEnd {
	switch {
	case ctx.Err() != nil:
		return connEnd{kind: endCtx}
	case errors.Is(err, io.EOF):
		return retry(&Error{Op: "follow", Message: "connection closed without a terminal frame", Retryable: true}, healthy)
	case errors.Is(err, errFrameCut):
		return retry(&Error{Op: "follow", Message: errFrameCut.Error(), Retryable: true}, healthy)
	case errors.Is(err, bufio.ErrTooLong):
		return connEnd{kind: endFatal, err: &Error{Op: "follow", Message: "a frame is larger than 16 MiB"}}
	}
	return retry(r.c.transportError("follow", err), healthy)
}

// frameConn is the reading side of one SSE connection: a goroutine that
// splits the body into frames, and the idle watchdog. The idle rule counts
// complete frames (keep-alives included), never bytes: one byte every few
// seconds inside an unfinished frame must not keep a connection alive for
// ever.
type frameConn struct {
	items     chan []readItem // in arrival order; a read's frames together (readFrames)
	watchdog  *time.Timer
	lastFrame atomic.Int64
	limit     time.Duration
	cancel    context.CancelFunc
	body      io.Closer
	wg        sync.WaitGroup
}

// startFrames starts reading body; cancel ends the connection's context.
func startFrames(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, idle time.Duration) *frameConn {
	f := &frameConn{items: make(chan []readItem, 16), watchdog: time.NewTimer(idle), limit: idle, cancel: cancel, body: body}
	f.lastFrame.Store(time.Now().UnixNano())
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		readFrames(ctx, body, &f.lastFrame, f.items)
	}()
	return f
}

// idle reports, when the watchdog fired, whether no complete frame came for
// the whole limit; if one did, it re-arms the watchdog for the rest.
func (f *frameConn) idle() bool {
	since := time.Since(time.Unix(0, f.lastFrame.Load()))
	if since >= f.limit {
		return true
	}
	f.watchdog.Reset(f.limit - since)
	return false
}

// stop ends the connection and waits for the reader goroutine.
func (f *frameConn) stop() {
	f.watchdog.Stop()
	f.cancel()
	f.body.Close()
	f.wg.Wait()
}

// readFrames is the reader goroutine of one connection: it splits the body
// into frames and hands them on until the body ends or ctx is cancelled.
// The frames parsed from what one read brought are handed on together,
// just before the next read (which may wait for the network), so no frame
// waits for more bytes and a fast stream costs one hand-over (a select and
// a wake-up on the other side) a read, not one a frame.
func readFrames(ctx context.Context, body io.Reader, lastFrame *atomic.Int64, out chan<- []readItem) {
	var pending []readItem
	send := func() bool {
		if len(pending) == 0 {
			return true
		}
		select {
		case out <- pending:
			// The next batch is likely the size of this one: sized so, it
			// is not grown from one a frame at a time.
			pending = make([]readItem, 0, min(len(pending), maxHandOver))
			return true
		case <-ctx.Done():
			return false
		}
	}
	fr := newFrameReader(beforeRead{r: body, before: send}, MaxFrameSize)
	for {
		tok, err := fr.next()
		var it readItem
		if err != nil {
			it.err = err
		} else {
			now := fr.arrived()
			lastFrame.Store(now.UnixNano())
			f, ok := parseFrame(tok, now)
			if !ok {
				continue
			}
			it.frame = f
		}
		pending = append(pending, it)
		if err != nil || len(pending) >= maxHandOver {
			if !send() || err != nil {
				return
			}
		}
	}
}

// maxHandOver bounds the frames handed on together.
const maxHandOver = 256

// beforeRead calls before ahead of each read of r; a false from it ends
// the reading (the context is over).
type beforeRead struct {
	r      io.Reader
	before func() bool
}

func (b beforeRead) Read(p []byte) (int, error) {
	if !b.before() {
		return 0, context.Canceled
	}
	return b.r.Read(p)
}

// handle acts on one follow frame; done means the connection ends here.
func (r *runner) handle(f *Frame) (connEnd, bool) {
	r.frame(f)
	r.live(f)
	rt := route(f)
	switch rt.kind {
	case routeChunk:
		r.saw(rt.chunk.Sequence, f.At)
		r.pend.Chunks = append(r.pend.Chunks, rt.chunk)
		r.pend.At = f.At
		if model.Structural(rt.chunk) {
			r.flush()
		} else {
			r.schedule()
		}
	case routeEvent:
		r.sawEvent(f.At)
		r.pend.Events = append(r.pend.Events, rt.event)
		r.pend.At = f.At
		r.schedule()
	case routeCursor:
		r.cursor = rt.cursor
		r.send(CursorMsg{Cursor: rt.cursor})
	case routeTerminal:
		if rt.cursor != "" {
			r.cursor = rt.cursor
		}
		r.send(TerminalMsg{Cursor: r.cursor})
		return connEnd{kind: endTerminal}, true
	case routeError:
		pe := rt.perr
		e := r.c.clean(&Error{Op: "follow", Code: pe.Code, Message: pe.Message, Retryable: retryablePE(pe)})
		if pe.RetryAfterMs > 0 {
			e.retryAfter = time.Duration(pe.RetryAfterMs) * time.Millisecond
		}
		switch {
		case cursorRefused(pe.Code):
			return connEnd{kind: endRestart, err: e}, true
		case strings.HasPrefix(pe.Code, "auth."):
			e.Retryable = false
			return connEnd{kind: endFatal, err: e}, true
		case e.Retryable:
			return connEnd{kind: endRetry, err: e}, true
		}
		return connEnd{kind: endFatal, err: e}, true
	case routeBad:
		r.bad++
		r.send(BadFrameMsg{Event: oneLine(f.Event, 80), ID: oneLine(f.ID, 80), Reason: rt.reason, Count: r.bad})
	}
	return connEnd{}, false
}

// frame passes a frame to the OnFrame hook.
func (r *runner) frame(f *Frame) {
	if r.c.cfg.OnFrame != nil {
		r.c.cfg.OnFrame(*f)
	}
}

// live sends LivenessMsg at most once a second.
func (r *runner) live(f *Frame) {
	if !r.lastLive.IsZero() && f.At.Sub(r.lastLive) < time.Second {
		return
	}
	r.lastLive = f.At
	r.send(LivenessMsg{At: f.At, Keepalive: f.keepalive()})
}

// schedule sends the pending batch now when the last batch is at least one
// BatchInterval old, else arms the batch timer for then, kept to the beat
// (onBeat).
func (r *runner) schedule() {
	now := time.Now()
	iv := r.c.cfg.BatchInterval
	if now.Sub(r.lastFlush) >= iv {
		r.flush()
		return
	}
	if !r.armed {
		r.batchTimer.Reset(max(onBeat(r.lastFlush.Add(iv), iv).Sub(now), 0))
		r.armed = true
	}
}

// beatEpoch is where the process's beats start.
var beatEpoch = time.Now()

// onBeat is the beat nearest t: the process's instants one interval apart.
// Every stream of the process that batches times its batches by them, so
// that several followed at once (the split view's panes) hand theirs over
// together, one message and one frame a tick for all (ui.Gather), instead
// of one each at phases of their own. Nearest, so a batch after an
// off-beat one (the first, a flush before another message) comes between
// half an interval and one and a half after it; then on the beat.
func onBeat(t time.Time, iv time.Duration) time.Time {
	off := t.Sub(beatEpoch) % iv
	if off < iv/2 {
		return t.Add(-off)
	}
	return t.Add(iv - off)
}

// flush sends the pending batch, if any.
func (r *runner) flush() {
	if len(r.pend.Chunks)+len(r.pend.Events) == 0 {
		return
	}
	if r.armed {
		r.batchTimer.Stop()
		r.armed = false
	}
	b := r.pend
	// The next batch is likely as big as this one: room for it up front
	// instead of growing the slice chunk by chunk.
	r.pend = BatchMsg{Chunks: make([]model.StreamChunk, 0, min(len(b.Chunks), 4096))}
	if len(b.Events) > 0 { // aipd's chunk events: one a chunk
		r.pend.Events = make([]model.Event, 0, min(len(b.Events), 4096))
	}
	r.lastFlush = time.Now()
	r.sink.Send(b)
}

// ---- pages, result, final status ----

// pages reads non-follow pages from cursor until one has no events and no
// chunks (review, and the drain after the terminal frame). Once aipd has
// refused its own cursors, it reads every chunk without one instead.
func (r *runner) pages(ctx context.Context, from string) error {
	cur := from
	failures := 0
	visited := map[string]bool{}
	var ahead *pageAhead // the next page, asked for early (pageahead.go)
	defer func() { ahead.stop() }()
	for {
		if r.cursorFree {
			ahead.stop()
			ahead = nil
			return r.readAll(ctx)
		}
		var data []byte
		var e *Error
		if ahead != nil && ahead.cursor == cur {
			data, e = ahead.take()
		} else {
			ahead.stop()
			data, e = r.c.fetchPage(ctx, cur)
		}
		ahead = nil
		var p Page
		if e == nil {
			if next, ok := cursorAhead(data); ok && next != cur && len(data) >= aheadMin {
				ahead = r.c.fetchAhead(ctx, next)
			}
			p, e = r.c.decodePage(data)
		}
		if e != nil {
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case cursorRefused(e.Code):
				r.useRestart(e)
				cur = ""
				continue
			case e.Retryable:
				if failures++; failures >= MaxReconnectsWithoutProgress {
					return r.fail(ctx, r.c.clean(&Error{Op: "page", Code: e.Code,
						Message: fmt.Sprintf("%d failed page reads in a row; last: %s", failures, cause(e))}))
				}
				if !sleep(ctx, r.backoff(failures, e.retryAfter)) {
					return ctx.Err()
				}
				continue
			}
			return r.fail(ctx, e)
		}
		failures = 0
		r.pageFrames(&p)
		if p.Bad > 0 {
			r.bad += p.Bad
			r.send(BadFrameMsg{Reason: fmt.Sprintf("%d undecodable item(s) in an events page", p.Bad), Count: r.bad, Chunks: p.BadChunks})
		}
		empty := len(p.Events)+len(p.Chunks) == 0
		if !empty {
			now := time.Now() // the page's items arrived together
			r.sawEvent(now)
			for _, c := range p.Chunks {
				r.saw(c.Sequence, now)
			}
			r.send(BatchMsg{Chunks: p.Chunks, Events: p.Events, At: now})
		}
		if p.Cursor != "" && p.Cursor != r.cursor {
			r.cursor = p.Cursor
			r.send(CursorMsg{Cursor: p.Cursor})
		}
		if empty || p.Cursor == "" || p.Cursor == cur {
			return nil // done, or a page that does not move on
		}
		// Pages whose cursors go round in a circle never end: stop there.
		visited[cur] = true
		if visited[p.Cursor] {
			return r.fail(ctx, r.c.clean(&Error{Op: "page", Message: "the page cursors go round in a circle (" + oneLine(p.Cursor, 60) + " again)"}))
		}
		cur = p.Cursor
	}
}

// pageFrames passes a page to OnFrame in the follow form (Frame.Page set).
func (r *runner) pageFrames(p *Page) {
	if r.c.cfg.OnFrame == nil {
		return
	}
	now := time.Now()
	for i, raw := range p.rawEvents {
		r.frame(&Frame{At: now, Event: p.Events[i].Kind, ID: p.Events[i].ID, Page: true,
			Data: append(append([]byte(`{"event":`), raw...), '}')})
	}
	for i := range p.Chunks {
		c := &p.Chunks[i]
		r.frame(&Frame{At: now, Event: evChunk, ID: "chunk:" + strconv.FormatUint(c.Sequence, 10), Page: true,
			Data: append(append([]byte(`{"chunk":`), c.Raw...), '}')})
	}
	if p.Cursor != "" && len(p.rawEvents)+len(p.Chunks) > 0 {
		r.frame(&Frame{At: now, Event: evCursor, ID: p.Cursor, Page: true,
			Data: fmt.Appendf(nil, `{"next_cursor":%q}`, p.Cursor)})
	}
}

// finalStatus re-reads the status, retrying transient failures.
func (r *runner) finalStatus(ctx context.Context) (model.ActionStatus, error) {
	failures := 0
	for {
		st, e := r.c.status(ctx)
		if e == nil {
			return st, nil
		}
		switch {
		case ctx.Err() != nil:
			return st, ctx.Err()
		case e.Retryable:
			failures++
			if !sleep(ctx, r.backoff(failures, e.retryAfter)) {
				return st, ctx.Err()
			}
			continue
		}
		return st, r.fail(ctx, e)
	}
}

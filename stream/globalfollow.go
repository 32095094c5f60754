package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"aipwatch/model"
)

// The global-log follow (design §7, protocol §2.2): joined near
// the log's head (globalhead.go), then followed like an action's log. While
// it catches up (until the first page shorter than a full one, or a quiet
// second) it keeps only the last events of a bounded window and reports
// progress; then it hands the window over and follows live. A daemon that
// refuses the seek is read from the beginning the same way: progress
// shown, nothing older than the window kept.

// DefaultJoinWindow is how many positions before the head the follow
// starts, and how many events it keeps while catching up.
const DefaultJoinWindow = 500

// defaultCatchUpQuiet: no frame for this long while catching up means the
// follow has reached the head (the daemon sends nothing after an empty
// page but a keep-alive, 15 s later).
const defaultCatchUpQuiet = time.Second

// A live batch is handed over at a cursor frame (the end of a page), and
// also once it holds maxGlobalBatch events or maxGlobalBatchBytes bytes,
// or has waited DefaultBatchInterval, whatever the frames: a log that
// streams events and never sends a cursor frame is followed in bounded
// batches, not gathered for ever. The catching-up window is bounded the
// same way in bytes (maxGlobalWindowBytes) as well as in events. The sink
// takes one batch at a time, so what the follow holds stays flat.
const (
	maxGlobalBatch       = 128
	maxGlobalBatchBytes  = 1 << 20
	maxGlobalWindowBytes = 8 << 20
)

// GlobalOptions tune FollowGlobal; zero values take the defaults.
type GlobalOptions struct {
	Kinds  []string      // the event kinds to read (none = all)
	Window int           // DefaultJoinWindow
	Quiet  time.Duration // defaultCatchUpQuiet
}

// FollowEvents follows the global event log for events of kinds (see
// FollowGlobal).
func (c *Client) FollowEvents(ctx context.Context, kinds []string, sink Sink) error {
	return c.FollowGlobal(ctx, GlobalOptions{Kinds: kinds}, sink)
}

// FollowGlobal follows the global event log from near its head, passing
// events to sink in batches (GlobalEventsMsg), the link's changes
// (GlobalLinkMsg) and the catching up (GlobalProgressMsg). It reconnects
// with the cursor like the action follow (back-off reset only by cursor
// progress, at most MaxReconnectsWithoutProgress connections in a row
// without it); a cursor the daemon no longer knows (its log restarted)
// makes it seek the head again; 401/403 stop it with a Denied link
// message. It returns when ctx ends, when denied, or past that bound.
func (c *Client) FollowGlobal(ctx context.Context, o GlobalOptions, sink Sink) error {
	defer c.closeIdle()
	if o.Window <= 0 {
		o.Window = DefaultJoinWindow
	}
	if o.Quiet <= 0 {
		o.Quiet = defaultCatchUpQuiet
	}
	g := &globalFollow{c: c, sink: sink, kinds: strings.Join(o.Kinds, ","), window: o.Window, quiet: o.Quiet,
		seek: true, pos: -1, head: -1}
	return g.run(ctx)
}

type globalFollow struct {
	c      *Client
	sink   Sink
	kinds  string
	window int
	quiet  time.Duration
	cursor string

	seek     bool // find the head before the next connection
	refused  bool // the daemon refused the seek: reading from the beginning
	caughtUp bool
	ring     []model.Event // while catching up: the last events, oldest at ringAt
	ringAt   int           // the oldest event kept (those before it are dropped)
	ringSize int           // the bytes of the events kept
	start    int64         // the position reading began at
	pos      int64         // the current position (-1 unknown)
	head     int64         // the head the seek found (-1 unknown)
	read     int64         // events read while catching up
	reported time.Time     // the last progress message
}

func (g *globalFollow) run(ctx context.Context) error {
	r := &runner{c: g.c} // for the back-off only
	failures, idle := 0, 0
	for {
		from := g.cursor
		var e *Error
		if g.seek {
			e = g.join(ctx)
			from = g.cursor // where the seek put it is no progress
		}
		if e == nil {
			e = g.connection(ctx)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e.Denied() {
			g.sink.Send(GlobalLinkMsg{Denied: true, Cause: cause(e)})
			return e
		}
		switch {
		case e.Code == "stream.cursor_expired" && g.cursor != "":
			// Past the head: the log restarted its positions (a daemon on
			// a new store) or dropped its start.
			g.sink.Send(GlobalLinkMsg{Cause: "the global log no longer has aipwatch's position " + oneLine(g.cursor, 40) +
				" (the daemon restarted on a new store?): joining it again at its head"})
			g.seek, g.cursor, g.pos = true, "", -1
			from = ""
		case e.Code == "query.invalid_cursor" && g.cursor != "":
			g.sink.Send(GlobalLinkMsg{Cause: fmt.Sprintf("the daemon refused the global log's cursor: reading it again from its start, keeping the last %d events", g.window)})
			g.refused, g.cursor, g.pos, g.start, g.head = true, "", -1, 0, -1
			g.catchUp()
			from = ""
		}
		if g.cursor != from {
			failures, idle = 0, 0
		} else if idle++; idle >= MaxReconnectsWithoutProgress {
			g.sink.Send(GlobalLinkMsg{Cause: cause(e)})
			return e
		}
		failures++
		wait := r.backoff(failures, e.retryAfter)
		// The console's footer: a wait as people read it (3.7s, not 3.702s).
		g.sink.Send(GlobalLinkMsg{Cause: fmt.Sprintf("reconnecting in %s: %s", model.Seconds(wait.Round(time.Millisecond).Milliseconds()), cause(e))})
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// join finds the head and sets the cursor a window before it; a refused
// seek sets the follow to read from the beginning.
func (g *globalFollow) join(ctx context.Context) *Error {
	head, _, err := g.c.seekHead(ctx)
	var refused *seekRefused
	switch {
	case errors.As(err, &refused):
		g.seek, g.refused, g.cursor, g.pos, g.start, g.head = false, true, "", -1, 0, -1
		g.catchUp()
		g.sink.Send(GlobalLinkMsg{Cause: fmt.Sprintf("the daemon refused a seek in its global log (%s): reading it from its start, keeping the last %d events",
			cause(refused.e), g.window)})
		return nil
	case err != nil:
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return &Error{Op: "events", Message: err.Error(), Retryable: true}
	}
	g.seek, g.refused, g.head = false, false, head
	g.start = max(0, head-int64(g.window))
	g.pos = g.start
	g.cursor = ""
	if g.start > 0 {
		g.cursor = "evt_cursor_" + strconv.FormatInt(g.start, 10)
	}
	g.catchUp()
	if g.start == head {
		g.caughtUp = true // nothing between the join and the head
	}
	return nil
}

// catchUp starts catching up: events go to the window until the head.
func (g *globalFollow) catchUp() {
	g.caughtUp, g.ring, g.ringAt, g.ringSize, g.read = false, nil, 0, 0, 0
}

// eventSize is what an event holds in memory, near enough to bound it.
func eventSize(ev *model.Event) int {
	return len(ev.ID) + len(ev.Kind) + len(ev.OccurredAt) + len(ev.SessionID) + len(ev.ActionID) +
		len(ev.CorrelationID) + len(ev.Actor) + len(ev.Data) + len(ev.Context)
}

// keep puts an event into the window and drops the oldest past the
// window's count or bytes (the newest one is always kept). The dropped
// slots are reused once they are half the slice, so catching up on
// millions of events moves each of them at most once.
func (g *globalFollow) keep(ev model.Event) {
	g.read++
	g.ring = append(g.ring, ev)
	g.ringSize += eventSize(&ev)
	for n := len(g.ring) - g.ringAt; n > 1 && (n > g.window || g.ringSize > maxGlobalWindowBytes); n-- {
		g.ringSize -= eventSize(&g.ring[g.ringAt])
		g.ring[g.ringAt] = model.Event{} // let it go
		g.ringAt++
	}
	if g.ringAt >= g.window && g.ringAt*2 >= len(g.ring) {
		g.ring = g.ring[:copy(g.ring, g.ring[g.ringAt:])]
		g.ringAt = 0
	}
}

// arrived hands the window over, oldest first: the follow is at the head.
func (g *globalFollow) arrived(at time.Time) {
	g.caughtUp = true
	if len(g.ring) > g.ringAt {
		g.sink.Send(GlobalEventsMsg{Events: g.ring[g.ringAt:], At: at})
	}
	g.ring, g.ringAt, g.ringSize = nil, 0, 0
	g.sink.Send(GlobalLinkMsg{Live: true})
}

// liveBatch gathers the events read at the head until they are handed
// over (see maxGlobalBatch).
type liveBatch struct {
	events []model.Event
	size   int
	since  time.Time // when its first event came
}

// add takes an event and reports whether the batch is full.
func (b *liveBatch) add(ev model.Event, at time.Time) bool {
	if len(b.events) == 0 {
		b.since = at
	}
	b.events = append(b.events, ev)
	b.size += eventSize(&ev)
	return len(b.events) >= maxGlobalBatch || b.size >= maxGlobalBatchBytes
}

// flush hands the batch over, if it holds anything.
func (b *liveBatch) flush(sink Sink, at time.Time) {
	if len(b.events) > 0 {
		sink.Send(GlobalEventsMsg{Events: b.events, At: at})
	}
	*b = liveBatch{}
}

// progress reports the catching up, at most four times a second.
func (g *globalFollow) progress(force bool) {
	now := time.Now()
	if !force && now.Sub(g.reported) < 250*time.Millisecond {
		return
	}
	g.reported = now
	m := GlobalProgressMsg{Read: g.read, FromStart: g.refused}
	if g.pos >= 0 {
		m.Read = g.pos - g.start
	}
	if g.head >= 0 {
		m.Of = g.head - g.start
	}
	g.sink.Send(m)
}

// connection reads one follow of the global log until it ends, and says
// why.
func (g *globalFollow) connection(ctx context.Context) *Error {
	q := url.Values{"follow": {"true"}, "limit": {strconv.Itoa(pageLimit)}}
	if g.kinds != "" {
		q.Set("kinds", g.kinds)
	}
	if g.cursor != "" {
		q.Set("cursor", g.cursor)
	}
	connCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := g.c.newRequest(connCtx, http.MethodGet, g.c.daemonURL("/aip/v1/events", q), nil)
	if err != nil {
		return g.c.clean(&Error{Op: "events", Message: "cannot build the request"})
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := g.c.follow.Do(req)
	if err != nil {
		return g.c.transportError("events", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return g.c.httpError("events", resp)
	}
	if g.caughtUp {
		g.sink.Send(GlobalLinkMsg{Live: true})
	} else {
		g.progress(true)
	}

	idle := g.c.cfg.IdleTimeout
	fr := startFrames(connCtx, cancel, resp.Body, idle)
	defer fr.stop()
	quiet := time.NewTimer(g.quiet)
	defer quiet.Stop()
	var batch liveBatch
	pageEvents := 0
	for {
		select {
		case <-ctx.Done():
			return &Error{Op: "events", Message: ctx.Err().Error()}
		case <-fr.watchdog.C:
			if fr.idle() {
				return &Error{Op: "events", Message: "no complete frame for " + idle.String(), Retryable: true}
			}
		case <-quiet.C:
			if !g.caughtUp {
				g.arrived(time.Now()) // nothing more to read: the head
			}
			batch.flush(g.sink, time.Now())
		case items := <-fr.items:
			quiet.Reset(g.quiet)
			for i := range items {
				it := &items[i]
				if it.err != nil {
					return &Error{Op: "events", Message: "connection closed", Retryable: true}
				}
				rt := route(&it.frame)
				switch rt.kind {
				case routeEvent:
					pageEvents++
					if g.caughtUp {
						if batch.add(rt.event, it.frame.At) {
							batch.flush(g.sink, it.frame.At)
						}
					} else {
						g.keep(rt.event)
					}
				case routeCursor:
					// The cursor frame ends a page: hand the page over at once.
					g.moved(rt.cursor)
					switch {
					case g.caughtUp:
						batch.flush(g.sink, it.frame.At)
					case pageEvents < pageLimit:
						g.arrived(it.frame.At) // a short page: the head
					default:
						g.progress(false)
					}
					pageEvents = 0
				case routeError:
					pe := rt.perr
					return g.c.clean(&Error{Op: "events", Code: pe.Code, Message: pe.Message, Retryable: retryablePE(pe)})
				}
			}
			if n := len(items); n > 0 && len(batch.events) > 0 && items[n-1].frame.At.Sub(batch.since) >= DefaultBatchInterval {
				batch.flush(g.sink, items[n-1].frame.At) // no cursor frame came to end the page
			}
		}
	}
}

// moved takes a page's cursor; a position that goes back says the log
// restarted its positions (the events after it are new: they are read).
func (g *globalFollow) moved(cursor string) {
	p, ok := evtPosition(cursor)
	if ok && g.pos >= 0 && p < g.pos {
		g.sink.Send(GlobalLinkMsg{Cause: fmt.Sprintf("the global log's position went back from %d to %d (the daemon restarted on a new store?): reading on from there", g.pos, p)})
		g.start, g.head = p, -1
	}
	if ok {
		g.pos = p
	}
	g.cursor = cursor
}

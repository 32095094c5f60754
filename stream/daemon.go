package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"aipwatch/model"
)

// The daemon-wide routes of contract §7 (aip-daemon-behaviour part A §2):
// the action list and the global event log.

// ListQuery filters GET /aip/v1/actions; zero values filter nothing.
type ListQuery struct {
	State        string // one lifecycle state, snake_case
	CapabilityID string // exact match
	// Limit bounds the rows returned in all (0 = every row); pages are read
	// 1000 at a time, following the offset cursor to the end.
	Limit int
}

// listPage is the list route's body.
type listPage struct {
	Actions   []model.ActionStatus `json:"actions"`
	TotalSize int                  `json:"total_size"`
	Cursor    string               `json:"cursor"`
}

// maxListPages bounds the pages of one list read: a daemon whose offset
// cursors never end cannot keep aipwatch reading.
const maxListPages = 1000

// List reads the action list, following its offset paging to the end (or
// to q.Limit rows). The daemon orders rows by updated_at, oldest first.
func (c *Client) List(ctx context.Context, q ListQuery) ([]model.ActionStatus, error) {
	defer c.closeIdle()
	var out []model.ActionStatus
	cursor := ""
	seen := map[string]bool{}
	for range maxListPages {
		v := url.Values{"limit": {strconv.Itoa(pageLimit)}}
		if q.State != "" {
			v.Set("state", q.State)
		}
		if q.CapabilityID != "" {
			v.Set("capability_id", q.CapabilityID)
		}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		data, e := c.doJSON(ctx, "list", http.MethodGet, c.daemonURL("/aip/v1/actions", v), nil)
		if e != nil {
			return out, ctxErr(ctx, e)
		}
		var p listPage
		if err := decodeBody(data, "action_list", func(b []byte) error { p = listPage{}; return json.Unmarshal(b, &p) }); err != nil {
			return out, badReply("list", "an action list", err)
		}
		out = append(out, p.Actions...)
		if q.Limit > 0 && len(out) >= q.Limit {
			return out[:q.Limit], nil
		}
		if p.Cursor == "" || len(p.Actions) == 0 {
			return out, nil
		}
		if seen[p.Cursor] {
			return out, c.clean(&Error{Op: "list", Message: "the list cursors go round in a circle (" + oneLine(p.Cursor, 40) + " again)"})
		}
		seen[p.Cursor] = true
		cursor = p.Cursor
	}
	return out, c.clean(&Error{Op: "list", Message: fmt.Sprintf("more than %d pages", maxListPages)})
}

// daemonURL builds a daemon-wide route's URL under the base URL.
func (c *Client) daemonURL(path string, q url.Values) string {
	u := *c.reqURL
	u.Path = c.reqURL.Path + path
	u.RawPath = ""
	u.RawQuery = q.Encode()
	return u.String()
}

// FollowEvents follows the global event log (GET /aip/v1/events?follow=true,
// from its beginning: the daemon has no "from now"), passing events of the
// given kinds to sink in batches, and link changes as GlobalLinkMsg. It
// reconnects with the cursor like the action follow (back-off reset only by
// cursor progress, at most MaxReconnectsWithoutProgress connections in a
// row without it); 401/403 stop it with a Denied link message. It returns
// when ctx ends, when denied, or past that bound.
func (c *Client) FollowEvents(ctx context.Context, kinds []string, sink Sink) error {
	defer c.closeIdle()
	g := &globalFollow{c: c, sink: sink, kinds: strings.Join(kinds, ",")}
	return g.run(ctx)
}

type globalFollow struct {
	c      *Client
	sink   Sink
	kinds  string
	cursor string
}

func (g *globalFollow) run(ctx context.Context) error {
	r := &runner{c: g.c} // for the back-off only
	failures, idle := 0, 0
	for {
		from := g.cursor
		e := g.connection(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e.Denied() {
			g.sink.Send(GlobalLinkMsg{Denied: true, Cause: cause(e)})
			return e
		}
		if g.cursor != from {
			failures, idle = 0, 0
		} else if idle++; idle >= MaxReconnectsWithoutProgress {
			g.sink.Send(GlobalLinkMsg{Cause: cause(e)})
			return e
		}
		failures++
		wait := r.backoff(failures, e.retryAfter)
		g.sink.Send(GlobalLinkMsg{Cause: fmt.Sprintf("reconnecting in %s: %s", wait.Round(time.Millisecond), cause(e))})
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
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
	g.sink.Send(GlobalLinkMsg{Live: true})

	idle := g.c.cfg.IdleTimeout
	fr := startFrames(connCtx, cancel, resp.Body, idle)
	defer fr.stop()
	var batch []model.Event
	for {
		select {
		case <-ctx.Done():
			return &Error{Op: "events", Message: ctx.Err().Error()}
		case <-fr.watchdog.C:
			if fr.idle() {
				return &Error{Op: "events", Message: "no complete frame for " + idle.String(), Retryable: true}
			}
		case items := <-fr.items:
			for i := range items {
				it := &items[i]
				if it.err != nil {
					return &Error{Op: "events", Message: "connection closed", Retryable: true}
				}
				rt := route(&it.frame)
				switch rt.kind {
				case routeEvent:
					batch = append(batch, rt.event)
				case routeCursor:
					// The cursor frame ends a page: hand the page over at once.
					g.cursor = rt.cursor
					if len(batch) > 0 {
						g.sink.Send(GlobalEventsMsg{Events: batch, At: it.frame.At})
						batch = nil
					}
				case routeError:
					pe := rt.perr
					return g.c.clean(&Error{Op: "events", Code: pe.Code, Message: pe.Message, Retryable: retryablePE(pe)})
				}
			}
		}
	}
}

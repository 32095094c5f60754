package stream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Joining the global log near its head (design §7). The daemon has no
// "from now": no cursor means the log's beginning (protocol
// §2.2), and a production log holds every chunk event ever published. Its
// cursors are positions, evt_cursor_<n> (§2.2, B9), so the head is found by
// probing positions with one-event pages: a page with an event is before
// the head, an empty page is at it (its cursor names it), and a position
// past it answers 400 stream.cursor_expired (open point 9, as the daemon's
// source answers it) or, as another reading has it, an empty page with the
// head's cursor. Probes gallop up by eightfold steps, then bisect: about 30
// requests of a few hundred bytes for 10,000,000 events.

// maxHeadProbes bounds the requests of one head seek.
const maxHeadProbes = 96

// headStep is the first gallop step.
const headStep = 4096

// errSeekRefused: the daemon does not take a position as a cursor (a
// Postgres store refuses every cursor, A2; another answer than a page or
// stream.cursor_expired): the follow reads the log from its beginning.
type seekRefused struct{ e *Error }

// probe kinds.
const (
	probeBefore = iota // an event at the position: the head is after it
	probeAtHead        // an empty page: its cursor is the head
	probePast          // stream.cursor_expired: the position is past the head
)

// evtPosition reads an evt_cursor_<n> cursor.
func evtPosition(cursor string) (int64, bool) {
	rest, ok := strings.CutPrefix(cursor, "evt_cursor_")
	if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, err == nil
}

// probe reads the one-event page at pos (0 = no cursor, the beginning).
// It returns the kind and the page's next position.
func (c *Client) probe(ctx context.Context, pos int64) (kind int, next int64, e *Error) {
	v := url.Values{"limit": {"1"}}
	if pos > 0 {
		v.Set("cursor", "evt_cursor_"+strconv.FormatInt(pos, 10))
	}
	data, e := c.doJSON(ctx, "events", http.MethodGet, c.daemonURL("/aip/v1/events", v), nil)
	if e != nil {
		if e.Code == "stream.cursor_expired" {
			return probePast, 0, nil
		}
		return 0, 0, e
	}
	var p struct {
		Events []json.RawMessage `json:"events"`
		Next   string            `json:"next_cursor"`
	}
	if err := decodeBody(data, "event_stream", func(b []byte) error { return json.Unmarshal(b, &p) }); err != nil {
		return 0, 0, badReply("events", "an event page", err)
	}
	n, ok := evtPosition(p.Next)
	if !ok {
		return 0, 0, c.clean(&Error{Op: "events", Message: "the global log's cursor " + oneLine(p.Next, 40) + " is not a position"})
	}
	if len(p.Events) > 0 {
		return probeBefore, max(n, pos+1), nil
	}
	if pos > 0 {
		n = min(n, pos) // past the head, an empty page names the head
	}
	return probeAtHead, n, nil
}

// seekHead finds the global log's head position. A refusal that no retry
// changes comes back as *seekRefused; a transport failure or a 5xx as the
// *Error, for the caller's back-off.
func (c *Client) seekHead(ctx context.Context) (head int64, requests int, err error) {
	classify := func(e *Error) error {
		if e.Denied() || e.Transport() || e.HTTPStatus >= 500 || e.HTTPStatus == http.StatusTooManyRequests {
			return e
		}
		return &seekRefused{e}
	}
	kind, lo, e := c.probe(ctx, 0)
	requests++
	switch {
	case e != nil:
		return 0, requests, classify(e)
	case kind != probeBefore:
		return lo, requests, nil // an empty log
	}
	hi := int64(-1) // a position past the head, once known
	step := int64(headStep)
	for requests < maxHeadProbes && (hi < 0 || hi-lo > 1) {
		p := lo + step
		if hi >= 0 {
			p = lo + (hi-lo)/2
		}
		kind, next, e := c.probe(ctx, p)
		requests++
		if e != nil {
			return 0, requests, classify(e)
		}
		switch kind {
		case probeBefore:
			lo = next
			step *= 8
		case probeAtHead:
			return next, requests, nil
		case probePast:
			hi = p
		}
		if hi >= 0 && lo >= hi {
			return lo, requests, nil // the log grew while it was probed
		}
	}
	if hi < 0 || hi-lo > 1 {
		return 0, requests, &seekRefused{c.clean(&Error{Op: "events", Message: "the global log's head was not found in " + strconv.Itoa(maxHeadProbes) + " requests"})}
	}
	return lo, requests, nil
}

func (s *seekRefused) Error() string { return s.e.Error() }

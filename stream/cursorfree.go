package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"aipwatch/model"
)

// Cursor-free reading (design §2 step 6). A Postgres-backed aipd refuses
// every cursor it hands out (protocol §10.2): its follow dies after
// the first page and every second page is refused. What still works is a
// request without a cursor, and GET /aip/v1/actions/{id}?include_chunks=true
// returns every chunk in one reply. Chunks make an action without a stored
// result read `streaming` there (an async one cancelled in flight for ever:
// protocol §6.1), so the state comes from a second read without include_chunks.

// poll replaces the follow once aipd refused its cursors: read every chunk,
// pass on the new ones, read the state, until the state is terminal, the
// action is found unsettled (§2 step 6b) or never appears (§2 step 1).
func (r *runner) poll(ctx context.Context) error {
	failures := 0
	for {
		st, e := r.readChunksAndState(ctx)
		if e != nil {
			if err := r.pollFailure(ctx, e, &failures); err != nil {
				return err
			}
			continue
		}
		failures = 0
		if model.TerminalState(st.State) {
			r.unknown = false
			r.terminal()
			return nil
		}
		if st.State != model.StateUnknown {
			r.unknown = false
		}
		if end, done := r.check(ctx); done {
			if end.kind == endFatal {
				return r.fail(ctx, end.err)
			}
			return nil
		}
		if !sleep(ctx, r.c.cfg.PollInterval) {
			return ctx.Err()
		}
	}
}

// readAll is the drain and the review in cursor-free reading: one read of
// every chunk.
func (r *runner) readAll(ctx context.Context) error {
	failures := 0
	for {
		_, e := r.readChunks(ctx)
		if e == nil {
			return nil
		}
		if err := r.pollFailure(ctx, e, &failures); err != nil {
			return err
		}
	}
}

// pollFailure waits before the next read after a transient failure, or ends
// the run (a fatal error, or too many failures in a row).
func (r *runner) pollFailure(ctx context.Context, e *Error, failures *int) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case !e.Retryable:
		return r.fail(ctx, e)
	}
	if *failures++; *failures >= MaxReconnectsWithoutProgress {
		return r.fail(ctx, r.c.clean(&Error{Op: e.Op, Code: e.Code,
			Message: fmt.Sprintf("%d failed reads in a row; last: %s", *failures, cause(e))}))
	}
	wait := r.backoff(*failures, e.retryAfter)
	r.send(ReconnectingMsg{Attempt: *failures + 1, Wait: wait, Cause: cause(e)})
	if !sleep(ctx, wait) {
		return ctx.Err()
	}
	return nil
}

// readChunksAndState reads the chunks, then the state: in that order, so a
// terminal state is never read before the chunks that preceded it.
func (r *runner) readChunksAndState(ctx context.Context) (model.ActionStatus, *Error) {
	if _, e := r.readChunks(ctx); e != nil {
		return model.ActionStatus{}, e
	}
	st, e := r.c.status(ctx)
	if e != nil {
		return st, e
	}
	return st, nil
}

// readChunks reads every chunk of the action and passes on those above the
// highest sequence seen so far.
func (r *runner) readChunks(ctx context.Context) (int, *Error) {
	raws, e := r.c.statusChunks(ctx)
	if e != nil {
		return 0, e
	}
	var fresh []model.StreamChunk
	bad := 0
	now := time.Now()
	for _, raw := range raws {
		ch, err := model.DecodeChunk(raw)
		if err != nil {
			bad++
			continue
		}
		if r.hasSeq && ch.Sequence <= r.maxSeq {
			continue
		}
		r.frame(&Frame{At: now, Event: evChunk, ID: "chunk:" + strconv.FormatUint(ch.Sequence, 10), Page: true,
			Data: append(append([]byte(`{"chunk":`), raw...), '}')})
		fresh = append(fresh, ch)
	}
	for _, ch := range fresh {
		r.saw(ch.Sequence, now)
	}
	if bad > 0 {
		r.bad += bad
		r.send(BadFrameMsg{Reason: fmt.Sprintf("%d undecodable chunk(s) in an action status", bad), Count: r.bad, Chunks: bad})
	}
	if len(fresh) > 0 {
		r.send(BatchMsg{Chunks: fresh, At: now})
	}
	return len(fresh), nil
}

// terminal reports the end of the following part when no terminal frame
// carried it (review, cursor-free reading), rebuilt in the follow form so a
// recording replays the same way.
func (r *runner) terminal() {
	r.frame(&Frame{At: time.Now(), Event: evTerminal, ID: r.cursor, Page: true,
		Data: fmt.Appendf(nil, `{"terminal":true,"action_id":%q}`, r.c.cfg.ActionID)})
	r.send(TerminalMsg{Cursor: r.cursor})
}

// statusChunks reads GET /aip/v1/actions/{id}?include_chunks=true and
// returns its chunks as they came.
func (c *Client) statusChunks(ctx context.Context) ([]json.RawMessage, *Error) {
	data, e := c.doJSON(ctx, "status", http.MethodGet, c.actionURL("", url.Values{"include_chunks": {"true"}}), nil)
	if e != nil {
		return nil, e
	}
	var st struct {
		State  string            `json:"state"`
		Chunks []json.RawMessage `json:"chunks"`
	}
	err := decodeBody(data, "action_status", func(b []byte) error { st.Chunks = nil; return json.Unmarshal(b, &st) })
	if err != nil || st.State == "" {
		return nil, badReply("status", "an action status", err)
	}
	return st.Chunks, nil
}

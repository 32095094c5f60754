package ui

import (
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

// header is the top row: the action ID, the operation, the endpoint, the
// response ID and the elapsed time. It owns the parse of the status's two
// timestamps, kept between frames; the root model gives it the times the
// elapsed time runs between (runTimes) and delegates.
type header struct {
	st    *render.Styles
	times timeCache
}

// runTimes are the root model's times the elapsed time is measured from.
type runTimes struct {
	started     time.Time // when the viewer started (elapsed fallback)
	replay      bool      // a --replay
	replayStart time.Time // a --replay: the recorded time of its first frame
	settledAt   time.Time
	now         time.Time // streamNow
}

// runTimes reads the times the header's elapsed time is measured from.
func (m *Model) runTimes() runTimes {
	t := runTimes{started: m.started, replay: m.opts.Replay, settledAt: m.endedAt, now: m.streamNow()}
	if m.opts.Replay {
		t.replayStart = m.conn().FirstData
	}
	return t
}

// elapsed is the action's running time (header.elapsed).
func (m *Model) elapsed() time.Duration { return m.head.elapsed(m.action, m.runTimes()) }

// line: action ID, operation, endpoint, response id, elapsed, on w cells;
// what does not fit is left out, least important first.
func (h *header) line(w int, a *model.Action, redact bool, t runTimes) string {
	st := h.st
	op := a.Operation()
	switch {
	case op != "":
	case a.ChunkCount() > 0:
		op = "other"
	default:
		op = "…"
	}
	right := st.HeaderDim.Render("elapsed ") + render.Duration(h.elapsed(a, t))
	rw := render.Width(right)
	// The action ID goes last, and shortened in the middle (its last
	// characters confirm a cancel) rather than dropped.
	id := render.Line(a.ID)
	if avail := max(w-rw-1, 1); render.Width(id) > avail {
		id = render.Short(id, avail)
	}
	segs := []segment{
		{st.Header.Render("aipwatch"), 7},
		{st.Header.Render(id), 10},
		{render.Line(op), 8},
	}
	if ep := a.Endpoint(); ep != "" {
		segs = append(segs, segment{"endpoint " + render.Short(ep, 24), 4})
	}
	if id := a.Responses().ResponseID; id != "" {
		segs = append(segs, segment{"response " + shortID(id, 34, redact), 6})
	} else if id := a.Chat().CompletionID; id != "" {
		segs = append(segs, segment{shortID(id, 40, redact), 3})
	}
	left := fitSegments(segs, st.HeaderDim.Render(" · "), max(w-rw-1, 1))
	gap := max(w-render.Width(left)-rw, 1)
	return render.Truncate(left+strings.Repeat(" ", gap)+right, w, "")
}

// timeCache keeps the last parse of the status's two timestamps (every
// frame reads them; a failed parse allocates its error).
type timeCache struct {
	in [2]string
	t  [2]time.Time
	ok [2]bool
	ad [2]bool
}

func (c *timeCache) parse(k int, s string) (time.Time, bool) {
	if !c.ad[k] || c.in[k] != s {
		t, err := time.Parse(time.RFC3339Nano, s)
		c.in[k], c.t[k], c.ok[k], c.ad[k] = s, t, err == nil, true
	}
	return c.t[k], c.ok[k]
}

// shortID is a provider ID for the screen: masked under --redact.
func shortID(id string, n int, redact bool) string {
	if redact {
		return render.Mask(id)
	}
	return render.Short(id, n)
}

// elapsed is the action's running time: from aipd's started_at when known
// (else from when the viewer started) to completed_at, the settling, or
// now.
func (h *header) elapsed(a *model.Action, t runTimes) time.Duration {
	start := t.started
	if t.replay && !t.replayStart.IsZero() {
		start = t.replayStart
	}
	var end time.Time
	if s := a.Status; s != nil {
		// The earlier of aipd's started_at and when this viewer began: a
		// synchronous action's record is written when it settles, so its
		// started_at can be later than the stream that was watched.
		if st, ok := h.times.parse(0, s.StartedAt); ok && st.Before(start) {
			start = st
		}
		if ct, ok := h.times.parse(1, s.CompletedAt); ok && a.Settled() {
			end = ct
		}
	}
	if end.IsZero() {
		end = t.now
		if !t.settledAt.IsZero() {
			end = t.settledAt
		}
	}
	d := end.Sub(start)
	if d < 0 {
		d = end.Sub(t.started)
	}
	if d < 0 && !t.replayStart.IsZero() {
		d = end.Sub(t.replayStart)
	}
	return max(d, 0)
}

package ui

import (
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

// header is the top row: the action ID, the operation, the endpoint, the
// response ID and the elapsed time. It owns the parse of the status's two
// timestamps, kept between frames; the live view gives it the times the
// elapsed time runs between (runTimes) and delegates.
type header struct {
	st      *render.Styles
	context string // the config file's context of the action's daemon (Options.Context), "" for one daemon
}

// runTimes are the live view's times the elapsed time is measured from.
type runTimes struct {
	started     time.Time // when the viewer started (elapsed fallback)
	replay      bool      // a --replay
	replayStart time.Time // a --replay: the recorded time of its first frame
	settledAt   time.Time
	now         time.Time // streamNow
}

// runTimes reads the times the header's elapsed time is measured from.
func (m *Live) runTimes() runTimes {
	t := runTimes{started: m.started, replay: m.opts.Replay, settledAt: m.endedAt, now: m.streamNow()}
	if m.opts.Replay {
		t.replayStart = m.conn().FirstData
	}
	return t
}

// elapsed is the action's running time (header.elapsed).
func (m *Live) elapsed() time.Duration { return m.head.elapsed(m.action, m.runTimes()) }

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
	if h.context != "" {
		segs = append(segs, segment{"on " + render.Short(render.Line(h.context), 16), 9})
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
	// The earlier of when aipd says the action began (Action.RunSpan: its
	// started_at or its first chunk) and when this viewer began: a review
	// of a settled action began long after it ran.
	st, ct := a.RunSpan()
	if !st.IsZero() && st.Before(start) {
		start = st
	}
	if !ct.IsZero() && a.Settled() {
		end = ct
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

package ui

import (
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/render"
)

// header is the top row: the action ID, the operation, the endpoint, the
// response ID and the elapsed time. It owns the row of the last frame,
// kept by what it shows (headerKey): the live view gives it the times the
// elapsed time runs between (runTimes) and delegates.
type header struct {
	st      *render.Styles
	context string // the config file's context of the action's daemon (Options.Context), "" for one daemon
	last    headerCache
	left    headerLeft
	label   string // "elapsed " in HeaderDim, painted once
}

// headerLeft is the header's left side (all but the elapsed time) of the
// last frame, by what it shows (a key whose elapsed is "") and the cells
// the elapsed time takes: the elapsed time changes every tenth of a
// second in a turn's first seconds, the rest seldom.
type headerLeft struct {
	ok    bool
	key   headerKey
	right int // the cells of the elapsed time, label included
	text  string
	width int // render.Width(text)
}

// headerKey is everything the header row shows, as read before it is
// drawn: the row changes when one of them does (the elapsed time, once a
// second or a tenth, the others seldom), not with every batch.
type headerKey struct {
	width                         int
	id, op, context, endpoint     string
	response, completion, elapsed string
	redact                        bool
}

type headerCache struct {
	ok   bool
	key  headerKey
	line string
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
	op := a.Operation()
	switch {
	case op != "":
	case a.ChunkCount() > 0:
		op = "other"
	default:
		op = "…"
	}
	k := headerKey{width: w, id: a.ID, op: op, context: h.context, endpoint: a.Endpoint(),
		elapsed: render.Duration(h.elapsed(a, t)), redact: redact}
	if k.response = a.Responses().ResponseID; k.response == "" {
		k.completion = a.Chat().CompletionID
	}
	if c := &h.last; c.ok && c.key == k {
		return c.line
	}
	line := h.draw(k)
	h.last = headerCache{ok: true, key: k, line: line}
	return line
}

// draw is the header row that shows k.
func (h *header) draw(k headerKey) string {
	if h.label == "" {
		h.label = h.st.HeaderDim.Render("elapsed ")
	}
	w := k.width
	right := h.label + k.elapsed
	rw := render.Width(right)
	lk := k
	lk.elapsed = ""
	if c := &h.left; !c.ok || c.key != lk || c.right != rw {
		text := h.leftSide(lk, rw)
		h.left = headerLeft{ok: true, key: lk, right: rw, text: text, width: render.Width(text)}
	}
	gap := max(w-h.left.width-rw, 1)
	return render.Truncate(h.left.text+strings.Repeat(" ", gap)+right, w, "")
}

// leftSide is the header's segments that fit beside an elapsed time of
// rw cells.
func (h *header) leftSide(k headerKey, rw int) string {
	st, w, redact := h.st, k.width, k.redact
	// The action ID goes last, and shortened in the middle (its last
	// characters confirm a cancel) rather than dropped.
	id := render.Line(k.id)
	if avail := max(w-rw-1, 1); render.Width(id) > avail {
		id = render.Short(id, avail)
	}
	segs := []segment{
		{st.Header.Render("aipwatch"), 7},
		{st.Header.Render(id), 10},
		{render.Line(k.op), 8},
	}
	if k.context != "" {
		segs = append(segs, segment{"on " + render.Short(render.Line(k.context), 16), 9})
	}
	if ep := k.endpoint; ep != "" {
		segs = append(segs, segment{"endpoint " + render.Short(ep, 24), 4})
	}
	if id := k.response; id != "" {
		segs = append(segs, segment{"response " + shortID(id, 34, redact), 6})
	} else if id := k.completion; id != "" {
		segs = append(segs, segment{shortID(id, 40, redact), 3})
	}
	return fitSegments(segs, st.HeaderDim.Render(" · "), max(w-rw-1, 1))
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

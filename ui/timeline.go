package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
)

// The timeline (v, design §16): the turn on one time axis in place of the
// transcript, drawn by render.Timeline from model.TurnTimeline. It
// follows a live run (the window's end is now) until the operator pans
// back; + and - zoom around the window's middle, ← and → pan.

// maxZoom is the deepest zoom: the window is the axis over 2^maxZoom.
const maxZoom = 10

// tlState is the timeline's zoom and window, and what it drew last.
type tlState struct {
	zoom int // the window is the axis over 2^zoom (0: the whole axis)
	// follow: the window ends at the axis's end (now, while live); else
	// it starts offset after the axis's start.
	follow bool
	offset time.Duration

	// The model's timeline, read again when its key changes: while the
	// turn runs, once a tlStep at most (a turn of 100,000 chunks costs
	// tens of milliseconds to read), else when the model changed.
	tlKey uint64
	tlOK  bool
	tl    model.TurnTimeline

	key  tlKey
	rows []string
}

// tlStep is how often a running turn's timeline is read again while it
// is shown: it grows to the right in steps of a quarter of a second.
const tlStep = 250 * time.Millisecond

// tlKey is what the timeline's rows were drawn from.
type tlKey struct {
	model         uint64 // the timeline's key (tlState.tlKey)
	width, height int
	zoom          int
	follow        bool
	offset        time.Duration
}

func (m *Live) openTimeline() {
	m.mode = ModeTimeline
	m.tl.follow, m.tl.zoom, m.tl.offset = true, 0, 0
	m.tl.rows, m.tl.tlOK = nil, false
	m.relayout()
}

// turnTimeline is the model's timeline now (the stream's now: a replay's
// recorded time), read again only when its key changed: the model's
// version once settled; while the turn runs, the clock in tlSteps (the
// version changes with every batch).
func (m *Live) turnTimeline() model.TurnTimeline {
	now := m.streamNow()
	key := m.action.Version<<1 | 1
	if !m.action.Settled() && m.fatal() == nil {
		key = uint64(now.UnixNano()/int64(tlStep)) << 1
	}
	if !m.tl.tlOK || key != m.tl.tlKey {
		m.tl.tl, m.tl.tlKey, m.tl.tlOK = m.action.TurnTimeline(now), key, true
	}
	return m.tl.tl
}

// tlWindow is the part of the axis shown: all of it at zoom 0.
func (m *Live) tlWindow(tl model.TurnTimeline) (from, to time.Time) {
	full := tl.To.Sub(tl.From)
	if m.tl.zoom == 0 || full <= 0 {
		return tl.From, tl.To
	}
	w := full >> m.tl.zoom
	if w <= 0 {
		w = 1
	}
	if m.tl.follow {
		return tl.To.Add(-w), tl.To
	}
	off := min(max(m.tl.offset, 0), full-w)
	return tl.From.Add(off), tl.From.Add(off + w)
}

// onTimelineKey handles a key while the timeline is shown.
func (m *Live) onTimelineKey(msg tea.KeyPressMsg) {
	k := m.keys
	tl := m.turnTimeline()
	from, to := m.tlWindow(tl)
	w := to.Sub(from)
	full := tl.To.Sub(tl.From)
	switch {
	case key.Matches(msg, k.Timeline), msg.String() == "esc", msg.String() == "q":
		m.mode = ModeNormal
		m.relayout()
	case key.Matches(msg, k.ZoomIn):
		if m.tl.zoom < maxZoom && full>>(m.tl.zoom+1) > 0 {
			mid := from.Add(w / 2).Sub(tl.From)
			m.tl.zoom++
			m.tl.offset = mid - (full>>m.tl.zoom)/2
		}
	case key.Matches(msg, k.ZoomOut):
		if m.tl.zoom > 0 {
			mid := from.Add(w / 2).Sub(tl.From)
			m.tl.zoom--
			m.tl.offset = mid - (full>>m.tl.zoom)/2
			if m.tl.zoom == 0 {
				m.tl.follow = true
			}
		}
	case key.Matches(msg, k.PanLeft):
		if m.tl.zoom > 0 {
			m.tl.follow = false
			m.tl.offset = max(from.Sub(tl.From)-w/4, 0)
		}
	case key.Matches(msg, k.PanRight):
		if m.tl.zoom > 0 {
			m.tl.offset = from.Sub(tl.From) + w/4
			if m.tl.offset+w >= full {
				m.tl.follow = true
			}
		}
	case key.Matches(msg, k.Top):
		if m.tl.zoom > 0 {
			m.tl.follow, m.tl.offset = false, 0
		}
	case key.Matches(msg, k.Bottom):
		m.tl.follow = true
	case key.Matches(msg, k.Help):
		m.showHelp, m.help.top = !m.showHelp, 0
		m.relayout()
	}
}

// timelineRows are the body's rows while the timeline is shown, drawn
// again only when what they show changed.
func (m *Live) timelineRows(body int) []string {
	tl := m.turnTimeline()
	k := tlKey{model: m.tl.tlKey, width: m.width, height: body, zoom: m.tl.zoom, follow: m.tl.follow, offset: m.tl.offset}
	if m.tl.rows != nil && k == m.tl.key {
		return m.tl.rows
	}
	from, to := m.tlWindow(tl)
	rows := m.st.Timeline(tl, render.TimelineOptions{Width: m.width - 1, From: from, To: to, MaxRows: body})
	for i, r := range rows {
		rows[i] = " " + r
	}
	m.tl.key, m.tl.rows = k, rows
	return rows
}

// timelineTitle is the rule's right side while the timeline is shown: the
// zoom and the window, and whether it follows.
func (m *Live) timelineTitle() string {
	tl := m.turnTimeline()
	if !tl.Known {
		return "v closes"
	}
	if m.tl.zoom == 0 {
		return "whole turn · " + render.Duration(tl.To.Sub(tl.From))
	}
	from, to := m.tlWindow(tl)
	s := "×" + strconv.Itoa(1<<m.tl.zoom) + " · " + render.Duration(from.Sub(tl.From)) + "–" + render.Duration(to.Sub(tl.From))
	if m.tl.follow && tl.Live {
		s += " · following"
	}
	return s
}

// timelineRule is the rule's right side while the timeline is shown ("").
func (m *Live) timelineRule() string {
	if m.mode != ModeTimeline {
		return ""
	}
	return m.timelineTitle()
}

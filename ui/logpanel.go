package ui

import (
	"strings"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

// The connection log panel (L): the typed timeline, masked by its one rule.

func (m *Live) openLog() {
	m.mode = ModeLog
	m.raw = newPanel(m.keys, 0)
	m.log = logRows{}
	m.buildLog()
	m.raw.gotoBottom(m.layout().body) // newest at the bottom
}

// buildLog brings the log panel's rows up to date with the connection
// timeline (model.Timeline); the panel is given them again only when they
// changed or the body's height did.
func (m *Live) buildLog() {
	body := m.layout().body
	if !m.log.update(m.action.Timeline(), max(m.width, 10), m.opts.Redact, m.st.Dim.Render) && body == m.log.body {
		return
	}
	m.log.body = body
	// Capped: the viewport may rewrite or insert into the slice it is
	// given, and the rows drawn later are appended to this one.
	n := len(m.log.lines)
	m.raw.setLines(m.log.lines[:n:n], m.width, body, m.raw.atBottom(body))
}

// logRows is the log panel's rows and what they were drawn from. The
// timeline only grows, and the panel is rebuilt on every sync while it is
// open: the rows of the entries already drawn are kept, and only the new
// entries are drawn (every entry was drawn again on every sync).
type logRows struct {
	width  int
	drawn  int // timeline entries drawn into lines
	lines  []string
	body   int  // the body height the panel was last given
	filled bool // lines hold the timeline (else the empty placeholder)
}

// update draws the entries of tl not drawn yet at width, all of them when
// the width changed, and reports whether the rows changed. Under --redact
// the error details some entries carry are masked.
func (r *logRows) update(tl []model.Happening, width int, redact bool, dim func(...string) string) bool {
	if r.width != width || len(tl) < r.drawn || (len(tl) > 0 && !r.filled) {
		*r = logRows{width: width, body: r.body}
	}
	if len(tl) == 0 {
		if r.lines != nil {
			return false
		}
		r.lines = []string{dim("nothing yet")}
		return true
	}
	if r.filled && r.drawn == len(tl) {
		return false
	}
	for _, h := range tl[r.drawn:] {
		if redact {
			h = h.Redacted(safe.Mask) // the timeline's one masking rule
		}
		stamp := dim(h.At.Format("15:04:05.000") + "  ")
		// One entry is one line: a cursor or cause with a newline in it
		// shows a placeholder and cannot draw a line of its own.
		for i, l := range render.WrapIndent(render.Line(h.Text()), width-14, "") {
			if i == 0 {
				r.lines = append(r.lines, stamp+l)
			} else {
				r.lines = append(r.lines, strings.Repeat(" ", 14)+l)
			}
		}
	}
	r.drawn, r.filled = len(tl), true
	return true
}

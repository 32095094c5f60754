package ui

import (
	"strings"

	"aipwatch/render"
	"aipwatch/safe"
)

// The connection log panel (L): the typed timeline, masked by its one rule.

func (m *Model) openLog() {
	m.mode = ModeLog
	m.raw = newPanel(m.keys, 0)
	m.buildLog()
	m.raw.gotoBottom(m.layout().body) // newest at the bottom
}

// buildLog renders the connection timeline (model.Timeline). Under
// --redact the error details some entries carry are masked.
func (m *Model) buildLog() {
	w := max(m.width, 10)
	st := m.st
	body := m.layout().body
	atEnd := m.raw.atBottom(body)
	tl := m.action.Timeline()
	lines := make([]string, 0, len(tl)+1)
	if len(tl) == 0 {
		lines = append(lines, st.Dim.Render("nothing yet"))
	}
	for _, h := range tl {
		if m.opts.Redact {
			h = h.Redacted(safe.Mask) // the timeline's one masking rule
		}
		what := h.Text()
		stamp := st.Dim.Render(h.At.Format("15:04:05.000") + "  ")
		// One entry is one line: a cursor or cause with a newline in it
		// shows a placeholder and cannot draw a line of its own.
		for i, l := range render.WrapIndent(render.Line(what), w-14, "") {
			if i == 0 {
				lines = append(lines, stamp+l)
			} else {
				lines = append(lines, strings.Repeat(" ", 14)+l)
			}
		}
	}
	m.raw.setLines(lines, m.width, body, atEnd)
}

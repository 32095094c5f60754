package ui

import (
	"aipwatch/ui/transcript"
)

// layout is how the rows of the screen are shared out.
type layout struct {
	body   int // transcript (or raw view) rows
	tools  int // tools pane rows, its title included (0 = hidden)
	prompt int // cancel confirmation lines
	help   int // help rows
	gutter int // focus gutter cells (0 in the plain view)
}

const (
	headerRows = 1
	ruleRows   = 1
	statusRows = 2
)

func (m *Live) layout() layout {
	l := layout{gutter: 2, help: 1}
	if m.plain {
		l.gutter = 0
	}
	if m.showHelp {
		l.help = min(len(m.helpLines()), m.helpRoom())
	}
	if m.mode == ModeConfirm {
		l.prompt = len(m.promptLines())
	}
	rest := m.height - headerRows - ruleRows - statusRows - l.help - max(l.prompt-1, 0)
	if n := len(m.action.Tools()); m.showTools && n > 0 && !m.panel() && m.mode != ModeTimeline {
		rows := min(n, max(2, m.height/4))
		l.tools = min(rows+1, rest-3)
		if l.tools < 2 {
			l.tools = 0
		}
	}
	l.body = max(rest-l.tools, 1)
	return l
}

// helpRoom is how many rows the ? overlay may take: all but the header,
// the rule, the status lines and one row of transcript. A longer overlay
// scrolls (keyHelp.top) with the scroll keys.
func (m *Live) helpRoom() int {
	return max(m.height-headerRows-ruleRows-statusRows-1, 1)
}

// helpOverflows: the ? overlay is open and longer than its room.
func (m *Live) helpOverflows() bool {
	return m.showHelp && len(m.helpLines()) > m.helpRoom()
}

// scrollHelp moves the ? overlay's window by d rows.
func (m *Live) scrollHelp(d int) {
	m.help.scroll(d, len(m.helpLines()), m.helpRoom())
}

// renderOptions are the transcript options for the current state.
func (m *Live) renderOptions() transcript.Options {
	l := m.layout()
	return transcript.Options{
		Width:      max(m.width-l.gutter, 10),
		Markdown:   m.markdown && !m.plain,
		Plain:      m.plain,
		Redact:     m.opts.Redact,
		Settled:    m.action.Settled(),
		Timestamps: m.stamps,
		NoWrap:     m.nowrap,
	}
}

// resize reflows for a new size (or a new view mode) without losing the
// reading position (transcript.Reflow).
func (m *Live) resize(w, h int) {
	m.changed()
	m.width, m.height = w, h
	m.help.hm.SetWidth(w)
	if w == 0 {
		return
	}
	m.tr.Reflow(m.renderOptions(), m.action)
	m.relayout()
	m.rebuildPanel()
}

// sync brings the transcript up to date with the model; fromStream counts
// the lines that arrived while follow is paused.
func (m *Live) sync(fromStream bool) {
	if m.width == 0 {
		return
	}
	m.tr.Refresh(m.renderOptions(), m.action, fromStream)
	m.relayout()
	if m.mode == ModeLog {
		m.buildLog() // the timeline grows while it is open
	}
}

// The transcript keeps the reading position, the follow state and the
// focus (ui/transcript/window.go); these give it the window's rows.

func (m *Live) relayout()       { m.tr.Relayout(m.layout().body) }
func (m *Live) setTop(top int)  { m.tr.SetTop(top, m.layout().body) }
func (m *Live) pause()          { m.tr.Pause() }
func (m *Live) scrollBy(d int)  { m.tr.ScrollBy(d, m.layout().body) }
func (m *Live) scrollTo(t int)  { m.tr.ScrollTo(t, m.layout().body) }
func (m *Live) resumeFollow()   { m.tr.ResumeFollow(m.layout().body) }
func (m *Live) focusIndex() int { return m.tr.FocusIndex() }
func (m *Live) moveFocus(d int) { m.tr.MoveFocus(d, m.layout().body) }

// panel reports whether a text panel (raw chunk, connection log) replaces
// the transcript.
func (m *Live) panel() bool { return m.mode == ModeRaw || m.mode == ModeLog }

func (m *Live) rebuildPanel() {
	switch m.mode {
	case ModeRaw:
		m.buildRaw()
	case ModeLog:
		m.buildLog()
	}
}

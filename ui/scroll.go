package ui

import (
	"fmt"
	"sort"
	"strings"

	"aipwatch/keys"
	"aipwatch/render"
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

func (m *Model) layout() layout {
	l := layout{gutter: 2, help: 1}
	if m.plain {
		l.gutter = 0
	}
	if m.showHelp {
		l.help = min(len(m.helpLines()), m.helpRoom())
	}
	if m.mode == keys.Confirm {
		l.prompt = len(m.promptLines())
	}
	rest := m.height - headerRows - ruleRows - statusRows - l.help - max(l.prompt-1, 0)
	if n := len(m.action.Tools()); m.showTools && n > 0 && !m.panel() {
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
// scrolls (helpTop) with the scroll keys.
func (m *Model) helpRoom() int {
	return max(m.height-headerRows-ruleRows-statusRows-1, 1)
}

// helpOverflows: the ? overlay is open and longer than its room.
func (m *Model) helpOverflows() bool {
	return m.showHelp && len(m.helpLines()) > m.helpRoom()
}

// scrollHelp moves the ? overlay's window by d rows.
func (m *Model) scrollHelp(d int) {
	n, room := len(m.helpLines()), m.helpRoom()
	m.helpTop = min(max(m.helpTop+d, 0), max(n-(room-1), 0))
}

// renderOptions are the transcript options for the current state.
func (m *Model) renderOptions() transcript.Options {
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
// reading position: the anchor's line within its block is scaled to the
// block's new length.
func (m *Model) resize(w, h int) {
	var frac float64
	if i := m.tr.Index(m.anchorKey); i >= 0 {
		if _, n := m.tr.Span(i); n > 0 {
			frac = float64(m.anchorOff) / float64(n)
		}
	}
	m.width, m.height = w, h
	m.help.SetWidth(w)
	if w == 0 {
		return
	}
	m.tr.SetOptions(m.renderOptions())
	m.tr.Sync(m.action)
	if i := m.tr.Index(m.anchorKey); i >= 0 {
		_, n := m.tr.Span(i)
		m.anchorOff = int(frac*float64(n) + 0.5)
	}
	m.relayout()
	m.rebuildPanel()
}

// panel reports whether a text panel (raw chunk, connection log) replaces
// the transcript.
func (m *Model) panel() bool { return m.mode == keys.Raw || m.mode == keys.Log }

func (m *Model) rebuildPanel() {
	switch m.mode {
	case keys.Raw:
		m.buildRaw()
	case keys.Log:
		m.buildLog()
	}
}

func (m *Model) openLog() {
	m.mode = keys.Log
	m.raw = rawView{}
	m.buildLog()
	m.rawScroll(len(m.raw.lines)) // newest at the bottom
}

// buildLog renders the connection timeline (model.Timeline). Under
// --redact the error details some entries carry are masked.
func (m *Model) buildLog() {
	w := max(m.width, 10)
	st := m.st
	atEnd := m.raw.top >= max(len(m.raw.lines)-m.layout().body, 0)
	tl := m.action.Timeline()
	lines := make([]string, 0, len(tl)+1)
	if len(tl) == 0 {
		lines = append(lines, st.Dim.Render("nothing yet"))
	}
	for _, h := range tl {
		what := h.What
		if m.opts.Redact {
			for _, p := range []string{"reconnecting", "error:", "cancel failed:"} {
				if i := strings.Index(what, ": "); strings.HasPrefix(what, p) && i >= 0 {
					what = what[:i+2] + render.Masked
				}
			}
		}
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
	m.raw.lines = lines
	if atEnd {
		m.raw.top = len(lines)
	}
	m.rawScroll(0)
}

// sync brings the transcript up to date with the model; fromStream counts
// the lines that arrived while follow is paused.
func (m *Model) sync(fromStream bool) {
	if m.width == 0 {
		return
	}
	before := m.tr.Len()
	m.tr.SetOptions(m.renderOptions())
	m.tr.Sync(m.action)
	if fromStream && !m.follow {
		m.newLines += max(m.tr.Len()-before, 0)
	}
	m.relayout()
	if m.mode == keys.Log {
		m.buildLog() // the timeline grows while it is open
	}
}

// relayout places the window: at the bottom while following, else at the
// anchor.
func (m *Model) relayout() {
	body := m.layout().body
	total := m.tr.Len()
	maxTop := max(total-body, 0)
	if m.follow {
		m.top = m.followTop(body)
	} else if i := m.tr.Index(m.anchorKey); i >= 0 {
		start, n := m.tr.Span(i)
		m.top = start + min(m.anchorOff, n)
	}
	m.top = min(max(m.top, 0), maxTop)
	if m.focusAuto {
		m.focusKey = m.tr.Key(m.autoFocus())
	}
}

// followTop is the window while following: the bottom, unless the item
// that changed last sits above the last item (Responses text after its
// tool calls): then that item's end, with the next heading under it.
func (m *Model) followTop(body int) int {
	total := m.tr.Len()
	maxTop := max(total-body, 0)
	act := m.tr.Active()
	if act < 0 || act >= m.tr.LastItem() || m.action.Settled() {
		return maxTop // once settled nothing grows: the end is the bottom
	}
	start, n := m.tr.Span(act)
	end := start + n + 2 // the separator and the next heading
	return min(max(end-body, 0), maxTop)
}

// autoFocus is the focused block while the focus follows: the item that
// changed last.
func (m *Model) autoFocus() int {
	if a := m.tr.Active(); a >= 0 {
		return a
	}
	return m.tr.Blocks() - 1
}

// setTop moves the window (follow must already be off) and re-anchors it.
func (m *Model) setTop(top int) {
	body := m.layout().body
	maxTop := max(m.tr.Len()-body, 0)
	m.top = min(max(top, 0), maxTop)
	if bi := m.tr.BlockAt(m.top); bi >= 0 {
		start, _ := m.tr.Span(bi)
		m.anchorKey, m.anchorOff = m.tr.Key(bi), m.top-start
	}
	m.keepFocusVisible()
}

// pause stops following, keeping the current window.
func (m *Model) pause() {
	if m.follow {
		m.follow = false
		m.newLines = 0
	}
}

func (m *Model) scrollBy(d int) {
	body := m.layout().body
	if m.tr.Len() <= body {
		return // everything is visible: nothing to scroll
	}
	if m.follow && d > 0 && m.top >= max(m.tr.Len()-body, 0) {
		return // already at the bottom: keep following
	}
	m.pause() // any manual scroll pauses; G/End, or scrolling back to the end, resumes
	m.setTop(m.top + d)
	if d > 0 && m.top >= max(m.tr.Len()-body, 0) && m.followTop(body) >= m.top {
		m.resumeFollow() // back at the end, as less +F and kubectl logs -f users expect
	}
}

func (m *Model) scrollTo(top int) {
	if m.tr.Len() <= m.layout().body {
		return
	}
	m.pause()
	m.setTop(top)
}

func (m *Model) resumeFollow() {
	m.follow, m.newLines, m.focusAuto = true, 0, true
	m.relayout()
}

// focusIndex is the focused block, or -1.
func (m *Model) focusIndex() int {
	n := m.tr.Blocks()
	if n == 0 {
		return -1
	}
	if m.focusAuto {
		return m.autoFocus()
	}
	if i := m.tr.Index(m.focusKey); i >= 0 {
		return i
	}
	return m.autoFocus()
}

func (m *Model) moveFocus(d int) {
	n := m.tr.Blocks()
	if n == 0 {
		return
	}
	i := min(max(m.focusIndex()+d, 0), n-1)
	m.focusAuto = false
	m.focusKey = m.tr.Key(i)
	start, ln := m.tr.Span(i)
	body := m.layout().body
	switch {
	case start < m.top:
		m.pause()
		m.setTop(start)
	case start >= m.top+body:
		if !m.follow {
			m.setTop(start - body + min(ln, body))
		}
	}
}

// keepFocusVisible moves the focus to the top visible block when scrolling
// left the focused one out of the window.
func (m *Model) keepFocusVisible() {
	if m.follow {
		return
	}
	i := m.focusIndex()
	start, n := m.tr.Span(i)
	body := m.layout().body
	if i >= 0 && start < m.top+body && start+n > m.top {
		return
	}
	bi := m.tr.BlockAt(m.top)
	if s, ln := m.tr.Span(bi); bi >= 0 && s+ln <= m.top && bi+1 < m.tr.Blocks() {
		bi++ // the top row is the separator after bi
	}
	if bi >= 0 {
		m.focusAuto = false
		m.focusKey = m.tr.Key(bi)
	}
}

// rawView is the r diagnostics view of one retained chunk.
type rawView struct {
	seq   uint64
	lines []string
	top   int
}

func (m *Model) openRaw() {
	if m.opts.Redact {
		m.setNotice("the raw view is off under --redact", false)
		return
	}
	seq, ok := m.tr.Sequence(m.focusIndex())
	if !ok {
		if last, ok2 := m.action.LastSequence(); ok2 {
			seq, ok = last, true
		}
	}
	if !ok {
		m.setNotice("no chunk to show yet", false)
		return
	}
	m.raw = rawView{seq: seq}
	m.mode = keys.Raw
	m.buildRaw()
}

func (m *Model) rawStep(d int) {
	seqs := m.action.Sequences()
	if len(seqs) == 0 {
		return
	}
	i := sort.Search(len(seqs), func(i int) bool { return seqs[i] >= m.raw.seq })
	i = min(max(i+d, 0), len(seqs)-1)
	m.raw = rawView{seq: seqs[i]}
	m.buildRaw()
}

func (m *Model) rawScroll(d int) {
	body := m.layout().body
	m.raw.top = min(max(m.raw.top+d, 0), max(len(m.raw.lines)-body, 0))
}

// buildRaw renders the chunk's envelope (pretty, terminal-safe JSON) and
// its provider raw_data (sanitised text).
func (m *Model) buildRaw() {
	w := max(m.width, 10)
	st := m.st
	c, ok := m.action.ChunkAt(m.raw.seq)
	if !ok {
		m.raw.lines = []string{st.Dim.Render(fmt.Sprintf("chunk %d is not retained", m.raw.seq))}
		return
	}
	head := fmt.Sprintf("chunk %d · kind %s", c.Sequence, render.Line(string(c.Kind)))
	if !c.ReceivedAt.IsZero() {
		head += " · received " + c.ReceivedAt.Format("15:04:05.000")
	}
	lines := []string{st.Header.Render(render.Truncate(head, w, "…")), "", st.Label.Render("envelope")}
	if c.RawDropped() {
		// Under the memory cap (model.Action.SetRawCap) the oldest chunks'
		// exact bytes and provider raw_data go; what was decided from them
		// stays.
		const gone = "raw bytes dropped under the memory cap"
		lines = append(lines, "  "+st.Dim.Render(gone), "", st.Label.Render("raw_data"), "  "+st.Dim.Render(gone))
		m.raw.lines = lines
		m.rawScroll(0)
		return
	}
	pretty, _ := render.PrettyJSON(string(c.Raw))
	lines = append(lines, render.WrapIndent(pretty, w, "  ")...)
	lines = append(lines, "", st.Label.Render("raw_data"))
	if rd, ok := c.ProviderRaw(); ok {
		raw := render.Clean(rd)
		if strings.TrimSpace(raw) == "" {
			lines = append(lines, "  "+st.Dim.Render("(empty)"))
		} else {
			lines = append(lines, render.WrapIndent(raw, w, "  ")...)
		}
	} else {
		lines = append(lines, "  "+st.Dim.Render("(none: not a Hermes provider frame)"))
	}
	m.raw.lines = lines
	m.rawScroll(0)
}

package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

// View draws the live view in a cell of width x height (the component's
// contract: its host gives it its size). It assembles only the visible
// rows: the transcript's lines come pre-rendered from its cache. A size
// that changed since the last frame re-lays it out first (SetSize, which
// hosts call from Update, makes that a no-op).
func (m *Live) View(width, height int) string {
	if width != m.width || height != m.height {
		m.resize(width, height) // its Markdown jobs wait for the next Update
	}
	m.in = m.barInput() // what the status bar and the title show, read once a frame
	return m.render(m.in)
}

// A Row is one row of a live view's frame in its two parts, drawn side by
// side: its lead (the transcript's gutter, a tool row's indent; often
// "") and its text. Each part passed safe.Row; neither is scrubbed.
type Row struct{ Lead, Text string }

// Rows draws the view in a cell of width x height as View does, as rows
// (at most height): View's frame is these rows, each its lead then its
// text, joined by newlines and scrubbed whole (safe.Scrub). A host that
// draws them into a frame of its own scrubs that frame (design §5), and
// compares a row with the one it kept without cutting a frame into rows
// again (the split view's boxes, design §12). The slice is the view's,
// drawn over by its next View or Rows: a host keeps the Rows, not the
// slice.
func (m *Live) Rows(width, height int) []Row {
	if width != m.width || height != m.height {
		m.resize(width, height)
	}
	m.in = m.barInput()
	return m.draw(m.in)
}

// SetSize gives the view its cell; it returns the Markdown renders the
// new width asks for.
func (m *Live) SetSize(width, height int) tea.Cmd {
	if width != m.width || height != m.height {
		m.resize(width, height)
	}
	return tea.Batch(m.markdownCmds()...)
}

// Title is the terminal's title for this view, as of its last frame.
func (m *Live) Title() string {
	if m.in.action == nil { // no frame yet
		m.in = m.barInput()
	}
	return "aipwatch " + render.Line(m.opts.ActionID) + " · " + m.bar.badgeWord(&m.in)
}

// Mouse: the view scrolls with the wheel (off in the plain view, which
// gives the terminal's selection back).
func (m *Live) Mouse() bool { return !m.plain }

// Cursor is where the terminal's cursor stands in the view's cell (the
// search query line), or nil; content is the view's last frame.
func (m *Live) Cursor(content string) *tea.Cursor {
	return m.CursorIn(strings.Count(content, "\n") + 1)
}

// CursorIn is Cursor for a last frame of n rows (drawn by Rows).
func (m *Live) CursorIn(n int) *tea.Cursor {
	if m.mode != ModeSearch || m.width <= 0 || m.height < 8 || m.width < 24 {
		return nil
	}
	_, x := m.searchLine()
	return tea.NewCursor(x, min(n-1, m.height-1))
}

// startLine is the one line shown while attaching, and its keys (dim) in
// full and short.
func (m *Live) startLine() (line, keys, short string) {
	st := m.st
	if c := m.conn(); c.Phase == model.ConnReconnecting {
		next := model.WaitLeft(c.Wait - m.clock().Sub(c.Since))
		s := fmt.Sprintf("aipwatch: aipd not reachable (attempt %d, next try %s)", c.Attempt, next)
		if c.Cause != "" {
			s += ": " + render.Untrusted(c.Cause, m.opts.Redact)
		}
		return s, st.Dim.Render(" · ctrl+r retries now · ctrl+c stops"), st.Dim.Render(" · ctrl+r retry")
	}
	keys = st.Dim.Render(" · ctrl+c stops")
	return "aipwatch: connecting to aipd for " + render.Line(m.opts.ActionID) + "…", keys, keys
}

// Render is the screen's text (View's content), for golden tests.
func (m *Live) Render() string { return m.render(m.barInput()) }

// render is the screen's text with in, the status bar's input.
func (m *Live) render(in barInput) string {
	// The last guard of the frame (design §5): no 12-character piece of
	// the token reaches the terminal, whatever the server echoed into a
	// field, even one that only meets another on screen.
	return safe.Scrub(joinRows(m.draw(in)))
}

// draw is the screen's rows with in, the status bar's input.
func (m *Live) draw(in barInput) []Row {
	w, h := m.width, m.height
	sc := &m.scr
	sc.reset(h)
	if w <= 0 || h <= 0 {
		return sc.out
	}
	if w < 24 || h < 8 {
		sc.out = append(sc.out, Row{Text: render.Truncate(fmt.Sprintf("too small: %dx%d", w, h), w, "…")})
		return sc.out
	}
	l := m.layout()
	sc.row(m.head.line(m.width, m.action, m.opts.Redact, m.runTimes()))
	m.bodyRows(sc, l)
	if l.tools > 0 {
		m.toolRows(sc, l.tools)
	}
	sc.row(m.bar.ruleLine(&in, m.ruleInput(l)))
	sc.row(m.bar.statusLine(&in))
	if m.mode == ModeConfirm {
		sc.rows(m.promptLines())
	} else {
		sc.row(m.bar.metersLine(&in))
	}
	sc.rows(m.helpRows())
	return sc.out
}

// screen collects a frame's rows, at most h, each in its parts (no
// string made a row), and joins them into the frame in one builder.
type screen struct {
	out []Row
	h   int
	// lead is the last row's first part of several and its safe.Row: the
	// transcript's gutter, the same string on row after row, is checked
	// once.
	lead, leadRow string
}

func (s *screen) reset(h int) {
	s.out, s.h = s.out[:0], h
}

// row adds one row made of parts. Every part passes safe.Row, the TUI's
// last guard (design §5): our SGR styling stays, any other control, a
// newline too, is a placeholder, so nothing a renderer let through can
// reach the terminal or start a row of its own.
func (s *screen) row(parts ...string) {
	if len(s.out) >= s.h {
		return
	}
	var r Row
	switch len(parts) {
	case 0:
	case 1:
		r.Text = safe.Row(parts[0])
	default:
		if p := parts[0]; p != s.lead || s.leadRow == "" {
			s.lead, s.leadRow = p, safe.Row(p)
		}
		r.Lead, r.Text = s.leadRow, safe.Row(parts[1])
		for _, p := range parts[2:] {
			r.Text += safe.Row(p)
		}
	}
	s.out = append(s.out, r)
}

func (s *screen) rows(rs []string) {
	for _, r := range rs {
		s.row(r)
	}
}

// joinRows is rows as one frame: each row's lead then its text, a
// newline between rows.
func joinRows(rows []Row) string {
	n := max(len(rows)-1, 0)
	for _, r := range rows {
		n += len(r.Lead) + len(r.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(r.Lead)
		b.WriteString(r.Text)
	}
	return b.String()
}

// streamNow is "now" for the times the stream measures (elapsed, tool
// timers, the last byte): the wall clock live; in a --replay the recorded
// time of the latest frame replayed, so that the header and the tool
// timers run on the recording's time (at --speed), not on the time since
// it was made.
func (m *Live) streamNow() time.Time {
	if at := m.conn().LastData; m.opts.Replay && !at.IsZero() {
		return at
	}
	return m.clock()
}

func (m *Live) bodyRows(sc *screen, l layout) {
	st := m.st
	if m.mode == ModeTimeline {
		rows := m.timelineRows(l.body)
		for _, r := range rows[:min(len(rows), l.body)] {
			sc.row(r)
		}
		for i := len(rows); i < l.body; i++ {
			sc.row()
		}
		return
	}
	if m.panel() {
		rows := m.raw.rows(l.body)
		for _, r := range rows {
			sc.row(r)
		}
		for i := len(rows); i < l.body; i++ {
			sc.row()
		}
		return
	}
	total := m.tr.Len()
	if total == 0 {
		pad := strings.Repeat(" ", l.gutter)
		msg := "waiting for the first chunk…"
		if m.runDone() {
			msg = "no chunks were retained for this action"
		} else if why := m.action.NoChunksYet(m.clock().Sub(m.started)); why != "" && !m.review() {
			msg = why // design §14: a fleet's async or sync action records none
		}
		n := 0
		for _, line := range render.Wrap(msg, max(m.width-l.gutter-1, 10)) {
			if n >= l.body {
				break
			}
			sc.row(pad, st.Dim.Render(line))
			n++
		}
		if m.stopped() {
			// The error that stopped the run, whole: the status bar has
			// one line for it, cut at the terminal's width.
			sc.row()
			n++
			for _, line := range render.Wrap(errText(m.fatal(), m.opts.Redact), max(m.width-l.gutter-1, 10)) {
				if n >= l.body {
					break
				}
				sc.row(pad, st.Error.Render(line))
				n++
			}
		}
		for i := n; i < l.body; i++ {
			sc.row()
		}
		return
	}
	fi := m.focusIndex()
	fStart, fN := m.tr.Span(fi)
	mark, blank := m.tr.Gutter(l.gutter)
	top := m.tr.Top()
	lines := m.tr.Visible(l.body)
	for k, line := range lines {
		i := top + k
		switch {
		case l.gutter == 0:
			sc.row(line)
		case i >= fStart && i < fStart+fN:
			sc.row(mark, line)
		case line != "":
			sc.row(blank, line)
		default:
			sc.row()
		}
	}
	for i := len(lines); i < l.body; i++ {
		sc.row()
	}
}

func (m *Live) toolRows(sc *screen, n int) {
	st := m.st
	tools := m.action.Tools()
	running := 0
	for _, t := range tools {
		if t.Status != model.ToolCompleted {
			running++
		}
	}
	title := "tools · " + render.Plural(len(tools), "call", "calls")
	if running > 0 && !m.action.Settled() {
		title += fmt.Sprintf(" · %d running", running)
	}
	if rows := n - 1; len(tools) > rows {
		if off := m.toolOffset(rows); off > 0 {
			end := len(tools) - off
			title += fmt.Sprintf(" · %d–%d shown", end-rows+1, end)
		} else {
			title += fmt.Sprintf(" · last %d shown", rows)
		}
	}
	sc.row(m.bar.chrome().rule(m.width, title, "t hides"))
	now := m.streamNow()
	frame := int(m.clock().UnixMilli() / 100)
	tr := st.ToolRows(tools, render.ToolOptions{
		Now: now, Width: m.width - 1, Frame: frame, Settled: m.action.Settled(), Redact: m.opts.Redact,
		Offset: m.toolOffset(n - 1), Query: m.tr.Query(), CurID: m.search.curTool, CurOrd: m.search.curToolOrd,
		Duration: m.action.ToolDuration,
	}, n-1)
	for _, r := range tr {
		sc.row(" ", r)
	}
}

type segment struct {
	text string
	prio int // higher stays longer when the line is short
}

// fitSegments joins segments in order, leaving out the lowest priorities
// until the line fits.
func fitSegments(segs []segment, sep string, w int) string {
	for {
		n := len(sep) * max(len(segs)-1, 0)
		for _, s := range segs {
			n += len(s.text)
		}
		var b strings.Builder
		b.Grow(n)
		for i, s := range segs {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(s.text)
		}
		line := b.String()
		if render.Width(line) <= w || len(segs) <= 1 {
			return render.Truncate(line, w, "…")
		}
		lo := 0
		for i, s := range segs {
			if s.prio < segs[lo].prio {
				lo = i
			}
		}
		segs = append(segs[:lo:lo], segs[lo+1:]...)
	}
}

// promptLines is the cancel confirmation: it names the action and says what
// a cancel is and is not.
func (m *Live) promptLines() []string {
	w := max(m.width-2, 10)
	if m.rec.pending { // R's confirmation (ui/reconcile.go): y or n, nothing to type
		return m.promptBox(fitLines(w, 4, m.reconcilePrompt()...))
	}
	id := render.Line(m.opts.ActionID)
	if m.opts.Context != "" {
		id += " on " + render.Line(m.opts.Context)
	}
	// The longest explanation that fits in three lines: on a narrow
	// terminal the warning is said shorter, never cut mid-sentence.
	lines := fitLines(w, 3,
		fmt.Sprintf("Cancel action %s? This is a cooperative stop: effects may already exist "+
			"(tool calls, messages, writes) and are not undone. n or esc keeps it running.", id),
		fmt.Sprintf("Cancel action %s? A cooperative stop: effects may already exist and are not undone. "+
			"n/esc: keep running.", id),
		fmt.Sprintf("Cancel %s? Effects already made are not undone. n/esc: keep.", id),
	)
	word := render.Line(m.confirmWord())
	typed := render.Line(m.confirmInput)
	field := "[" + typed + strings.Repeat("·", max(len([]rune(word))-len([]rune(typed)), 0)) + "]"
	// The longest form that fits: on a narrow terminal what to type and
	// what was typed must stay visible, the explanation goes first.
	bad, short := "", ""
	if m.confirmBad {
		bad, short = "  (does not match)", " (no match)"
	}
	asks := []string{
		fmt.Sprintf("To send it, type the ID's last %d characters, %s, then enter: %s%s", len([]rune(word)), word, field, bad),
		fmt.Sprintf("Type %s, then enter: %s%s", word, field, bad),
		fmt.Sprintf("Type %s, then enter: %s%s", word, field, short),
		fmt.Sprintf("%s + enter: %s%s", word, field, short),
	}
	ask := asks[len(asks)-1]
	for _, a := range asks {
		if render.Width(a) <= w {
			ask = a
			break
		}
	}
	lines = append(lines, render.Truncate(ask, w, "…"))
	return m.promptBox(lines)
}

// promptBox draws the confirmation's lines in the prompt's style.
func (m *Live) promptBox(lines []string) []string {
	for i, l := range lines {
		lines[i] = m.st.Prompt.Render(" " + render.Fit(l, max(m.width-2, 1)) + " ")
	}
	return lines
}

// fitLines wraps the first text that takes at most n lines of width w, or
// the last one cut to n lines.
func fitLines(w, n int, texts ...string) []string {
	var lines []string
	for _, t := range texts {
		if lines = render.Wrap(t, w); len(lines) <= n {
			return lines
		}
	}
	return lines[:n]
}

func (m *Live) helpRows() []string {
	if m.mode == ModeSearch {
		line, _ := m.searchLine()
		return []string{line}
	}
	if m.mode == ModeExport {
		return []string{m.exportLine()}
	}
	if m.showHelp {
		// Too long for the screen: a window, and a line that says so.
		return m.help.window(m.helpLines(), m.helpRoom(), m.width)
	}
	if m.notice != "" && m.mode == ModeNormal {
		s := m.st.Warn
		if m.noticeOK {
			s = m.st.Note
		}
		return []string{render.Truncate(s.Render(render.Line(m.notice)), m.width, "…")}
	}
	if m.opts.Pane {
		return []string{""} // the split's key line says the keys
	}
	return m.help.shortLine(m.keys, m.keyContext(), m.width)
}

// HelpLine is the one help line of the view's keys now, at width (a
// split view shows its focused pane's while that pane asks for a
// confirmation or a query).
func (m *Live) HelpLine(width int) string {
	return m.help.shortLine(m.keys, m.keyContext(), width)[0]
}

// StatusLine is the view's status line alone (the verdict badge and what
// backs it), at the view's width: a pane shrunk to one row shows it.
func (m *Live) StatusLine() string {
	in := m.barInput()
	return safe.Scrub(safe.Row(m.bar.statusLine(&in)))
}

// helpLines is the ? view: every binding that works here, in as many
// columns as fit, and what a detach prints.
func (m *Live) helpLines() []string {
	return m.help.lines(m.keys, m.keyContext(), m.width, m.action.Cursor, m.detachLine)
}

// detachLine is the overlay's last line: what a detach prints (nothing
// once the action settled: then q quits, nothing to resume).
func (m *Live) detachLine() string {
	if m.opts.Resume == nil || m.action.Settled() || m.nothingSeen() {
		return "" // nothing of an action aipd has no record of to resume
	}
	cmd := m.opts.Resume(m.action.Cursor)
	return m.st.Dim.Render("q detaches (the action keeps running); resume with: ") + render.Line(cmd)
}

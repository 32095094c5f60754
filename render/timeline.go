package render

import (
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"aipwatch/model"
	"aipwatch/safe"
)

// The timeline (design §16): the turn on one time axis, a row a kind of
// moment, drawn from model.TurnTimeline in the cell its caller gives it.
// Stateless: the caller passes the timeline, the width and the window
// (its zoom), and nothing is kept between frames. Every mark and bar says
// what it is with a glyph or a letter, so a terminal without colour
// (NO_COLOR) reads it as well; colour only repeats it.

// TimelineLabelW is the width of the label column on the left.
const TimelineLabelW = 11

// TimelineOptions shape one drawing of the timeline.
type TimelineOptions struct {
	Width int
	// From and To are the window of the axis shown (its zoom); zero
	// times show the whole axis.
	From, To time.Time
	// MaxRows is the most rows drawn (0: no limit): the tools that do not
	// fit are counted on a row of their own.
	MaxRows int
}

// Cell classes: how a cell is coloured.
type tlClass uint8

const (
	tlPlain tlClass = iota
	tlDim
	tlText
	tlOK
	tlRunning
	tlWarn
	tlError
	tlVerdict
)

// tlRow is one row of cells under construction.
type tlRow struct {
	cells []rune
	class []tlClass
}

func newRow(n int) tlRow {
	r := tlRow{cells: make([]rune, n), class: make([]tlClass, n)}
	for i := range r.cells {
		r.cells[i] = ' '
	}
	return r
}

// put writes s from column c on, as far as the row goes (one cell a rune:
// the caller passes one-cell text only).
func (r tlRow) put(c int, s string, cl tlClass) {
	for _, ch := range s {
		if c >= 0 && c < len(r.cells) {
			r.cells[c], r.class[c] = ch, cl
		}
		c++
	}
}

// free reports whether the columns c to c+n-1 are inside the row and blank.
func (r tlRow) free(c, n int) bool {
	if c < 0 || c+n > len(r.cells) {
		return false
	}
	for i := c; i < c+n; i++ {
		if r.cells[i] != ' ' {
			return false
		}
	}
	return true
}

// Timeline draws the timeline as rows of width cells: the time ticks, the
// first token, the text as bursts, a bar a tool call, the connection's
// and the cancel's marks, the token rate and the verdict, then a legend.
func (st *Styles) Timeline(tl model.TurnTimeline, o TimelineOptions) []string {
	w := o.Width
	if w <= TimelineLabelW+8 {
		return []string{Truncate("timeline: too narrow", max(w, 0), "…")}
	}
	if !tl.Known {
		return []string{st.Dim.Render("timeline: no time known yet (no chunk, no started_at)")}
	}
	from, to := o.From, o.To
	if from.IsZero() || to.IsZero() || !to.After(from) {
		from, to = tl.From, tl.To
	}
	n := w - TimelineLabelW - 1
	sc := model.Scale{From: from, To: to, Cells: n}
	var out []string
	add := func(label string, r tlRow) {
		out = append(out, st.Dim.Render(Fit(label, TimelineLabelW))+" "+st.cells(r, tl.Verdict))
	}

	add("", st.ticks(tl, sc))
	if tl.HasFirstToken && sc.Contains(tl.FirstToken) {
		r := newRow(n)
		c := sc.Col(tl.FirstToken)
		r.put(c, "▲", tlWarn)
		txt := " " + model.HumanDuration(tl.FirstTokenAfter)
		if c+1+len(txt) <= n {
			r.put(c+1, txt, tlDim)
		} else {
			r.put(c-len(txt), txt, tlDim)
		}
		add("first token", r)
	}
	if len(tl.Text) > 0 {
		cells := tl.TextCells(sc)
		vals := make([]float64, len(cells))
		for i, b := range cells {
			vals[i] = float64(b)
		}
		top := peak(vals)
		r := newRow(n)
		for i, v := range vals {
			if v > 0 {
				r.cells[i], r.class[i] = glyph(v, top), tlText
			}
		}
		add("text", r)
	}

	// The tools, each its bar; the ones that do not fit are counted.
	fixed := len(out) + 4 // connection, cancel, rate, verdict: at most
	room := len(tl.Tools)
	if o.MaxRows > 0 {
		room = max(o.MaxRows-fixed-1, 1)
	}
	outcomes := map[model.ToolOutcome]bool{}
	var inWindow []model.ToolSpan
	for _, t := range tl.Tools {
		if !t.End.Before(from) && !t.Start.After(to) { // else outside the window
			inWindow = append(inWindow, t)
		}
	}
	shown := 0
	for _, t := range inWindow {
		if shown == room && len(inWindow) > room {
			break
		}
		outcomes[t.Outcome] = true
		add(ToolName(&model.Tool{Name: t.Name}), toolBar(t, sc, from, to))
		shown++
	}
	if hidden := len(inWindow) - shown; hidden > 0 {
		add("", textRow(n, "+"+Plural(hidden, "tool call", "tool calls")+" not shown here", tlDim))
	}

	for _, conn := range []bool{true, false} {
		label := "cancel"
		if conn {
			label = "connection"
		}
		if r, words, ok := markRow(tl, sc, conn); ok {
			add(label, r)
			if words != "" {
				add("", textRow(n, Truncate(words, n, "…"), tlDim))
			}
		}
	}
	rates := tl.RateCells(sc)
	if top := peak(rates); top > 0 {
		r := newRow(n)
		for i, v := range rates {
			if !math.IsNaN(v) {
				r.cells[i], r.class[i] = glyph(v, top), tlText
			}
		}
		add("tokens/s", r)
	}
	add("verdict", verdictRow(tl, sc))
	out = append(out, st.legend(tl, outcomes, rates, w))
	if o.MaxRows > 0 && len(out) > o.MaxRows {
		out = out[:o.MaxRows]
	}
	return out
}

// textRow is a row holding s from its first column.
func textRow(n int, s string, cl tlClass) tlRow {
	r := newRow(n)
	r.put(0, s, cl)
	return r
}

// ticks is the row of time labels: from the axis's start, at a round step
// that leaves room for each label.
func (st *Styles) ticks(tl model.TurnTimeline, sc model.Scale) tlRow {
	r := newRow(sc.Cells)
	span := sc.To.Sub(sc.From)
	if span <= 0 {
		r.put(0, "0s", tlDim)
		return r
	}
	const gap = 10 // cells between labels, at least
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if float64(s)/float64(span)*float64(sc.Cells) >= gap {
			step = s
			break
		}
	}
	// The first tick at or after the window's start, counted from the
	// axis's start (a zoomed window still says the turn's time).
	off := sc.From.Sub(tl.From)
	k := (off + step - 1) / step
	for d := k * step; ; d += step {
		t := tl.From.Add(d)
		if t.After(sc.To) {
			break
		}
		label := tickLabel(d)
		c := sc.Col(t)
		if c+len(label) > sc.Cells {
			break
		}
		if r.free(max(c-1, 0), len(label)+1) || c == 0 {
			r.put(c, label, tlDim)
		}
	}
	return r
}

// tickSteps are the round steps between time labels.
var tickSteps = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour,
}

// tickLabel is a tick's time since the start: 0s, 250ms, 1.5s, 12s, 2m,
// 2m30s, 1h, 1h30m.
func tickLabel(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute && d%time.Second != 0:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d < time.Hour:
		s := strconv.FormatInt(int64(d/time.Minute), 10) + "m"
		if sec := d % time.Minute / time.Second; sec != 0 {
			s += strconv.FormatInt(int64(sec), 10) + "s"
		}
		return s
	}
	s := strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	if m := d % time.Hour / time.Minute; m != 0 {
		s += strconv.FormatInt(int64(m), 10) + "m"
	}
	return s
}

// ToolGlyph is the sign of a tool call's outcome beside its letter.
func ToolGlyph(o model.ToolOutcome) string {
	return [...]string{"✓", "⟳", "?", "✗", "·"}[o]
}

// toolBar is a tool call's row: ├──── C ✓ 3.1s ────┤ from its start to
// its end, its letter always drawn (on a bar of one cell the letter
// alone); a bar cut by the window has no cap on that side.
func toolBar(t model.ToolSpan, sc model.Scale, from, to time.Time) tlRow {
	r := newRow(sc.Cells)
	cl := outcomeClass(t.Outcome)
	c0, c1 := t.Columns(sc)
	for c := c0; c <= c1; c++ {
		r.cells[c], r.class[c] = '─', cl
	}
	if !t.Start.Before(from) {
		r.cells[c0] = '├'
	}
	if !t.End.After(to) {
		r.cells[c1] = '┤'
	}
	letter := string(t.Outcome.Letter())
	long := " " + letter + " " + ToolGlyph(t.Outcome) + " " + model.HumanDuration(t.Duration()) + " "
	inner := c1 - c0 - 1
	switch n := len([]rune(long)); {
	case inner >= n:
		r.put(c0+1+(inner-n)/2, long, cl)
	case c1 == c0:
		r.put(c0, letter, cl)
		if r.free(c1+1, n) {
			r.put(c1+1, long, cl)
		}
	case inner >= 1:
		r.put(c0+1, letter, cl)
		if r.free(c1+1, n) {
			r.put(c1+1, long[2:], cl) // the letter is on the bar already
		}
	default: // two cells: the letter on the second
		r.put(c1, letter, cl)
		if r.free(c1+1, n) {
			r.put(c1+1, long[2:], cl)
		}
	}
	return r
}

func outcomeClass(o model.ToolOutcome) tlClass {
	switch o {
	case model.ToolOutcomeCompleted:
		return tlOK
	case model.ToolOutcomeRunning:
		return tlRunning
	case model.ToolOutcomeFailed:
		return tlError
	case model.ToolOutcomeUnfinished:
		return tlWarn
	}
	return tlDim
}

// MarkGlyph is a mark's sign on the axis.
func MarkGlyph(m model.TimeMark) string {
	switch m.Kind {
	case model.MarkReconnect:
		return "↯"
	case model.MarkResume:
		return "↻"
	case model.MarkRestart:
		return "⟲"
	case model.MarkCancelRequest:
		return "⊘"
	case model.MarkCancelReply:
		if m.Accepted {
			return "✓"
		}
		return "✗"
	}
	return "■"
}

// markRow draws the connection's marks (conn) or the cancel's, and beside
// them what they were ("lost 5.1s, resumed 6.0s") when that fits; when it
// does not, words is it, for a row of its own.
func markRow(tl model.TurnTimeline, sc model.Scale, conn bool) (r tlRow, words string, ok bool) {
	r = newRow(sc.Cells)
	var marks []model.TimeMark
	for _, m := range tl.Marks {
		if m.Kind.Connection() == conn {
			marks = append(marks, m)
		}
	}
	if len(marks) == 0 {
		return r, "", false
	}
	last := -1
	for _, m := range marks {
		if !sc.Contains(m.At) {
			continue
		}
		c := sc.Col(m.At)
		cl := tlWarn
		if m.Kind == model.MarkResume || m.Kind == model.MarkCancelReply && m.Accepted {
			cl = tlOK
		}
		if m.Kind == model.MarkCancelled {
			cl = tlVerdict
		}
		r.put(c, MarkGlyph(m), cl)
		last = max(last, c)
	}
	// The words: after the last mark when they fit, else before the
	// first, else on a row of their own.
	words = MarksText(tl, marks)
	nw := len([]rune(words))
	first := sc.Cells
	for _, m := range marks {
		if sc.Contains(m.At) {
			first = min(first, sc.Col(m.At))
		}
	}
	switch {
	case last < 0:
		words = "(outside the window) " + words
	case last+2+nw <= sc.Cells:
		r.put(last+2, words, tlDim)
		words = ""
	case first-1-nw >= 0:
		r.put(first-1-nw, words, tlDim)
		words = ""
	}
	return r, words, true
}

// MarksText says marks in words, each with its time since the axis's
// start: "lost 5.1s, resumed 6.0s" or "cancel asked 5.1s, accepted 5.2s,
// cancelled 5.9s (0.8s after)".
func MarksText(tl model.TurnTimeline, marks []model.TimeMark) string {
	var b strings.Builder
	var asked time.Time
	for i, m := range marks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Word() + " " + model.HumanDuration(m.At.Sub(tl.From)))
		switch m.Kind {
		case model.MarkCancelRequest:
			asked = m.At
		case model.MarkCancelled:
			if !asked.IsZero() {
				b.WriteString(" (" + model.HumanDuration(m.At.Sub(asked)) + " after)")
			}
		}
	}
	return b.String()
}

// verdictRow puts the verdict at the axis's end, its sign on the end's
// column and its words before it: "VERIFIED 11s ■", or the live word and
// ▶ at now while the turn runs.
func verdictRow(tl model.TurnTimeline, sc model.Scale) tlRow {
	r := newRow(sc.Cells)
	sign := "■"
	if tl.Live {
		sign = "▶"
	}
	word := tl.Verdict
	if tl.Final {
		word = upper(word)
	}
	if !sc.Contains(tl.To) {
		s := "later: " + word + " " + model.HumanDuration(tl.To.Sub(tl.From)) + " ›"
		r.put(max(sc.Cells-len([]rune(s)), 0), s, tlVerdict)
		return r
	}
	c := sc.Col(tl.To)
	words := word + " " + model.HumanDuration(tl.To.Sub(tl.From))
	n := len([]rune(words))
	switch {
	case c-1-n >= 0:
		r.put(c-1-n, words, tlVerdict)
	case c+2+n <= sc.Cells:
		r.put(c+2, words, tlVerdict)
	}
	r.put(c, sign, tlVerdict)
	return r
}

// legend is the last row: the letters of the outcomes drawn and the
// token rate's peak.
func (st *Styles) legend(tl model.TurnTimeline, outcomes map[model.ToolOutcome]bool, rates []float64, w int) string {
	var parts []string
	for o := model.ToolOutcomeCompleted; o <= model.ToolOutcomeOther; o++ {
		if outcomes[o] {
			parts = append(parts, string(o.Letter())+" "+o.Word())
		}
	}
	if top := peak(rates); top > 0 {
		s := "peak " + Compact(top) + " tokens/s"
		if tl.RateEstimated {
			s += " (estimated)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return st.Dim.Render(Truncate(strings.Repeat(" ", TimelineLabelW+1)+strings.Join(parts, " · "), w, "…"))
}

// cells draws a row, one style a run of cells of one class.
func (st *Styles) cells(r tlRow, verdict string) string {
	var b strings.Builder
	for i := 0; i < len(r.cells); {
		j := i
		for j < len(r.cells) && r.class[j] == r.class[i] {
			j++
		}
		s := safe.Line(string(r.cells[i:j]))
		switch r.class[i] {
		case tlDim:
			s = st.Dim.Render(s)
		case tlText:
			s = st.Role.Render(s)
		case tlOK:
			s = st.OK.Render(s)
		case tlRunning:
			s = st.Running.Render(s)
		case tlWarn:
			s = st.Warn.Render(s)
		case tlError:
			s = st.Error.Render(s)
		case tlVerdict:
			s = st.verdictStyle(verdict).Render(s)
		}
		b.WriteString(s)
		i = j
	}
	return b.String()
}

// verdictStyle is a verdict word's colour, bold.
func (st *Styles) verdictStyle(word string) lipgloss.Style {
	s := lipgloss.NewStyle().Bold(true)
	if st.Color {
		s = s.Foreground(ansi16(BadgeColor(word)))
	}
	return s
}

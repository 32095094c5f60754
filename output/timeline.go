package output

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// The timeline of the exports (design §16): model.TurnTimeline, on the
// axis geometry of model.Scale, as a small text chart (the Markdown
// export) and in words (the HTML report's text for screen readers, under
// its SVG). The terminal's chart is render.Timeline; these are the
// exports' own, plain forms.

// chartLabelW is the label column of the text chart.
const chartLabelW = 11

// chartWidth is the text chart's width in cells: it fits 80 columns.
const chartWidth = 78

var chartLevels = []rune("▁▂▃▄▅▆▇█")

// timelineChart is the timeline as rows of plain text, width cells wide
// at most: time ticks, the text as bursts, a bar a tool call (its
// outcome's letter on it), the connection's and the cancel's marks, and
// the verdict at the end. Tool names are untrusted: the caller fences the
// rows.
func timelineChart(tl model.TurnTimeline, width int) []string {
	n := width - chartLabelW - 1
	if !tl.Known || n < 10 {
		return nil
	}
	sc := model.Scale{From: tl.From, To: tl.To, Cells: n}
	var rows []string
	add := func(label string, cells []rune) {
		rows = append(rows, strings.TrimRight(fitLabel(label)+" "+string(cells), " "))
	}
	blank := func() []rune { return []rune(strings.Repeat(" ", n)) }
	put := func(r []rune, c int, s string) {
		for _, ch := range s {
			if c >= 0 && c < len(r) {
				r[c] = ch
			}
			c++
		}
	}

	// Ticks: a label every 10 cells or more, at round times.
	ticks := blank()
	step := tickStep(tl.To.Sub(tl.From), n)
	for d := time.Duration(0); step > 0 && d <= tl.To.Sub(tl.From); d += step {
		c := sc.Col(tl.From.Add(d))
		label := tickText(d)
		if c+len(label) > n || (c > 0 && ticks[c-1] != ' ') {
			continue
		}
		put(ticks, c, label)
	}
	add("", ticks)

	if tl.HasFirstToken {
		r := blank()
		c := sc.Col(tl.FirstToken)
		put(r, c, "^ "+model.HumanDuration(tl.FirstTokenAfter))
		add("first token", r)
	}
	if len(tl.Text) > 0 {
		cells := tl.TextCells(sc)
		top := 0
		for _, b := range cells {
			top = max(top, b)
		}
		r := blank()
		for i, b := range cells {
			if b > 0 {
				r[i] = chartLevels[min(max((b*len(chartLevels)+top-1)/top-1, 0), len(chartLevels)-1)]
			}
		}
		add("text", r)
	}
	for _, t := range tl.Tools {
		r := blank()
		c0, c1 := t.Columns(sc)
		for c := c0; c <= c1; c++ {
			r[c] = '-'
		}
		r[c0], r[c1] = '|', '|'
		label := string(t.Outcome.Letter()) + " " + model.HumanDuration(t.Duration())
		if c1-c0-1 >= len(label)+2 {
			put(r, c0+1+(c1-c0-1-len(label))/2, label)
		} else {
			r[c0] = rune(t.Outcome.Letter())
			if d := model.HumanDuration(t.Duration()); c1+2+len(d) <= n {
				put(r, c1+2, d)
			}
		}
		add(safe.Line(t.Name), r) // one line: the row stays a row
	}
	for _, conn := range []bool{true, false} {
		var r []rune
		for _, m := range tl.Marks {
			if m.Kind.Connection() != conn {
				continue
			}
			if r == nil {
				r = blank()
			}
			put(r, sc.Col(m.At), markSign(m))
		}
		if r != nil {
			if conn {
				add("connection", r)
			} else {
				add("cancel", r)
			}
		}
	}
	r := blank()
	end := strings.ToUpper(tl.Verdict) + " " + model.HumanDuration(tl.To.Sub(tl.From)) + " ■"
	put(r, max(n-len([]rune(end)), 0), end)
	add("verdict", r)
	var legend []string
	seen := map[model.ToolOutcome]bool{}
	for _, t := range tl.Tools {
		if !seen[t.Outcome] {
			seen[t.Outcome] = true
			legend = append(legend, string(t.Outcome.Letter())+" "+t.Outcome.Word())
		}
	}
	pad := strings.Repeat(" ", chartLabelW+1)
	if len(legend) > 0 {
		rows = append(rows, pad+strings.Join(legend, ", "))
	}
	// The marks drawn, each once, in the order of markSigns.
	var marks []string
	for _, sign := range markSigns {
		for _, m := range tl.Marks {
			if markSign(m) == sign {
				marks = append(marks, sign+" "+m.Word())
				break
			}
		}
	}
	if len(marks) > 0 {
		rows = append(rows, pad+strings.Join(marks, ", "))
	}
	return rows
}

// fitLabel is a label cut or padded to the label column.
func fitLabel(s string) string {
	r := []rune(s)
	if len(r) > chartLabelW {
		return string(r[:chartLabelW-1]) + "…"
	}
	return s + strings.Repeat(" ", chartLabelW-len(r))
}

// tickStep is a round step that puts a label every 10 cells or more.
func tickStep(span time.Duration, cells int) time.Duration {
	if span <= 0 || cells <= 0 {
		return 0
	}
	for _, s := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
		500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
		time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour} {
		if float64(s)/float64(span)*float64(cells) >= 10 {
			return s
		}
	}
	return span
}

// markSigns are the marks' signs in the text chart, in the legend's order.
var markSigns = []string{"!", ">", "x", "+", "-", "#"}

// markSign is a mark's sign in the text chart (ASCII, the legend says it).
func markSign(m model.TimeMark) string {
	switch m.Kind {
	case model.MarkReconnect:
		return "!"
	case model.MarkResume, model.MarkRestart:
		return ">"
	case model.MarkCancelRequest:
		return "x"
	case model.MarkCancelReply:
		if m.Accepted {
			return "+"
		}
		return "-"
	}
	return "#"
}

// timelineWords is the timeline in sentences, in time order, each with
// its time since the start: the text for readers of the HTML report who
// do not see its picture. Tool names are untrusted.
func timelineWords(tl model.TurnTimeline) []string {
	if !tl.Known {
		return []string{"No time of the turn is known (no chunk, no started_at)."}
	}
	at := func(t time.Time) string { return model.HumanDuration(t.Sub(tl.From)) }
	type line struct {
		t time.Time
		s string
	}
	var ls []line
	ls = append(ls, line{tl.From, "0s: the turn started."})
	if tl.HasFirstToken {
		s := at(tl.FirstToken) + ": the first token."
		if tl.FirstTokenAfter != tl.FirstToken.Sub(tl.From) {
			s = at(tl.FirstToken) + ": the first token, " + model.HumanDuration(tl.FirstTokenAfter) + " after the first chunk."
		}
		ls = append(ls, line{tl.FirstToken, s})
	}
	if len(tl.Text) > 0 {
		bytes := 0
		for _, x := range tl.Text {
			bytes += x.Bytes
		}
		ls = append(ls, line{tl.Text[0].At, at(tl.Text[0].At) + " to " + at(tl.Text[len(tl.Text)-1].At) + ": the model's text, " +
			plural(len(tl.Text), "chunk", "chunks") + ", " + plural(bytes, "byte", "bytes") + "."})
	}
	rates := tl.RateCells(model.Scale{From: tl.From, To: tl.To, Cells: 100})
	peak, peakAt := 0.0, 0
	for i, r := range rates {
		if r > peak { // NaN is never above
			peak, peakAt = r, i
		}
	}
	if peak > 0 {
		t := tl.From.Add(tl.To.Sub(tl.From) * time.Duration(peakAt) / 100)
		est := ""
		if tl.RateEstimated {
			est = " (estimated from the text)"
		}
		ls = append(ls, line{t, at(t) + ": the token rate's peak, " + strconv.Itoa(int(peak+0.5)) + " tokens a second" + est + "."})
	}
	for _, t := range tl.Tools {
		ls = append(ls, line{t.Start, at(t.Start) + " to " + at(t.End) + ": the tool call " + t.Name + ", " + t.Outcome.Word() +
			" (" + string(t.Outcome.Letter()) + "), " + model.HumanDuration(t.Duration()) + "."})
	}
	for _, m := range tl.Marks {
		ls = append(ls, line{m.At, at(m.At) + ": " + m.Sentence() + "."})
	}
	end := "the verdict, " + tl.Verdict + "."
	if tl.Live {
		end = "now: the turn is still running (" + tl.Verdict + ")."
	}
	ls = append(ls, line{tl.To, at(tl.To) + ": " + end})
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].t.Before(ls[j].t) })
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.s
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// tickText is a tick's time since the start ("0s" at the start, where
// HumanDuration says 0ms).
func tickText(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	return model.HumanDuration(d)
}

package render

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/model"
)

// Any timeline, in any window of it, at any width from 20 columns: every
// row fits the width, every tool in the window has its row in the order
// of the starts, with its letter and its bar inside the chart.
func TestPropertyTimelineRowsFit(t *testing.T) {
	t.Parallel()
	st := NewStyles(false)
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rapid.Check(t, func(rt *rapid.T) {
		span := time.Duration(rapid.Int64Range(0, int64(10*time.Minute)).Draw(rt, "span"))
		tl := model.TurnTimeline{From: base, To: base.Add(span), Known: true, Verdict: "verified", Final: true, TokensPerByte: 0.25}
		at := func(name string) time.Time {
			if span == 0 {
				return base
			}
			return base.Add(time.Duration(rapid.Int64Range(0, int64(span)).Draw(rt, name)))
		}
		for i := range rapid.IntRange(0, 6).Draw(rt, "tools") {
			s, e := at("start"), at("end")
			if e.Before(s) {
				s, e = e, s
			}
			tl.Tools = append(tl.Tools, model.ToolSpan{ID: strconv.Itoa(i), Name: "tool" + strconv.Itoa(i), Start: s, End: e,
				Outcome: model.ToolOutcome(rapid.IntRange(0, 4).Draw(rt, "outcome"))})
		}
		// Ordered by start, as the model gives them.
		for i := 1; i < len(tl.Tools); i++ {
			for j := i; j > 0 && tl.Tools[j].Start.Before(tl.Tools[j-1].Start); j-- {
				tl.Tools[j], tl.Tools[j-1] = tl.Tools[j-1], tl.Tools[j]
			}
		}
		for range rapid.IntRange(0, 30).Draw(rt, "text") {
			tl.Text = append(tl.Text, model.TextSample{At: at("text"), Bytes: rapid.IntRange(1, 100).Draw(rt, "bytes"), Timed: true})
		}
		for i := 1; i < len(tl.Text); i++ {
			for j := i; j > 0 && tl.Text[j].At.Before(tl.Text[j-1].At); j-- {
				tl.Text[j], tl.Text[j-1] = tl.Text[j-1], tl.Text[j]
			}
		}
		for range rapid.IntRange(0, 4).Draw(rt, "marks") {
			tl.Marks = append(tl.Marks, model.TimeMark{Kind: model.MarkKind(rapid.IntRange(0, 5).Draw(rt, "kind")), At: at("mark")})
		}
		w := rapid.IntRange(20, 200).Draw(rt, "width")
		o := TimelineOptions{Width: w}
		if rapid.Bool().Draw(rt, "zoom") && span > 0 {
			f, e := at("from"), at("to")
			if e.Before(f) {
				f, e = e, f
			}
			o.From, o.To = f, e
		}
		rows := st.Timeline(tl, o)
		from, to := o.From, o.To
		if !to.After(from) {
			from, to = tl.From, tl.To
		}
		n := w - TimelineLabelW - 1
		sc := model.Scale{From: from, To: to, Cells: n}
		next := 0
		for _, r := range rows {
			if cw := ansi.StringWidthWc(r); cw > w {
				rt.Fatalf("row %q is %d cells wide (> %d)", r, cw, w)
			}
			label := strings.TrimSpace(string([]rune(r)[:TimelineLabelW]))
			if !strings.HasPrefix(label, "tool") {
				continue
			}
			for next < len(tl.Tools) && (tl.Tools[next].End.Before(from) || tl.Tools[next].Start.After(to)) {
				next++ // outside the window: no row
			}
			if next >= len(tl.Tools) || label != tl.Tools[next].Name {
				rt.Fatalf("row %q: want the bar of tool %d next (the order of the starts)", r, next)
			}
			cells := []rune(r)[TimelineLabelW+1:]
			c0, c1 := tl.Tools[next].Columns(sc)
			if c0 < 0 || c1 >= n || c1 < c0 {
				rt.Fatalf("bar columns %d–%d outside 0–%d", c0, c1, n-1)
			}
			if !strings.ContainsRune(string(cells), rune(tl.Tools[next].Outcome.Letter())) {
				rt.Fatalf("row %q lacks the letter %c", r, tl.Tools[next].Outcome.Letter())
			}
			if cells[c0] == ' ' || cells[c1] == ' ' {
				rt.Fatalf("row %q: the bar does not cover columns %d–%d", r, c0, c1)
			}
			next++
		}
	})
}

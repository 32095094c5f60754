package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The fixed rows are kept between frames by what they show (the header,
// the rule, the status line: design §12, four panes as smooth as one). A
// kept row must be drawn again when anything it shows changed: in each
// test below, a component that drew the base state and then draws a
// variant gives what a new component draws for that variant, and the
// variant's row differs from the base's (else the case proves nothing). A
// cache key that misses an input fails its case.

// keptRow checks one variant: warm draws base then variant, fresh only
// the variant.
func keptRow(t *testing.T, name string, base, variant func(warm bool) string) {
	t.Helper()
	b := base(true)
	got := variant(true)
	want := variant(false)
	if got != want {
		t.Errorf("%s: the kept row is stale:\n got  %q\n want %q", name, got, want)
	}
	if want == b {
		t.Errorf("%s: the variant draws the base's row %q: the case proves nothing", name, b)
	}
}

// headerRig draws the header of a harness's action with one kept header
// and with a new one each time.
type headerRig struct {
	warm *header
	st   *render.Styles
}

func (r *headerRig) line(warm bool, context string, w int, a *model.Action, redact bool, rt runTimes) string {
	hd := &header{st: r.st, context: context}
	if warm {
		hd = r.warm
		hd.context = context
	}
	return hd.line(w, a, redact, rt)
}

func TestHeaderRowRedrawnWhenItsInputsChange(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		chat := newHarness(t, 120, 30, func(o *Options) { o.NoColor = noColor })
		chat.feed(chatToolsLive(chat.f)...)
		chat.at(5 * time.Second)
		empty := newHarness(t, 120, 30, func(o *Options) { o.NoColor = noColor }) // no chunk: its operation is "…"
		resp := newHarness(t, 160, 30, func(o *Options) { o.NoColor = noColor })
		resp.feed(responsesTools(t, resp.f, false)...)
		settled := newHarness(t, 160, 30, func(o *Options) { o.NoColor = noColor })
		settled.feed(chatToolsDone(t, settled.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))...)
		st := chat.m.st
		a, rt := chat.m.action, chat.m.runTimes()
		later := rt
		later.now = rt.now.Add(3 * time.Second)
		cases := []struct {
			name    string
			variant func(r *headerRig, warm bool) string
		}{
			{"width", func(r *headerRig, warm bool) string { return r.line(warm, "", 100, a, false, rt) }},
			{"elapsed", func(r *headerRig, warm bool) string { return r.line(warm, "", 120, a, false, later) }},
			{"redact", func(r *headerRig, warm bool) string { return r.line(warm, "", 120, a, true, rt) }},
			{"context", func(r *headerRig, warm bool) string { return r.line(warm, "prod", 120, a, false, rt) }},
			{"action ID", func(r *headerRig, warm bool) string {
				id := a.ID
				defer func() { a.ID = id }()
				a.ID = "act_another_one"
				return r.line(warm, "", 120, a, false, rt)
			}},
			{"operation", func(r *headerRig, warm bool) string {
				return r.line(warm, "", 120, empty.m.action, false, rt)
			}},
			{"response ID", func(r *headerRig, warm bool) string {
				return r.line(warm, "", 120, resp.m.action, false, rt)
			}},
			{"endpoint", func(r *headerRig, warm bool) string {
				return r.line(warm, "", 120, settled.m.action, false, rt)
			}},
		}
		for _, c := range cases {
			r := &headerRig{warm: &header{st: st}, st: st}
			keptRow(t, "header "+c.name, func(warm bool) string { return r.line(warm, "", 120, a, false, rt) },
				func(warm bool) string { return c.variant(r, warm) })
		}
		// An elapsed time a cell wider ("7.0s", then "1m07s") leaves a
		// cell less to the left side: at some width it drops a segment.
		minute := rt
		minute.now = rt.now.Add(time.Minute)
		for w := 30; w <= 130; w++ {
			r := &headerRig{warm: &header{st: st}, st: st}
			keptRow(t, "header elapsed wider", func(warm bool) string { return r.line(warm, "", w, a, false, rt) },
				func(warm bool) string { return r.line(warm, "", w, a, false, minute) })
		}
	}
}

// The status line, by what it shows: the verdict's badge and details,
// a review, the countdowns and the width.
func TestStatusRowRedrawnWhenItsInputsChange(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		nc := func(o *Options) { o.NoColor = noColor }
		live := newHarness(t, 120, 30, nc)
		live.feed(chatToolsLive(live.f)...)
		done := newHarness(t, 120, 30, nc)
		done.feed(chatToolsDone(t, done.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))...)
		failed := newHarness(t, 120, 30, nc)
		failed.feed(responsesFailed(t, failed.f, "the upstream said no")...)
		reconn := newHarness(t, 120, 30, nc)
		reconn.feed(chatToolsLive(reconn.f)...)
		reconn.feed(stream.ReconnectingMsg{Attempt: 2, Wait: 5 * time.Second, Cause: "connection reset"})
		st := live.m.st
		base := live.m.barInput()
		cases := []struct {
			name string
			in   func() barInput
		}{
			{"width", func() barInput { in := base; in.width = 12; return in }},
			{"verdict", func() barInput { return done.m.barInput() }},
			{"error detail", func() barInput { return failed.m.barInput() }},
			{"reconnecting", func() barInput { return reconn.m.barInput() }},
			{"countdown", func() barInput { in := reconn.m.barInput(); in.now = in.now.Add(2 * time.Second); return in }},
			{"review", func() barInput { in := base; in.review = true; return in }},
			{"resumes", func() barInput { in := base; in.conn.Resumes = 2; return in }},
			{"appearing", func() barInput { in := base; in.appearBy = in.now.Add(30 * time.Second); return in }},
			{"redact", func() barInput { in := failed.m.barInput(); in.redact = true; return in }},
		}
		for _, c := range cases {
			warm := &statusBar{st: st}
			draw := func(in barInput, w bool) string {
				b := &statusBar{st: st}
				if w {
					b = warm
				}
				return b.statusLine(&in)
			}
			if c.name == "redact" {
				// The base of this case is the failed turn unmasked.
				keptRow(t, "status "+c.name, func(w bool) string { return draw(failed.m.barInput(), w) },
					func(w bool) string { return draw(c.in(), w) })
				continue
			}
			keptRow(t, "status "+c.name, func(w bool) string { return draw(base, w) },
				func(w bool) string { return draw(c.in(), w) })
		}
	}
}

// The transcript's rule, by its position and its follow state (kept
// apart: the position moves with every batch, the follow state seldom).
func TestRuleRowRedrawnWhenItsInputsChange(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		st := render.NewStyles(!noColor)
		in := &barInput{width: 100}
		base := ruleInput{key: ruleKey{width: 100, top: 10, body: 20, total: 200, follow: true, markdown: true}}
		cases := []struct {
			name string
			set  func(r *ruleInput)
		}{
			{"width", func(r *ruleInput) { r.key.width = 80 }},
			{"top", func(r *ruleInput) { r.key.top = 11 }},
			{"body", func(r *ruleInput) { r.key.body = 25 }},
			{"total", func(r *ruleInput) { r.key.total = 201 }},
			{"no lines", func(r *ruleInput) { r.key.total = 0 }},
			{"paused", func(r *ruleInput) { r.key.follow = false }},
			{"new lines", func(r *ruleInput) { r.key.follow, r.key.newLines = false, 3 }},
			{"settled", func(r *ruleInput) { r.key.settled = true }},
			{"stopped", func(r *ruleInput) { r.key.stopped = true }},
			{"plain", func(r *ruleInput) { r.key.plain = true }},
			{"markdown off", func(r *ruleInput) { r.key.markdown = false }},
			{"searching", func(r *ruleInput) { r.searching, r.search = true, "/tok 2/9" }},
		}
		for _, c := range cases {
			v := base
			c.set(&v)
			warm := &statusBar{st: st}
			draw := func(r ruleInput, w bool) string {
				b := &statusBar{st: st}
				if w {
					b = warm
				}
				rin := *in
				rin.width = r.key.width
				return b.ruleLine(&rin, r)
			}
			keptRow(t, "rule "+c.name, func(w bool) string { return draw(base, w) }, func(w bool) string { return draw(v, w) })
		}
	}
}

// A whole live view drawn frame after frame with its rows kept is the
// view drawn anew, through a turn that changes every row's inputs.
func TestKeptRowsDrawWhatANewViewDraws(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{false, true} {
		h := newHarness(t, 100, 24, func(o *Options) { o.NoColor = noColor })
		check := func(step string) {
			t.Helper()
			got := h.m.Render()
			fresh := *h.m.Live
			fresh.head = header{st: fresh.st, context: fresh.opts.Context}
			fresh.bar = statusBar{st: fresh.st}
			if want := fresh.Render(); got != want {
				t.Fatalf("%s (no colour %v): kept rows differ from a new view's:\n got\n%s\nwant\n%s", step, noColor, got, want)
			}
		}
		check("attaching")
		msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
		for i, m := range msgs {
			h.feed(m)
			h.at(time.Duration(i) * 700 * time.Millisecond)
			check("message " + string(rune('a'+i%26)))
		}
		h.press("k", "k")
		check("scrolled up")
		h.m.Update(resize(80, 20))
		check("resized")
		h.press("G")
		check("end")
	}
}

func resize(w, h int) tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} }

// paint writes a style's SGR around a text as Lip Gloss renders it, with
// and without colour; a text Lip Gloss would lay out otherwise goes to
// Lip Gloss.
func TestPaintIsLipGlossRender(t *testing.T) {
	t.Parallel()
	texts := []string{"1–20/200", "12", " · ", "chunks 4012", "a b", "─────", "", "tab\there", "two\nlines", "\x1b[31mred", "é", "↓ 3 new lines"}
	for _, color := range []bool{true, false} {
		st := render.NewStyles(color)
		for _, s := range []lipgloss.Style{st.Dim, st.Rule, st.Warn, st.Header, st.HeaderDim, st.Prompt, st.Note, st.Anomaly} {
			p := newPaint(s)
			for _, x := range texts {
				if got, want := p.Render(x), s.Render(x); got != want {
					t.Errorf("colour %v: paint %q = %q, Lip Gloss %q", color, x, got, want)
				}
			}
		}
		c := newChrome(st)
		for _, w := range []int{10, 40, 80} {
			for _, lr := range [][2]string{{"following", "1–2/3"}, {st.Warn.Render("paused"), ""}, {strings.Repeat("x", 90), "9/9"}} {
				if got, want := c.rule(w, lr[0], lr[1]), lipglossRule(st, w, lr[0], lr[1]); got != want {
					t.Errorf("colour %v: rule at %d = %q, want %q", color, w, got, want)
				}
			}
		}
	}
}

// lipglossRule is the rule as Lip Gloss draws it piece by piece.
func lipglossRule(st *render.Styles, w int, left, right string) string {
	s := st.Rule.Render("── ") + left + " "
	r := ""
	if right != "" {
		r = " " + right + st.Rule.Render(" ──")
	}
	fill := w - render.Width(s) - render.Width(r)
	if fill < 1 {
		return render.Truncate(s+r, w, "…")
	}
	return s + st.Rule.Render(strings.Repeat("─", fill)) + r
}

// The meters keep their "last byte N ago" by the whole seconds it shows:
// a second later it says so, a fraction later it is the same.
func TestMetersLastByteRedrawnEachSecond(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 30)
	h.feed(chatToolsLive(h.f)...)
	base := h.m.barInput()
	if base.conn.LastLive.IsZero() {
		t.Fatal("no last byte")
	}
	for _, d := range []time.Duration{1500 * time.Millisecond, 2 * time.Second, 61 * time.Second, time.Hour} {
		warm := &statusBar{st: h.m.st}
		in := base
		in.now = base.conn.LastLive.Add(d)
		keptRow(t, "meters "+d.String(), func(w bool) string {
			b := &statusBar{st: h.m.st}
			if w {
				b = warm
			}
			x := base
			x.now = base.conn.LastLive.Add(300 * time.Millisecond)
			return b.metersLine(&x)
		}, func(w bool) string {
			b := &statusBar{st: h.m.st}
			if w {
				b = warm
			}
			return b.metersLine(&in)
		})
	}
}

// A row's first part (the gutter) is checked once while it repeats, and
// every part still reaches the frame through safe.Row.
func TestScreenRowsGuardEveryPart(t *testing.T) {
	t.Parallel()
	var sc screen
	sc.reset(5)
	bad, other := "\x1b]0;x\x07▎", "\u202e│"
	sc.row(bad, "a")
	sc.row(bad, "b\x07")
	sc.row(other, "c")
	sc.row(bad, "d")
	sc.row("\x1b[31m")
	want := strings.Join([]string{safe.Row(bad) + "a", safe.Row(bad) + safe.Row("b\x07"), safe.Row(other) + "c", safe.Row(bad) + "d", "\x1b[31m"}, "\n")
	if got := joinRows(sc.out); got != want {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
	if strings.ContainsAny(want, "\x07\u202e") {
		t.Fatalf("a control reached the frame: %q", want)
	}
}

package output

// The HTML report (e in the TUI, --export FILE.html; design §16): one
// self-contained file to attach to a ticket. It holds no script, loads
// nothing (no external resource, no URL at all: its Content-Security-Policy
// forbids every load besides its own inline style) and has no
// event-handler attribute; every untrusted byte (model text, tool names,
// arguments and results, error details, IDs) goes through safe.HTMLText or
// safe.HTMLBlock, so it is text, never markup. It shows the verdict and
// its reasons, the timeline as an inline SVG with its text for screen
// readers, the transcript, the tools with their arguments and results,
// cost and timing, the connection timeline, the anomalies, and the
// commands that resume and reconcile. Under Redact it masks what the
// Markdown export masks. Light and dark readers: its CSS follows
// prefers-color-scheme.

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// HTMLOptions shape an HTML report: the Markdown export's options, and
// the commands the report offers.
type HTMLOptions struct {
	MarkdownOptions
	// Resume is the command that follows the action again from its cursor
	// ("" = `aipwatch ID`); Reconcile the one that reads its stored state
	// ("" = `aipwatch reconcile ID`).
	Resume, Reconcile string
}

// HTML renders the action as a self-contained HTML report.
func HTML(a *model.Action, o HTMLOptions) []byte {
	e := &htmlWriter{o: o}
	e.document(a)
	return lastGuard(e.b.Bytes())
}

type htmlWriter struct {
	b bytes.Buffer
	o HTMLOptions
}

// p writes one piece: its format is ours, every string argument an
// untrusted one-line field that HTMLSprintf escapes, a safe.Str as it is.
func (e *htmlWriter) p(format safe.Lit, args ...any) {
	e.b.WriteString(safe.HTMLSprintf(format, args...).String())
}

// block is untrusted multi-line content in a <pre>: masked under Redact.
func (e *htmlWriter) block(s string) safe.Str {
	if e.o.Redact {
		s = safe.Mask(s)
	}
	return safe.HTMLSprintf("<pre>%s</pre>", safe.HTMLBlock(s))
}

// field is an untrusted one-line content field: masked under Redact.
func (e *htmlWriter) field(s string) safe.Str {
	if e.o.Redact {
		s = safe.Mask(s)
	}
	return safe.HTMLText(s)
}

// id is a provider ID, as code: masked under Redact.
func (e *htmlWriter) id(s string) safe.Str {
	if s == "" {
		return safe.Const("-")
	}
	if e.o.Redact {
		return safe.HTMLText(safe.Mask(s))
	}
	return safe.HTMLSprintf("<code>%s</code>", s)
}

// verdictClass is a verdict word's CSS class: one of ours, whatever the
// word.
func verdictClass(word string) safe.Lit {
	switch word {
	case model.VerdictVerified:
		return "ok"
	case model.VerdictFailed:
		return "bad"
	case model.VerdictCancelled:
		return "cancel"
	case model.VerdictPartial, model.VerdictTruncated, model.VerdictIncomplete:
		return "warn"
	}
	return "live"
}

const htmlStyle = `:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--code:#f6f8fa;` +
	`--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--cancel:#8250df;--live:#0969da;--text:#0969da;--other:#59636e}` +
	`@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--code:#151b23;` +
	`--ok:#3fb950;--warn:#d29922;--bad:#f85149;--cancel:#ab7df8;--live:#4493f8;--text:#4493f8;--other:#9198a1}}` +
	`body{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:64rem;padding:1rem 1.5rem}` +
	`h1{font-size:1.4rem}h2{font-size:1.15rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2rem}h3{font-size:1rem}` +
	`code,pre{font:13px/1.45 ui-monospace,monospace;background:var(--code)}pre{padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;border:1px solid var(--line)}` +
	`table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}` +
	`.muted{color:var(--muted)}.badge{display:inline-block;padding:.1rem .6rem;border-radius:.3rem;font-weight:700;color:var(--bg)}` +
	`.b-ok{background:var(--ok)}.b-warn{background:var(--warn)}.b-bad{background:var(--bad)}.b-cancel{background:var(--cancel)}.b-live{background:var(--live)}` +
	`svg{width:100%;height:auto;border:1px solid var(--line)}svg text{font:12px ui-monospace,monospace;fill:var(--fg)}` +
	`.tick{stroke:var(--line)}.burst{fill:var(--text)}.rate{fill:none;stroke:var(--text);stroke-width:1.5}` +
	`.t-C{fill:var(--ok)}.t-R{fill:var(--live)}.t-U{fill:var(--warn)}.t-F{fill:var(--bad)}.t-O{fill:var(--other)}` +
	`.mark{stroke:var(--warn);stroke-width:2}.mark-ok{stroke:var(--ok);stroke-width:2}.mark-end{stroke:var(--cancel);stroke-width:2}` +
	`svg text.on{fill:var(--bg);font-weight:700}.v-ok{fill:var(--ok)}.v-warn{fill:var(--warn)}.v-bad{fill:var(--bad)}.v-cancel{fill:var(--cancel)}.v-live{fill:var(--live)}`

func (e *htmlWriter) document(a *model.Action) {
	v := a.Verdict()
	e.p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	e.p("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	e.p("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	e.p("<meta name=\"color-scheme\" content=\"light dark\">\n")
	e.p("<title>aipwatch: %s · %s</title>\n", a.ID, v.Word)
	e.p("<style>%s</style>\n</head>\n<body>\n", safe.Const(htmlStyle))
	e.p("<header>\n<h1>aipwatch: <code>%s</code></h1>\n", a.ID)
	e.verdict(a, v)
	e.p("</header>\n<main>\n")
	e.facts(a, v)
	e.timeline(a)
	e.reconcile(a)
	e.transcript(a)
	e.tools(a)
	e.commands(a)
	e.connection(a)
	e.anomalies(a)
	e.p("</main>\n<footer class=\"muted\"><p>")
	if !e.o.Now.IsZero() {
		e.p("Exported %s by aipwatch %s. ", e.o.Now.UTC().Format(time.RFC3339), e.o.Version)
	}
	if e.o.Redact {
		e.p("Redacted: the transcript, tool arguments and results, provider IDs and error details are masked. ")
	}
	e.p("aipwatch shows what the stream and aipd said; it sees that a tool ran, never what it did.</p></footer>\n</body>\n</html>\n")
}

func (e *htmlWriter) verdict(a *model.Action, v model.Verdict) {
	e.p("<p><span class=\"badge b-%s\">%s</span>", verdictClass(v.Word), strings.ToUpper(v.Word))
	if !v.Final && !a.Settled() {
		e.p(" <span class=\"muted\">exported while the action was still running</span>")
	}
	e.p("</p>\n")
	if len(v.Reasons) > 0 {
		e.p("<ul class=\"reasons\">\n")
		for _, r := range v.Reasons {
			e.p("<li>%s</li>\n", r)
		}
		e.p("</ul>\n")
	}
	if v.Detail != "" {
		e.p("<p>Error: %s</p>\n", e.field(v.Detail)) // masked under Redact: error details are content
	}
}

func (e *htmlWriter) facts(a *model.Action, v model.Verdict) {
	e.p("<h2>Cost and timing</h2>\n<table>\n")
	row := func(k safe.Lit, val any) { e.p("<tr><th scope=\"row\">"+k+"</th><td>%s</td></tr>\n", val) }
	row("action", safe.HTMLSprintf("<code>%s</code>", a.ID))
	if a.Status != nil && a.Status.CapabilityID != "" {
		row("capability", safe.HTMLSprintf("<code>%s</code>", a.Status.CapabilityID))
	}
	row("operation", orDash(a.Operation()))
	row("endpoint", orDash(a.Endpoint()))
	row("response ID", e.id(a.Responses().ResponseID))
	row("verdict", safe.HTMLSprintf("%s (exit code %d)", v.Word, v.ExitCode))
	if a.Result != nil && a.Result.ErrorCode() != "" {
		row("error code", safe.HTMLSprintf("<code>%s</code>", a.Result.ErrorCode()))
	}
	row("cost", a.Cost())
	if rate := a.RateLine(); rate != "" {
		row("output rate", rate)
	}
	row("chunks", safe.HTMLSprintf("%d (cursor %s)", a.ChunkCount(), orDashHTML(a.Cursor)))
	if c := a.CancelOutcome(); c != "" {
		row("cancel", c)
	}
	if start, end := a.RunSpan(); a.Status != nil || !start.IsZero() {
		if !a.Settled() {
			end = time.Time{}
		}
		row("started", orDash(aipdTime(start)))
		row("settled", orDash(aipdTime(end)))
	}
	e.p("</table>\n")
}

func orDashHTML(s string) safe.Str {
	if s == "" {
		return safe.Const("-")
	}
	return safe.HTMLSprintf("<code>%s</code>", s)
}

// The SVG's geometry, in its own units (it scales to the page).
const (
	svgW      = 960
	svgLabelW = 130 // the label column
	svgRowH   = 24
	svgRight  = 20
)

func (e *htmlWriter) timeline(a *model.Action) {
	tl := a.TurnTimeline(e.o.Now)
	e.p("<h2>Timeline</h2>\n<figure>\n")
	words := timelineWords(tl)
	if tl.Known {
		e.svg(tl, words)
	}
	e.p("<figcaption>The turn on one time axis, from its start to its verdict")
	if tl.Known {
		e.p(" (%s)", model.HumanDuration(tl.To.Sub(tl.From)))
	}
	e.p(". Tool calls are lettered by outcome: C completed, R running, U unfinished, F failed, O another status.</figcaption>\n")
	e.p("<ol class=\"events\">\n")
	for _, w := range words {
		e.p("<li>%s</li>\n", w)
	}
	e.p("</ol>\n</figure>\n")
}

// svg draws the timeline: ticks, the text's bursts, a bar a tool call
// (lettered), the marks, the token rate and the verdict. Its <title> and
// <desc> say it in words.
func (e *htmlWriter) svg(tl model.TurnTimeline, words []string) {
	plot := svgW - svgLabelW - svgRight
	sc := model.Scale{From: tl.From, To: tl.To, Cells: plot}
	x := func(t time.Time) int { return svgLabelW + sc.Col(t) }
	rows := 3 + len(tl.Tools) + 2 // ticks, first token, text, tools, marks, rate
	rates := tl.RateCells(model.Scale{From: tl.From, To: tl.To, Cells: plot / 4})
	top := 0.0
	for _, r := range rates {
		if r > top { // NaN is never above
			top = r
		}
	}
	hasRate := top > 0
	if hasRate {
		rows++
	}
	h := (rows + 1) * svgRowH
	e.p("<svg role=\"img\" aria-labelledby=\"tl-title tl-desc\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\">\n", svgW, h, svgW, h)
	e.p("<title id=\"tl-title\">Timeline of the turn: %s in %s</title>\n", tl.Verdict, model.HumanDuration(tl.To.Sub(tl.From)))
	e.p("<desc id=\"tl-desc\">%s</desc>\n", strings.Join(words, " "))

	y := svgRowH
	// Ticks.
	step := tickStep(tl.To.Sub(tl.From), plot/8)
	for d := time.Duration(0); step > 0 && d <= tl.To.Sub(tl.From); d += step {
		tx := x(tl.From.Add(d))
		e.p("<line class=\"tick\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", tx, y+4, tx, h-4)
		e.p("<text x=\"%d\" y=\"%d\">%s</text>\n", tx+2, y-6, tickText(d))
	}
	label := func(y int, s string) { e.p("<text x=\"4\" y=\"%d\">%s</text>\n", y+16, s) }
	y += 4
	if tl.HasFirstToken {
		label(y, "first token")
		fx := x(tl.FirstToken)
		e.p("<path class=\"v-warn\" d=\"M%d %d l6 12 h-12 z\"/>", fx, y+4)
		e.p("<text x=\"%d\" y=\"%d\">%s</text>\n", fx+10, y+16, model.HumanDuration(tl.FirstTokenAfter))
	}
	y += svgRowH
	if len(tl.Text) > 0 {
		label(y, "text")
		cells := tl.TextCells(model.Scale{From: tl.From, To: tl.To, Cells: plot / 4})
		most := 0
		for _, b := range cells {
			most = max(most, b)
		}
		for i, b := range cells {
			if b > 0 {
				bh := max(2, b*(svgRowH-6)/most)
				e.p("<rect class=\"burst\" x=\"%d\" y=\"%d\" width=\"4\" height=\"%d\"/>", svgLabelW+i*4, y+svgRowH-2-bh, bh)
			}
		}
		e.p("\n")
	}
	y += svgRowH
	for _, t := range tl.Tools {
		label(y, strings.TrimRight(fitLabel(safe.Line(t.Name)), " ")) // the bar's <title> has it whole
		x0, x1 := x(t.Start), x(t.End)
		w := max(x1-x0, 3)
		letter := string(t.Outcome.Letter())
		e.p("<rect class=\"t-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"><title>%s: %s, %s</title></rect>",
			letter, x0, y+3, w, svgRowH-6, t.Name, t.Outcome.Word(), model.HumanDuration(t.Duration()))
		text := letter + " " + model.HumanDuration(t.Duration())
		if w >= 9*len(text) {
			e.p("<text class=\"on\" x=\"%d\" y=\"%d\">%s</text>\n", x0+4, y+16, text)
		} else {
			e.p("<text x=\"%d\" y=\"%d\">%s</text>\n", x0+w+4, y+16, text)
		}
		y += svgRowH
	}
	if len(tl.Marks) > 0 {
		label(y, "connection, cancel")
		for _, m := range tl.Marks {
			mx := x(m.At)
			class := safe.Lit("mark")
			switch {
			case m.Kind == model.MarkResume || m.Kind == model.MarkCancelReply && m.Accepted:
				class = "mark-ok"
			case m.Kind == model.MarkCancelled:
				class = "mark-end"
			}
			e.p("<line class=\""+class+"\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"><title>%s at %s</title></line>",
				mx, y+2, mx, y+svgRowH-2, m.Sentence(), model.HumanDuration(m.At.Sub(tl.From)))
			e.p("<text x=\"%d\" y=\"%d\">%s</text>\n", mx+3, y+16, markSign(m))
		}
	}
	y += svgRowH
	if hasRate {
		e.p("<text x=\"4\" y=\"%d\">tokens/s ≤ %d</text>\n", y+16, int(top+0.5))
		var pts strings.Builder
		for i, r := range rates {
			if math.IsNaN(r) {
				continue
			}
			py := y + svgRowH - 2 - int(r/top*float64(svgRowH-6))
			pts.WriteString(safe.HTMLSprintf("%d,%d ", svgLabelW+i*4+2, py).String())
		}
		e.p("<polyline class=\"rate\" points=\"%s\"><title>peak %d tokens a second</title></polyline>\n", safe.HTMLText(strings.TrimSpace(pts.String())), int(top+0.5))
		y += svgRowH
	}
	vx := x(tl.To)
	e.p("<rect class=\"v-%s\" x=\"%d\" y=\"%d\" width=\"8\" height=\"%d\"><title>verdict %s</title></rect>",
		verdictClass(tl.Verdict), vx-4, svgRowH, y-svgRowH, tl.Verdict)
	e.p("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s</text>\n", vx-8, y+16, strings.ToUpper(tl.Verdict), model.HumanDuration(tl.To.Sub(tl.From)))
	e.p("</svg>\n")
}

func (e *htmlWriter) reconcile(a *model.Action) {
	r, ok := a.Reconcile()
	if !ok {
		return
	}
	e.p("<h2>Reconciliation</h2>\n<p>%s.</p>\n", r.Advice)
	if r.ResponseGetInput != "" {
		in := r.ResponseGetInput
		if e.o.Redact {
			in = `{"response_id": "` + safe.Masked + `"}`
		}
		e.p("<p><code>response_get</code> input:</p>\n%s\n", safe.HTMLSprintf("<pre>%s</pre>", safe.HTMLBlock(in)))
	}
	if r.SessionID != "" {
		e.p("<p>Hermes session: %s</p>\n", e.id(r.SessionID))
	}
}

func (e *htmlWriter) transcript(a *model.Action) {
	e.p("<h2>Transcript</h2>\n")
	items := a.Items()
	if len(items) == 0 {
		e.p("<p class=\"muted\">(no items)</p>\n")
	}
	for _, it := range items {
		switch it.Kind {
		case model.ItemMessage:
			e.p("<h3>%s message</h3>\n", orDash(it.Role))
			if it.Text() == "" {
				e.p("<p class=\"muted\">(no text)</p>\n")
			} else {
				e.p("%s\n", e.block(it.Text()))
			}
		case model.ItemReasoning:
			e.p("<h3>reasoning</h3>\n%s\n", e.block(it.Text()))
		case model.ItemFunctionCall, model.ItemFunctionOutput:
			e.p("<h3>function call <code>%s</code>", orDash(it.Name))
			if it.CallID != "" {
				e.p(" (call_id %s)", e.id(it.CallID))
			}
			e.p("</h3>\n")
			e.callBody(it)
		default:
			e.p("<h3>%s</h3>\n%s\n", orDash(it.Label), e.block(it.Text()))
		}
	}
	for _, n := range a.Notes() {
		e.p("<p><em>Note: %s.</em></p>\n", n)
	}
}

// callBody is a function call's arguments and output.
func (e *htmlWriter) callBody(it *model.Item) {
	if it.Kind == model.ItemFunctionCall {
		e.p("<p>Arguments:</p>\n%s\n", e.block(indentJSON(it.Arguments)))
	}
	if it.HasOutput {
		e.p("<p>Output:</p>\n%s\n", e.block(strings.Join(it.Output, "\n")))
	} else {
		e.p("<p>Output: <span class=\"muted\">(none seen)</span></p>\n")
	}
}

func (e *htmlWriter) tools(a *model.Action) {
	tools := a.Tools()
	if len(tools) == 0 {
		return
	}
	calls := map[string]*model.Item{}
	for _, it := range a.Items() {
		if it.Kind == model.ItemFunctionCall && it.CallID != "" {
			calls[it.CallID] = it
		}
	}
	e.p("<h2>Tools</h2>\n<table>\n<tr><th>#</th><th>tool</th><th>label</th><th>status</th><th>duration</th><th>id</th></tr>\n")
	for i, t := range tools {
		dur := "-"
		switch {
		case !t.DoneAt.IsZero():
			dur = model.HumanDuration(a.ToolDuration(t, t.DoneAt))
		case !t.StartedAt.IsZero() && !a.Settled() && !e.o.Now.IsZero():
			dur = model.HumanDuration(a.ToolDuration(t, e.o.Now)) + " so far"
		}
		e.p("<tr><td>%d</td><td>%s %s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			i+1, t.Emoji, orDash(t.Name), e.field(t.Label), t.Status, dur, e.id(t.ID))
	}
	e.p("</table>\n")
	for i, t := range tools {
		it := calls[t.ID]
		if it == nil {
			continue
		}
		e.p("<h3>%d. %s: arguments and result</h3>\n", i+1, orDash(t.Name))
		e.callBody(it)
	}
	if n := a.Verdict().UnconfirmedToolEffects; n > 0 {
		e.p("<p>%d tool effect(s) to confirm: aipwatch sees that a tool ran, never what it did.</p>\n", n)
	}
}

func (e *htmlWriter) commands(a *model.Action) {
	resume, rec := e.o.Resume, e.o.Reconcile
	if resume == "" {
		resume = "aipwatch " + a.ID
	}
	if rec == "" {
		rec = "aipwatch reconcile " + a.ID
	}
	e.p("<h2>Commands</h2>\n<p>Follow the action again")
	if !a.Settled() {
		e.p(" from where this report ends")
	}
	e.p(" (a review once it settled):</p>\n<pre>%s</pre>\n", safe.HTMLBlock(resume))
	e.p("<p>Read its stored state back, without running anything again (with the follow's <code>--context</code> or <code>--url</code>):</p>\n<pre>%s</pre>\n", safe.HTMLBlock(rec))
}

func (e *htmlWriter) connection(a *model.Action) {
	tl := a.Timeline()
	if len(tl) == 0 {
		return
	}
	e.p("<h2>Connection timeline</h2>\n<table>\n<tr><th>time</th><th>what</th></tr>\n")
	for _, h := range tl {
		if e.o.Redact {
			h = h.Redacted(safe.Mask) // the timeline's one masking rule
		}
		e.p("<tr><td>%s</td><td>%s</td></tr>\n", h.At.UTC().Format("15:04:05.000"), h.Text())
	}
	e.p("</table>\n")
}

func (e *htmlWriter) anomalies(a *model.Action) {
	anoms := a.Anomalies()
	e.p("<h2>Anomalies</h2>\n")
	if len(anoms) == 0 {
		e.p("<p>None.</p>\n")
		return
	}
	e.p("<ul>\n")
	for _, an := range anoms {
		detail := an.Detail
		if e.o.Redact {
			detail = safe.Masked
		}
		e.p("<li>%s at chunk %d: %s</li>\n", string(an.Kind), an.Sequence, detail)
	}
	e.p("</ul>\n")
}

// ExportFormat is an export's format.
type ExportFormat int

// The export formats.
const (
	ExportMarkdown ExportFormat = iota // output.Markdown
	ExportHTML                         // output.HTML
)

// FormatOf is the format a file's name asks for: HTML for .html and
// .htm (in any case), else Markdown.
func FormatOf(path string) ExportFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".html", ".htm":
		return ExportHTML
	}
	return ExportMarkdown
}

// Ext is the format's file extension.
func (f ExportFormat) Ext() string {
	if f == ExportHTML {
		return ".html"
	}
	return ".md"
}

// Export renders the action in format f.
func Export(a *model.Action, f ExportFormat, o HTMLOptions) []byte {
	if f == ExportHTML {
		return HTML(a, o)
	}
	return Markdown(a, o.MarkdownOptions)
}

// ExportFile renders the action in the format path's extension asks for
// (--export FILE).
func ExportFile(path string, a *model.Action, o HTMLOptions) []byte {
	return Export(a, FormatOf(path), o)
}

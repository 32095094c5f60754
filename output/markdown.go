package output

// The Markdown export (e in the TUI, --export): a finished (or stopped)
// action as Markdown: a header table, the messages, each tool call with its
// arguments and output, the connection timeline and the anomalies. Every
// untrusted string is sanitised (design §5); with Redact the content is
// masked.

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// MarkdownOptions shape an export.
type MarkdownOptions struct {
	Redact  bool
	Version string    // aipwatch version, for the footer
	Now     time.Time // export time (injectable for goldens)
}

// Markdown renders the action.
func Markdown(a *model.Action, o MarkdownOptions) []byte {
	e := &mdWriter{o: o}
	e.header(a)
	e.reconcile(a)
	e.turnChart(a)
	e.transcript(a)
	e.tools(a)
	e.timeline(a)
	e.anomalies(a)
	return lastGuard(e.b.Bytes())
}

// lastGuard passes a whole export through the safe writer once more, so
// that a secret split across two of its pieces is scrubbed as well.
func lastGuard(doc []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(doc))
	sw := safe.NewWriter(&out, safe.Terminal)
	sw.Write(doc)
	sw.Flush()
	return out.Bytes()
}

type mdWriter struct {
	b bytes.Buffer
	o MarkdownOptions
}

// p writes one piece of the export. Its format is ours (a safe.Lit); every
// string argument is an untrusted one-line field that safe.MDSprintf
// escapes, and a safe.Str (a fence, a mask) is taken as it is.
func (e *mdWriter) p(format safe.Lit, args ...any) {
	e.b.WriteString(safe.MDSprintf(format, args...).String())
}

// content is untrusted multi-line content, fenced: masked under Redact.
func (e *mdWriter) content(lang safe.Lit, s string) safe.Str {
	if e.o.Redact {
		return safe.MDFence(lang, safe.Mask(s))
	}
	return safe.MDFence(lang, s)
}

// field is an untrusted one-line content field (a label): masked under
// Redact.
func (e *mdWriter) field(s string) safe.Str {
	if e.o.Redact {
		return safe.MDInline(safe.Mask(s))
	}
	return safe.MDInline(s)
}

// id is a provider ID: masked under Redact.
func (e *mdWriter) id(s string) safe.Str {
	if e.o.Redact {
		return safe.MDInline(safe.Mask(s))
	}
	return safe.MDCode(s)
}

func (e *mdWriter) header(a *model.Action) {
	v := a.Verdict()
	e.p("# aipwatch: %s\n\n", safe.MDCode(a.ID))
	e.p("| | |\n|---|---|\n")
	row := func(k safe.Lit, val any) { e.p("| "+k+" | %s |\n", val) }
	row("action", safe.MDCode(a.ID))
	row("operation", orDash(a.Operation()))
	row("endpoint", orDash(a.Endpoint()))
	row("response ID", orDashStr(e.id(a.Responses().ResponseID)))
	reasons := make([]safe.Str, len(v.Reasons))
	for i, r := range v.Reasons {
		reasons[i] = safe.MDInline(r)
	}
	if !v.Final && !a.Settled() {
		reasons = append(reasons, safe.MDInline("exported while the action was still running"))
	}
	row("verdict", safe.MDSprintf("**%s** (%s)", v.Word, safe.Join(reasons, ", ")))
	if v.Detail != "" {
		row("error", e.field(v.Detail)) // masked under Redact: error details are content
	}
	if a.Result != nil && a.Result.ErrorCode() != "" {
		row("error code", safe.MDCode(a.Result.ErrorCode()))
	}
	row("cost", a.Cost()) // model.CostLine, as plain and the TUI say it
	row("chunks", safe.MDSprintf("%d (cursor %s)", a.ChunkCount(), orDashStr(safe.MDCode(a.Cursor))))
	if c := a.CancelOutcome(); c != "" {
		row("cancel", c)
	}
	// On aipd's clock (Action.RunSpan): a synchronous action's record has
	// the same started_at and completed_at, its chunk events the turn.
	if start, end := a.RunSpan(); a.Status != nil || !start.IsZero() {
		if !a.Settled() {
			end = time.Time{}
		}
		row("started", orDash(aipdTime(start)))
		row("settled", orDash(aipdTime(end)))
	}
	if !e.o.Now.IsZero() {
		row("exported", safe.MDSprintf("%s by aipwatch %s", e.o.Now.UTC().Format(time.RFC3339), e.o.Version))
	}
	e.p("\n")
}

// aipdTime is one of aipd's times as the export shows it ("" = unknown).
func aipdTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (e *mdWriter) reconcile(a *model.Action) {
	r, ok := a.Reconcile()
	if !ok {
		return
	}
	e.p("## Reconciliation\n\n%s.\n\n", r.Advice)
	if r.ResponseGetInput != "" {
		in := r.ResponseGetInput
		if e.o.Redact {
			in = `{"response_id": "` + safe.Masked + `"}`
		}
		e.p("`response_get` input:\n\n%s", safe.MDFence("json", in))
	}
	if r.SessionID != "" {
		e.p("Hermes session: %s\n\n", e.id(r.SessionID))
	}
}

// turnChart is the turn on its time axis (design §16) as a small text
// chart, fenced: the tool names in it are untrusted.
func (e *mdWriter) turnChart(a *model.Action) {
	rows := timelineChart(a.TurnTimeline(e.o.Now), chartWidth)
	if len(rows) == 0 {
		return
	}
	e.p("## Timeline\n\n%s", safe.MDFence("text", strings.Join(rows, "\n")))
}

func (e *mdWriter) transcript(a *model.Action) {
	e.p("## Transcript\n\n")
	items := a.Items()
	if len(items) == 0 {
		e.p("_(no items)_\n\n")
	}
	for _, it := range items {
		switch it.Kind {
		case model.ItemMessage:
			e.p("### %s message\n\n", orDash(it.Role))
			if it.Text() == "" {
				e.p("_(no text)_\n\n")
			} else {
				e.p("%s", e.content("text", it.Text()))
			}
		case model.ItemReasoning:
			e.p("### reasoning\n\n%s", e.content("text", it.Text()))
		case model.ItemFunctionCall, model.ItemFunctionOutput:
			e.p("### function call %s", orDashStr(safe.MDCode(it.Name)))
			if it.CallID != "" {
				e.p(" (call_id %s)", e.id(it.CallID))
			}
			e.p("\n\n")
			if it.Kind == model.ItemFunctionCall {
				e.p("Arguments:\n\n%s", e.content("json", indentJSON(it.Arguments)))
			}
			if it.HasOutput {
				e.p("Output:\n\n%s", e.content("", strings.Join(it.Output, "\n")))
			} else {
				e.p("Output: _(none seen)_\n\n")
			}
		default:
			e.p("### %s\n\n%s", orDash(it.Label), e.content("text", it.Text()))
		}
	}
	for _, n := range a.Notes() {
		e.p("_Note: %s._\n\n", n)
	}
}

func (e *mdWriter) tools(a *model.Action) {
	tools := a.Tools()
	if len(tools) == 0 {
		return
	}
	e.p("## Tools\n\n| # | tool | label | status | duration | id |\n|---|---|---|---|---|---|\n")
	for i, t := range tools {
		name := safe.MDInline(orDash(t.Name))
		if t.Emoji != "" {
			name = safe.MDSprintf("%s %s", t.Emoji, name)
		}
		dur := "-"
		switch {
		case !t.DoneAt.IsZero():
			dur = model.HumanDuration(a.ToolDuration(t, t.DoneAt)) // as plain and the TUI say it
		case !t.StartedAt.IsZero() && !a.Settled() && !e.o.Now.IsZero():
			dur = model.HumanDuration(a.ToolDuration(t, e.o.Now)) + " so far"
		}
		e.p("| %d | %s | %s | %s | %s | %s |\n", i+1, name, orDashStr(e.field(t.Label)), t.Status, dur, orDashStr(e.id(t.ID)))
	}
	if n := a.Verdict().UnconfirmedToolEffects; n > 0 {
		e.p("\n%d tool effect(s) to confirm: aipwatch sees that a tool ran, never what it did.\n", n)
	}
	e.p("\n")
}

func (e *mdWriter) timeline(a *model.Action) {
	tl := a.Timeline()
	if len(tl) == 0 {
		return
	}
	e.p("## Connection timeline\n\n| time | what |\n|---|---|\n")
	for _, h := range tl {
		if e.o.Redact {
			h = h.Redacted(safe.Mask) // the timeline's one masking rule
		}
		what := safe.MDInline(h.Text())
		e.p("| %s | %s |\n", h.At.UTC().Format("15:04:05.000"), what)
	}
	e.p("\n")
}

func (e *mdWriter) anomalies(a *model.Action) {
	anoms := a.Anomalies()
	e.p("## Anomalies\n\n")
	if len(anoms) == 0 {
		e.p("None.\n")
		return
	}
	for _, an := range anoms {
		detail := safe.MDInline(an.Detail)
		if e.o.Redact {
			detail = safe.MDInline(safe.Masked)
		}
		e.p("- %s at chunk %d: %s\n", string(an.Kind), an.Sequence, detail)
	}
}

// indentJSON pretty-prints a JSON string, or returns it as it is.
func indentJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

func orDashStr(s safe.Str) safe.Str {
	if s.Empty() {
		return safe.Const("-")
	}
	return s
}

// Package export writes a finished (or stopped) action as Markdown: a
// header table, the messages, each tool call with its arguments and
// output, the connection timeline and the anomalies. Every untrusted
// string is sanitised (contract §5); with Redact the content is masked.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// Options shape an export.
type Options struct {
	Redact  bool
	Version string    // aipwatch version, for the footer
	Now     time.Time // export time (injectable for goldens)
}

// Markdown renders the action.
func Markdown(a *model.Action, o Options) []byte {
	e := &writer{o: o}
	e.header(a)
	e.reconcile(a)
	e.transcript(a)
	e.tools(a)
	e.timeline(a)
	e.anomalies(a)
	return e.b.Bytes()
}

type writer struct {
	b bytes.Buffer
	o Options
}

func (e *writer) p(format string, args ...any) { fmt.Fprintf(&e.b, format, args...) }

// content is untrusted content: masked under Redact, sanitised always.
func (e *writer) content(s string) string {
	if e.o.Redact {
		return safe.Mask(s)
	}
	return safe.Text(s)
}

// id is a provider ID: masked under Redact.
func (e *writer) id(s string) string {
	if e.o.Redact {
		return safe.Mask(s)
	}
	return safe.Line(s)
}

func (e *writer) header(a *model.Action) {
	v := a.Verdict()
	e.p("# aipwatch: %s\n\n", code(safe.Line(a.ID)))
	e.p("| | |\n|---|---|\n")
	row := func(k, val string) { e.p("| %s | %s |\n", k, cell(val)) }
	row("action", code(safe.Line(a.ID)))
	row("operation", orDash(safe.Line(a.Operation())))
	row("endpoint", orDash(safe.Line(a.Endpoint())))
	row("response ID", orDash(e.id(a.Responses().ResponseID)))
	reasons := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		reasons[i] = safe.Line(r)
	}
	row("verdict", fmt.Sprintf("**%s** (%s)", v.Word, strings.Join(reasons, ", ")))
	if a.Result != nil && a.Result.ErrorCode() != "" {
		row("error code", code(safe.Line(a.Result.ErrorCode())))
	}
	row("usage", usage(a))
	row("chunks", fmt.Sprintf("%d (cursor %s)", a.ChunkCount(), orDash(code(safe.Line(a.Cursor)))))
	if c := a.CancelOutcome(); c != "" {
		row("cancel", c)
	}
	st := a.Status
	if st != nil {
		row("started", orDash(safe.Line(st.StartedAt)))
		row("settled", orDash(safe.Line(st.CompletedAt)))
	}
	if !e.o.Now.IsZero() {
		row("exported", e.o.Now.UTC().Format(time.RFC3339)+" by aipwatch "+safe.Line(e.o.Version))
	}
	e.p("\n")
}

func usage(a *model.Action) string {
	var u *model.Usage
	if f := a.Chat().Finish; f != nil && f.Usage != nil {
		u = f.Usage
	} else if a.Responses().Usage != nil {
		u = a.Responses().Usage
	}
	if u == nil {
		return "-"
	}
	return fmt.Sprintf("%d in, %d out, %d total tokens", u.In(), u.Out(), u.TotalTokens)
}

func (e *writer) reconcile(a *model.Action) {
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
		e.p("`response_get` input:\n\n%s", fence("json", safe.Text(in)))
	}
	if r.SessionID != "" {
		e.p("Hermes session: %s\n\n", code(e.id(r.SessionID)))
	}
}

func (e *writer) transcript(a *model.Action) {
	e.p("## Transcript\n\n")
	items := a.Items()
	if len(items) == 0 {
		e.p("_(no items)_\n\n")
	}
	for _, it := range items {
		switch it.Kind {
		case model.ItemMessage:
			e.p("### %s message\n\n", orDash(safe.Line(it.Role)))
			text := e.content(it.Text())
			if text == "" {
				text = "_(no text)_"
			}
			e.p("%s\n\n", text)
		case model.ItemReasoning:
			e.p("### reasoning\n\n")
			for _, l := range strings.Split(e.content(it.Text()), "\n") {
				e.p("> %s\n", l)
			}
			e.p("\n")
		case model.ItemFunctionCall, model.ItemFunctionOutput:
			e.p("### function call %s", code(orDash(safe.Line(it.Name))))
			if it.CallID != "" {
				e.p(" (call_id %s)", code(e.id(it.CallID)))
			}
			e.p("\n\n")
			if it.Kind == model.ItemFunctionCall {
				e.p("Arguments:\n\n%s", fence("json", e.content(indentJSON(it.Arguments))))
			}
			if it.HasOutput {
				e.p("Output:\n\n%s", fence("", e.content(strings.Join(it.Output, "\n"))))
			} else {
				e.p("Output: _(none seen)_\n\n")
			}
		default:
			e.p("### %s\n\n%s\n\n", orDash(safe.Line(it.Label)), e.content(it.Text()))
		}
	}
	for _, n := range a.Notes() {
		e.p("_Note: %s._\n\n", safe.Line(n))
	}
}

func (e *writer) tools(a *model.Action) {
	tools := a.Tools()
	if len(tools) == 0 {
		return
	}
	e.p("## Tools\n\n| # | tool | label | status | id |\n|---|---|---|---|---|\n")
	for i, t := range tools {
		name := safe.Line(t.Name)
		if t.Emoji != "" {
			name = safe.Line(t.Emoji) + " " + name
		}
		e.p("| %d | %s | %s | %s | %s |\n", i+1, cell(orDash(name)), cell(orDash(e.content(t.Label))),
			cell(safe.Line(t.Status)), cell(orDash(e.id(t.ID))))
	}
	if n := a.Verdict().UnconfirmedToolEffects; n > 0 {
		e.p("\n%d tool effect(s) to confirm: aipwatch sees that a tool ran, never what it did.\n", n)
	}
	e.p("\n")
}

func (e *writer) timeline(a *model.Action) {
	tl := a.Timeline()
	if len(tl) == 0 {
		return
	}
	e.p("## Connection timeline\n\n| time | what |\n|---|---|\n")
	for _, h := range tl {
		what := safe.Line(h.What)
		if e.o.Redact && strings.HasPrefix(h.What, "error: ") {
			what = "error: " + safe.Masked
		}
		e.p("| %s | %s |\n", h.At.UTC().Format("15:04:05.000"), cell(what))
	}
	e.p("\n")
}

func (e *writer) anomalies(a *model.Action) {
	anoms := a.Anomalies()
	e.p("## Anomalies\n\n")
	if len(anoms) == 0 {
		e.p("None.\n")
		return
	}
	for _, an := range anoms {
		detail := safe.Line(an.Detail)
		if e.o.Redact {
			detail = safe.Masked
		}
		e.p("- %s at chunk %d: %s\n", an.Kind, an.Sequence, detail)
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

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(lang, text string) string {
	ticks := "```"
	for strings.Contains(text, ticks) {
		ticks += "`"
	}
	return ticks + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + ticks + "\n\n"
}

// code is an inline code span that survives backticks inside.
func code(s string) string {
	if s == "" || s == "-" {
		return s
	}
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + s + ticks
}

// cell makes text safe inside a table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

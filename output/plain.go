package output

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Plain writes human lines (contract §4): the assistant text as it
// streams, one line per tool change and per connection change, and a last
// line "verdict: WORD (reason, reason ...)". No escape sequences: every
// untrusted string goes through safe.
type Plain struct {
	w       *bufio.Writer
	opts    Options
	tr      *Tracker
	atStart bool // the cursor is at the start of a line
	masked  map[itemKey]bool
	current itemKey
	started bool
}

// NewPlain returns a plain printer writing to w.
func NewPlain(w io.Writer, opts Options) *Plain {
	return &Plain{w: bufio.NewWriter(w), opts: opts, tr: NewTracker(), atStart: true, masked: map[itemKey]bool{}}
}

// Handle prints what a message changed.
func (p *Plain) Handle(a *model.Action, m stream.Msg) {
	p.handle(a, m)
	p.w.Flush()
}

func (p *Plain) flush() { p.w.Flush() }

func (p *Plain) handle(a *model.Action, m stream.Msg) {
	switch m := m.(type) {
	case stream.ModeMsg:
		if m.Review {
			p.line("reviewing a finished action (no live follow)")
		}
	case stream.ConnectedMsg:
		if m.Resumed {
			p.line("resumed (attempt %d) from cursor %s", m.Attempt, safe.Line(orDash(m.Cursor)))
		} else {
			p.line("connected")
		}
	case stream.ReconnectingMsg:
		p.line("reconnecting %d, next try in %s: %s", m.Attempt, roundWait(m.Wait), safe.Line(m.Cause))
	case stream.RestartMsg:
		p.line("cursor refused (%s): following again from the beginning", safe.Line(m.Code))
	case stream.NoRecordMsg:
		p.line("%s", safe.Line(stream.NoRecordLine(m)))
	case stream.CursorFreeMsg:
		p.line("%s", safe.Line(stream.CursorFreeLine(m)))
	case stream.ResultWaitMsg:
		p.line("%s", safe.Line(stream.ResultWaitLine(m)))
	case stream.UnsettledMsg:
		p.changes(a)
		p.line("no progress for %s and aipd holds no record or result: the run ended without one", roundWait(m.Stall))
	case stream.TerminalMsg:
		p.changes(a)
		p.line("stream ended; reading the result")
	}
	p.changes(a)
}

func (p *Plain) changes(a *model.Action) {
	for _, c := range p.tr.Changes(a) {
		switch c.Kind {
		case ChangeText:
			k := keyOf(c.Item)
			if p.started && k != p.current {
				p.endLine()
				p.w.WriteString("\n")
			}
			resuming := p.atStart && !p.started
			p.started, p.current = true, k
			if p.opts.Redact {
				if !p.masked[k] {
					p.masked[k] = true
					p.write(safe.Masked)
				}
				continue
			}
			text := safe.Text(c.Delta)
			if resuming {
				// Text resuming after a status line: the space that joined
				// it to the text before the tool would indent the line.
				text = strings.TrimLeft(text, " ")
			}
			p.write(text)
		case ChangeTool:
			p.line("%s", toolLine(c.Tool, p.opts.Redact))
		case ChangeNotice:
			text := safe.Line(c.Item.Text())
			if p.opts.Redact {
				text = safe.Mask(text)
			}
			p.line("[%s] %s", safe.Line(c.Item.Label), text)
		case ChangeNote:
			p.line("note: %s", c.Note)
		case ChangeAnomaly:
			if p.opts.Redact {
				p.line("anomaly: %s at chunk %d", c.Anom.Kind, c.Anom.Sequence)
			} else {
				p.line("anomaly: %s", safe.Line(c.Anom.Detail))
			}
		case ChangeCancel:
			p.line("cancel: %s", c.Cancel)
		}
	}
}

// toolLine is "tool 💻 terminal (ls -la): completed in 1.2s".
func toolLine(t *model.Tool, redact bool) string {
	var b strings.Builder
	b.WriteString("tool ")
	if t.Emoji != "" {
		b.WriteString(safe.Line(t.Emoji))
		b.WriteString(" ")
	}
	b.WriteString(safe.Line(orDash(t.Name)))
	if t.Label != "" {
		label := safe.Line(t.Label)
		if redact {
			label = safe.Masked
		}
		b.WriteString(" (" + label + ")")
	}
	b.WriteString(": " + t.Status)
	if t.Status == model.ToolCompleted && !t.DoneAt.IsZero() {
		b.WriteString(" in " + roundWait(t.Duration(t.DoneAt)))
	}
	return b.String()
}

// Finish prints the closing lines: anomalies already went by; the verdict
// (or the error) is last.
func (p *Plain) Finish(a *model.Action, err error) {
	p.changes(a)
	p.endLine()
	if err != nil {
		fmt.Fprintf(p.w, "error: %s\n", safe.Line(err.Error()))
		p.w.Flush()
		return
	}
	p.w.WriteString(ReconcileLines(a, p.opts.Redact))
	p.w.WriteString(VerdictLine(a))
	p.w.Flush()
}

// VerdictLine is the last line of plain (and of the TUI once it exits):
// "verdict: WORD (reason, reason ...)\n".
func VerdictLine(a *model.Action) string {
	v := a.Verdict()
	reasons := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		reasons[i] = safe.Line(r)
	}
	return fmt.Sprintf("verdict: %s (%s)\n", v.Word, strings.Join(reasons, ", "))
}

func (p *Plain) write(s string) {
	if s == "" {
		return
	}
	p.w.WriteString(s)
	p.atStart = strings.HasSuffix(s, "\n")
}

func (p *Plain) endLine() {
	if !p.atStart {
		p.w.WriteString("\n")
		p.atStart = true
	}
}

// line prints one status line, starting a new line first if text was
// streaming.
func (p *Plain) line(format string, args ...any) {
	p.endLine()
	fmt.Fprintf(p.w, format, args...)
	p.w.WriteString("\n")
	p.started = false
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func roundWait(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// ReconcileLines is what plain prints before the verdict of an unverified
// action: the reconciliation advice of model.Reconcile, and for Responses
// the exact response_get input. Empty when there is nothing to reconcile.
func ReconcileLines(a *model.Action, redact bool) string {
	r, ok := a.Reconcile()
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString("reconcile: " + r.Advice + "\n")
	if r.ResponseGetInput != "" {
		in := safe.Line(r.ResponseGetInput)
		if redact {
			in = `{"response_id": "` + safe.Masked + `"}`
		}
		b.WriteString("reconcile: response_get " + in + "\n")
	}
	if r.SessionID != "" {
		id := safe.Line(r.SessionID)
		if redact {
			id = safe.Masked
		}
		b.WriteString("reconcile: Hermes session " + id + "\n")
	}
	return b.String()
}

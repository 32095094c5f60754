package output

import (
	"bufio"
	"io"
	"strings"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Plain writes human lines (design §4): the assistant text as it
// streams, one line per tool change and per connection change, and a last
// line "verdict: WORD (reason, reason ...)". No escape sequences: every
// line is a safe.Sprintf of our own format (each argument made one inert
// line), the text a safe.T, and the bytes end in a safe.Writer.
type Plain struct {
	sw      *safe.Writer
	w       *bufio.Writer
	opts    Options
	tr      *Tracker
	atStart bool // the cursor is at the start of a line
	masked  map[itemKey]bool
	current itemKey
	started bool
	named   bool          // the first line named the action (Options.Name)
	cut     bool          // a status line cut the text's last line: its rest starts with "… "
	ew      *bufio.Writer // Options.Errors, through its own safe.Writer (nil: none)
	esw     *safe.Writer
}

// NewPlain returns a plain printer writing to w.
func NewPlain(w io.Writer, opts Options) *Plain {
	sw := safe.NewWriter(w, safe.Terminal)
	p := &Plain{sw: sw, w: bufio.NewWriter(sw), opts: opts, tr: NewTracker(), atStart: true, masked: map[itemKey]bool{}}
	if opts.Errors != nil {
		p.esw = safe.NewWriter(opts.Errors, safe.Terminal)
		p.ew = bufio.NewWriter(p.esw)
	}
	return p
}

// Handle prints what a message changed.
func (p *Plain) Handle(a *model.Action, m stream.Msg) {
	p.handle(a, m)
	p.w.Flush()
}

// flush writes the buffered lines; the safe.Writer may still hold the
// end of a line back (what could begin a secret) until more comes or
// Finish.
func (p *Plain) flush() { p.w.Flush() }

// handle prints what m changed: the model's changes, then the connection
// timeline's new entries (stream.Apply logged them), each in plain's
// wording. m itself is not read: the model is the one route.
func (p *Plain) handle(a *model.Action, _ stream.Msg) {
	p.nameLine()
	hs := p.tr.Happenings(a, p.opts.Redact)
	for _, h := range hs {
		if h.Kind == model.HapNoLiveChunks { // before the text it says where it came from
			p.line("%s", h.Text())
		}
	}
	p.changes(a)
	for _, h := range hs {
		switch h.Kind {
		case model.HapReview:
			p.line("reviewing a finished action (no live follow)")
		case model.HapResumed:
			p.line("resumed (attempt %d) from cursor %s", h.Attempt, orDash(h.Cursor))
		case model.HapReconnecting:
			p.errLine("reconnecting %d, next try in %s: %s", h.Attempt, model.HumanDuration(h.Wait), h.Detail)
		case model.HapConnected, model.HapRestart, model.HapNoRecord, model.HapCursorFree, model.HapResultWait:
			p.line("%s", h.Text()) // the timeline's own wording
		case model.HapUnsettled:
			p.line("no progress for %s and aipd holds no record or result: the run ended without one", model.HumanDuration(h.Wait))
		case model.HapSubmit:
			p.line("submit: %s", safe.Line(h.Detail))
		case model.HapTerminal:
			p.line("stream ended; reading the result")
		}
		// The result, a cancel, an error and a skipped frame show as
		// changes (cancel, anomaly) and in the closing lines.
	}
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
			continued := resuming && p.cut && k == p.current
			p.started, p.current, p.cut = true, k, false
			if p.opts.Redact {
				if !p.masked[k] {
					p.masked[k] = true
					p.write(safe.Const(safe.Masked))
				}
				continue
			}
			text := safe.T(c.Delta)
			if resuming {
				// Text resuming after a status line: the space that joined
				// it to the text before the tool would indent the line.
				text = text.Map(func(s string) string { return strings.TrimLeft(s, " ") }, true)
			}
			if continued && !strings.HasPrefix(text.String(), "\n") {
				p.w.WriteString("… ")
			}
			p.write(text)
		case ChangeTool:
			p.line("%s", toolLine(a, c.Tool, p.opts.Redact))
			p.cut = false
		case ChangeNotice:
			text := safe.L(c.Item.Text())
			if p.opts.Redact {
				text = safe.MaskStr(c.Item.Text())
			}
			p.line("[%s] %s", c.Item.Label, text)
		case ChangeNote:
			p.line("note: %s", c.Note)
		case ChangeAnomaly:
			if p.opts.Redact {
				p.line("anomaly: %s at chunk %d", string(c.Anom.Kind), c.Anom.Sequence)
			} else {
				p.line("anomaly: %s", c.Anom.Detail)
			}
		case ChangeCancel:
			p.line("cancel: %s", c.Cancel)
		}
	}
}

// toolLine is "tool 💻 terminal (ls -la): completed in 1.2s". Every
// field, the status word too, is a frame's: each goes through safe.
func toolLine(a *model.Action, t *model.Tool, redact bool) safe.Str {
	parts := []safe.Str{safe.Const("tool ")}
	if t.Emoji != "" {
		parts = append(parts, safe.Sprintf("%s ", t.Emoji))
	}
	parts = append(parts, safe.L(orDash(t.Name)))
	if t.Label != "" {
		label := safe.L(t.Label)
		if redact {
			label = safe.MaskStr(t.Label)
		}
		parts = append(parts, safe.Sprintf(" (%s)", label))
	}
	parts = append(parts, safe.Sprintf(": %s", t.Status))
	if t.Status == model.ToolCompleted && !t.DoneAt.IsZero() {
		parts = append(parts, safe.Sprintf(" in %s", model.HumanDuration(a.ToolDuration(t, t.DoneAt))))
	}
	return safe.Concat(parts...)
}

// end writes everything, nothing held back: the output is over.
func (p *Plain) end() {
	p.w.Flush()
	p.sw.Flush()
	if p.ew != nil {
		p.ew.Flush()
		p.esw.Flush()
	}
}

// Finish prints the closing lines: anomalies already went by; the verdict
// (or the error) is last.
func (p *Plain) Finish(a *model.Action, err error) {
	p.nameLine()
	p.changes(a)
	p.endLine()
	if err != nil {
		if p.ew == nil { // else the caller says it on Options.Errors
			p.write(safe.Sprintf("error: %s\n", err))
		}
		p.end()
		return
	}
	p.write(closingLines(a, p.opts.Redact, false))
	p.end()
}

// ClosingLines end a settled or stopped run, in plain and in what the TUI
// leaves once its alt screen is gone (screen): what reconciling advises,
// what the turn cost (costLine), why the action ended (detailLine, kept
// just before the verdict), and the verdict line. After the TUI they start
// with the cancel's outcome and end with the reconcile reads it made (R),
// which plain, having no such key, printed as they came or never had. The
// one builder of them: plain's Finish and the TUI's exit call it.
func ClosingLines(a *model.Action, redact, screen bool) string {
	return closingLines(a, redact, screen).String()
}

func closingLines(a *model.Action, redact, screen bool) safe.Str {
	lines := []safe.Str{reconcileLines(a, redact), costLine(a), detailLine(a, redact), verdictLine(a)}
	if screen {
		lines = append([]safe.Str{noLiveLine(a), cancelLine(a)}, append(lines, storedLines(a))...)
	}
	return safe.Join(lines, "")
}

// costLine is what the turn cost (design §4, model.CostLine): "2,052
// tokens (1,840 in, 212 out) · first token 0.4s · 3.1s\n". A run that
// read no chunk has nothing to measure and says nothing.
func costLine(a *model.Action) safe.Str {
	if a.ChunkCount() == 0 && !a.Usage().Reported {
		return safe.Str{}
	}
	return safe.Sprintf("%s\n", a.Cost())
}

// noLiveLine is, after the TUI, the line that says the action's chunks were
// read from its result (model.HapNoLiveChunks, design §14): its notice on
// the alt screen is gone with it. plain printed it as it came.
func noLiveLine(a *model.Action) safe.Str {
	for _, h := range a.Timeline() {
		if h.Kind == model.HapNoLiveChunks {
			return safe.Sprintf("%s\n", h.Text())
		}
	}
	return safe.Str{}
}

// storedLines are the reconcile reads the TUI logged (a read's outcome
// line, model.HapReconcile), after the verdict it leaves unchanged.
func storedLines(a *model.Action) safe.Str {
	var lines []safe.Str
	for _, h := range a.Timeline() {
		if h.Kind == model.HapReconcile {
			lines = append(lines, safe.Sprintf("%s\n", h.Detail))
		}
	}
	return safe.Join(lines, "")
}

// VerdictLine is the last line of plain (and of the TUI once it exits):
// "verdict: WORD (reason, reason ...)\n".
func VerdictLine(a *model.Action) string { return verdictLine(a).String() }

func verdictLine(a *model.Action) safe.Str { return verdictLineOf(a.Verdict()) }

func verdictLineOf(v model.Verdict) safe.Str {
	reasons := make([]safe.Str, len(v.Reasons))
	for i, r := range v.Reasons {
		reasons[i] = safe.L(r)
	}
	return safe.Sprintf("verdict: %s (%s)\n", v.Word, safe.Join(reasons, ", "))
}

// cancelLine is "cancel: <outcome>\n" when a cancel was asked for
// (model.Action.CancelOutcome, the line plain prints as it changes), for
// the closing lines of the TUI: a late cancel says "too late" there too.
func cancelLine(a *model.Action) safe.Str {
	c := a.CancelOutcome()
	if c == "" {
		return safe.Str{}
	}
	return safe.Sprintf("cancel: %s\n", c)
}

// detailLine is the one line that says why an unverified action ended
// (design §4, model.Verdict.Detail): "error: upstream model 500\n",
// sanitised, masked under --redact; empty when there is nothing to say.
func detailLine(a *model.Action, redact bool) safe.Str {
	d := Detail(a.Verdict(), redact)
	if d.Empty() {
		return safe.Str{}
	}
	return safe.Sprintf("error: %s\n", d)
}

// Detail is the verdict's failure detail as every output shows it: one
// sanitised line, or the mask under --redact (error details are content).
func Detail(v model.Verdict, redact bool) safe.Str {
	switch {
	case v.Detail == "":
		return safe.Str{}
	case redact:
		return safe.MaskStr(v.Detail)
	}
	if adv := stream.FleetAdvice(v.DetailCode, v.Detail, 0, nil); adv != "" {
		// A fleet's refusal stored as the result (an async submission):
		// what to do, in stream's one wording.
		return safe.L(v.Detail + " — " + adv)
	}
	return safe.L(v.Detail)
}

func (p *Plain) write(s safe.Str) {
	if s.Empty() {
		return
	}
	p.w.WriteString(s.String())
	p.atStart = strings.HasSuffix(s.String(), "\n")
}

func (p *Plain) endLine() {
	if !p.atStart {
		p.w.WriteString("\n")
		p.atStart = true
	}
}

// nameLine is the run's first line when Options.Name is set, "action:
// CONTEXT/act_…", once: a script reading one action's lines learns which
// daemon they came from, and the verdict line keeps its own form.
func (p *Plain) nameLine() {
	if p.named || p.opts.Name == "" {
		return
	}
	p.named = true
	p.line("action: %s", safe.L(p.opts.Name))
}

// line prints one status line, starting a new line first if text was
// streaming.
func (p *Plain) line(format safe.Lit, args ...any) {
	if !p.atStart && p.started {
		// A status line cuts a line of the text: where the text goes on,
		// it says so ("… "), or the cut would read as the model's own
		// newline. A tool's line is the stream's own order (Tool clears it).
		p.cut = true
	}
	p.endLine()
	if p.opts.Timestamps { // our own clock's digits
		p.w.WriteString(safe.L(p.opts.now().Format("15:04:05.000 ")).String())
	}
	p.w.WriteString(safe.Sprintf(format, args...).String())
	p.w.WriteString("\n")
	p.started = false
}

// errLine is a status line of trouble (reconnecting): on Options.Errors
// when set, the text's line on stdout cut first as line cuts it; else a
// line.
func (p *Plain) errLine(format safe.Lit, args ...any) {
	if p.ew == nil {
		p.line(format, args...)
		return
	}
	if !p.atStart && p.started {
		p.cut = true
	}
	p.endLine()
	p.started = false
	p.w.Flush() // what came before it, first
	if p.opts.Timestamps {
		p.ew.WriteString(safe.L(p.opts.now().Format("15:04:05.000 ")).String())
	}
	p.ew.WriteString(safe.Sprintf(format, args...).String())
	p.ew.WriteString("\n")
	p.ew.Flush()
	p.esw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ReconcileLines is what plain prints before the verdict of an unverified
// action: the reconciliation advice of model.Reconcile, and for Responses
// the exact response_get input. Empty when there is nothing to reconcile.
func ReconcileLines(a *model.Action, redact bool) string { return reconcileLines(a, redact).String() }

func reconcileLines(a *model.Action, redact bool) safe.Str {
	r, ok := a.Reconcile()
	if !ok {
		return safe.Str{}
	}
	lines := []safe.Str{safe.Sprintf("reconcile: %s\n", r.Advice)}
	if r.ResponseGetInput != "" {
		in := safe.L(r.ResponseGetInput)
		if redact {
			in = safe.Const(`{"response_id": "` + safe.Masked + `"}`)
		}
		lines = append(lines, safe.Sprintf("reconcile: response_get %s\n", in))
	}
	if r.SessionID != "" {
		id := safe.L(r.SessionID)
		if redact {
			id = safe.MaskStr(r.SessionID)
		}
		lines = append(lines, safe.Sprintf("reconcile: Hermes session %s\n", id))
	}
	return safe.Concat(lines...)
}

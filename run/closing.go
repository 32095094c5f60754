package run

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The closing lines of a run: the exit code, what says that an action
// keeps running and how to resume it (design §2.8), the report of an
// internal error (which resumes too), plain's and jsonl's notification.

// exit is the run's exit code: 0 when every action is verified, else the
// first one's, in the targets' order, that is not (an error's, pending's,
// the verdict's). When any still runs, w gets what says so and how to
// resume: quitting is not cancellation.
func (p *Plan) exit(runs []outcome, w io.Writer) int {
	code := model.ExitVerified
	for _, r := range runs {
		c := model.ExitError
		if r.err == nil {
			c = model.ExitPending
			if v := r.a.Verdict(); v.Final {
				c = v.ExitCode
			}
		}
		if code == model.ExitVerified {
			code = c
		}
	}
	fmt.Fprint(w, p.detach(runs))
	return code
}

// detach says which actions keep running and the command that follows
// them again: of one action, what is known of it and the command from its
// cursor; of several, those still live (none aipd ended), as given.
func (p *Plan) detach(runs []outcome) string {
	if len(runs) == 1 {
		if r := runs[0]; r.err == nil && !r.a.Verdict().Final {
			return p.detachOne(r.a, p.Targets[0])
		}
		return ""
	}
	var live []Target
	unknown := ""
	for i, r := range runs {
		switch {
		case r.err != nil || r.a.Verdict().Final || r.a.Ended():
		case noRecordSeen(r.a) && heldOpenLines(r.a, p.Targets[i]) == "":
			// Nothing of it was seen (a mistyped ID?): not resumed.
			unknown += "aipwatch: aipd has no record of " + safe.Line(p.Targets[i].Name()) + " and sent none of its events: check the ID.\n"
		default:
			live = append(live, p.Targets[i])
		}
	}
	if len(live) == 0 || p.Resume == nil {
		return unknown
	}
	which := "the action keeps"
	if len(live) > 1 {
		which = fmt.Sprintf("%d actions keep", len(live))
	}
	return unknown + fmt.Sprintf("aipwatch stopped watching; %s running (quitting is not cancellation).\nresume with: %s\n",
		which, p.Resume("", args(live)...))
}

// noRecordSeen: aipd said it has no record of the action (state unknown)
// and nothing of it came, no chunk and no event: nothing says it exists.
func noRecordSeen(a *model.Action) bool {
	return a.Status != nil && a.Status.State == model.StateUnknown && a.ChunkCount() == 0 && len(a.Events()) == 0
}

// detachOne says that the action keeps running and how to resume (design
// §2.8). A demo's simulator dies with aipwatch, so a demo gets the command
// that starts it again instead. A replay cut mid-stream gets the command
// that follows the recorded action on the recorded daemon.
func (p *Plan) detachOne(a *model.Action, t Target) string {
	if p.Again != "" {
		return "aipwatch stopped watching the demo; its built-in simulator stopped with it, so there is nothing to resume.\n" +
			"run the demo again with: " + safe.Line(p.Again) + "\n"
	}
	first := "aipwatch stopped watching; the action keeps running (quitting is not cancellation).\n"
	switch {
	case p.Flags.Replay:
		// Nothing runs in a replay: the recording just stops there.
		first = "the recording ends before the action settled; on its daemon it may have settled since.\n"
	case a.Ended():
		// Never claim that an action runs on when aipd said it is over (an
		// async action cancelled in flight reads cancelled with no result).
		first = "aipwatch stopped watching; the action has ended, but its outcome was not read yet (quitting is not cancellation).\n"
	case !attached(a):
		first = "aipwatch stopped watching before aipd answered: whether the action runs is not known (quitting is not cancellation).\n"
	case noRecordSeen(a):
		// aipd has no record of it and nothing of it came: nothing says it runs.
		if heldOpenLines(a, t) == "" {
			// Nothing of it was seen: no command resumes what may not
			// exist (a mistyped ID); the ID is said, to check it.
			return "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events: " +
				"check the ID (a synchronous or streaming action has no record while it runs; quitting is not cancellation).\n"
		}
		first = "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events yet: " +
			"it may not exist, or a synchronous run has not streamed yet (quitting is not cancellation).\n"
	}
	first += heldOpenLines(a, t)
	if p.Resume == nil {
		return first
	}
	return first + "resume with: " + p.Resume(a.Cursor, t.Arg) + "\n"
}

// heldOpenLines say what quitting did to a held-open submission (sync or
// streaming, protocol §13): the POST is closed, the run goes on and its
// result is stored on both deployments, only the reply is lost; unless
// the handler fails, the daemon restarts or the fleet's call to its host
// breaks, when no record is ever written. "" for any other run.
func heldOpenLines(a *model.Action, t Target) string {
	s, ok := t.Runner.(*stream.Submission)
	if !ok || !s.HeldOpen() || a.Settled() {
		return ""
	}
	return "the submission's POST was held open and is closed now: aipd goes on running " + safe.Line(a.ID) +
		" and stores its result; only the reply is lost (nothing was cancelled).\n" +
		"if it never settles, aipd may have lost its record (a failed handler, a daemon restart, or the fleet's call to its connector host broken): " +
		"never submit " + safe.Line(a.ID) + " again without its idempotency key " + safe.Line(s.IdempotencyKey) + " (the journal keeps it).\n"
}

func args(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Arg
	}
	return out
}

// cursorOf is where one action's run r stopped reading (else where it
// started); none for several.
func cursorOf(r outcome, ts []Target) string {
	switch {
	case len(ts) != 1:
		return ""
	case r.a != nil && r.a.Cursor != "":
		return r.a.Cursor
	}
	return ts[0].Cursor
}

// panicReport is PanicReport with the command that follows ts again from
// cursor (none for a demo or a replay).
func (p *Plan) panicReport(msg, cursor string, ts []Target) string {
	resume := ""
	if p.Resume != nil && !p.Flags.Replay {
		resume = p.Resume(cursor, args(ts)...)
	}
	return PanicReport(msg, resume)
}

// PanicReport is the short report of an internal error: the panic value
// on one sanitised line (the tokens protected are scrubbed), no stack,
// then resume when given.
func PanicReport(r any, resume string) string {
	msg := fmt.Sprint(r)
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	report := "aipwatch: internal error: " + safe.Line(msg) + "\n" +
		"aipwatch stopped watching; the action, if any, keeps running (this was not a cancellation).\n"
	if resume != "" {
		report += "resume with: " + resume + "\n"
	}
	return report
}

// tags are the targets' line tags: none for one action, else each one's
// name (Target.Name: its ID, or CONTEXT/ID when the run named a context
// for it), whole and in brackets: a tag reads as the action it names, and
// the same ID on two daemons reads as two.
func (p *Plan) tags() []string {
	tags := make([]string, len(p.Targets))
	if len(p.Targets) < 2 {
		return tags
	}
	for i, t := range p.Targets {
		tags[i] = "[" + safe.Line(t.Name()) + "] "
	}
	return tags
}

// untagged is target i's name when its lines carry no tag (one action)
// and the run named a context for it: plain's first line and the TUI's
// first closing line say it, "action: CONTEXT/act_…"; else "".
func (p *Plan) untagged(i int) string {
	if t := p.Targets[i]; len(p.Targets) == 1 && t.Context != "" {
		return t.Name()
	}
	return ""
}

func tagLines(tag, s string) string {
	if tag == "" || s == "" {
		return s
	}
	return tag + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+tag) + "\n"
}

// tagged is one action's writer into w, which several share: its lines go
// out whole, one at a time (mu), after its tag.
type tagged struct {
	mu  *sync.Mutex
	w   io.Writer
	tag string
	buf []byte
}

func (t *tagged) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		t.line(t.buf[:i+1])
		t.buf = t.buf[i+1:]
	}
}

// flush writes a last line with no newline.
func (t *tagged) flush() {
	if len(t.buf) > 0 {
		t.line(append(t.buf, '\n'))
		t.buf = nil
	}
}

func (t *tagged) line(l []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.w, t.tag)
	_, _ = t.w.Write(l)
}

// NotifyLines sends plain's and jsonl's notification (--notify, design
// §10) of the action named name (Target.Name; "": its ID) by route,
// after their last line, when the run ended on a settled action (a run
// that stopped first has nothing to tell). It goes to stdout when that is
// a terminal, else to stderr when that is one (jsonl piped on, the
// operator still at the terminal), else nowhere.
func NotifyLines(route func() (safe.NotifyRoute, string), name string, a *model.Action, o IO) {
	if route == nil || a == nil || !a.Settled() {
		return
	}
	if name == "" {
		name = a.ID
	}
	w := o.Stdout
	switch {
	case o.TTY:
	case o.ErrTTY:
		w = o.Stderr
	default:
		return
	}
	if sw, ok := w.(*safe.Writer); ok {
		_ = sw.Flush() // the closing lines first
	}
	// The bytes are safe.Notification's: the text in them went through
	// safe.Line; a Terminal safe.Writer would show the sequences instead
	// of sending them.
	r, hint := route()
	_, _ = io.WriteString(safe.Unwrap(w), output.NotificationAs(name, a, r))
	if hint != "" {
		fmt.Fprintln(o.Stderr, "aipwatch: "+hint)
	}
}

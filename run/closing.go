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
			v := r.a.Verdict()
			c = v.ExitCode
			if !v.Final {
				c = model.ExitPending
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
	for i, r := range runs {
		if r.err == nil && !r.a.Verdict().Final && !r.a.Ended() {
			live = append(live, p.Targets[i])
		}
	}
	if len(live) == 0 || p.Resume.Command == nil {
		return ""
	}
	which := "the action keeps"
	if len(live) > 1 {
		which = fmt.Sprintf("%d actions keep", len(live))
	}
	return fmt.Sprintf("aipwatch stopped watching; %s running (quitting is not cancellation).\nresume with: %s\n",
		which, p.Resume.Command("", args(live)...))
}

// detachOne says that the action keeps running and how to resume (design
// §2.8). A demo's simulator dies with aipwatch, so a demo gets the command
// that starts it again instead. A replay cut mid-stream gets the command
// that follows the recorded action on the recorded daemon.
func (p *Plan) detachOne(a *model.Action, t Target) string {
	if p.Resume.Demo != "" {
		return "aipwatch stopped watching the demo; its built-in simulator stopped with it, so there is nothing to resume.\n" +
			"run the demo again with: " + safe.Line(p.Resume.Demo) + "\n"
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
	case !Attached(a):
		first = "aipwatch stopped watching before aipd answered: whether the action runs is not known (quitting is not cancellation).\n"
	case unseen(a):
		// Nothing of it was seen: no command to resume what may not
		// exist (a mistyped ID); the ID is said, to check it.
		return "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events: " +
			"check the ID (a synchronous or streaming action has no record while it runs; quitting is not cancellation).\n"
	}
	if p.Resume.Command == nil {
		return first
	}
	return first + "resume with: " + p.Resume.Command(a.Cursor, t.Arg) + "\n"
}

// unseen: aipd has no record of the action (state unknown) and nothing of
// it came, no chunk and no event: nothing says it runs.
func unseen(a *model.Action) bool {
	return a.Status != nil && a.Status.State == model.StateUnknown && a.ChunkCount() == 0 && len(a.Events()) == 0
}

// args are the words that name ts, as given.
func args(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Arg
	}
	return out
}

// cursorOf is where one action's run stopped reading (else where it
// started); none for several.
func cursorOf(runs []outcome, ts []Target) string {
	if len(runs) != 1 || len(ts) != 1 {
		return ""
	}
	if runs[0].a != nil && runs[0].a.Cursor != "" {
		return runs[0].a.Cursor
	}
	return ts[0].Cursor
}

// panicReport is PanicReport with the command that follows ts again from
// cursor (none for a demo or a replay).
func (p *Plan) panicReport(msg, cursor string, ts ...Target) string {
	resume := ""
	if p.Resume.Command != nil && !p.Flags.Replay {
		resume = p.Resume.Command(cursor, args(ts)...)
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

// tagLines puts tag before every line of s.
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

// flush writes what is left of a last line with no newline.
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
// §10: n) of the action named name (Target.Name; "": its ID), after their last line, when the run ended on a settled action (a
// run that stopped first has nothing to tell). It goes to stdout when
// that is a terminal, else to stderr when that is one (jsonl piped on,
// the operator still at the terminal), else nowhere.
func NotifyLines(n Notify, name string, a *model.Action, o IO) {
	if !n.On || n.Route == nil || a == nil || !a.Settled() {
		return
	}
	if name == "" {
		name = a.ID
	}
	var w io.Writer
	switch {
	case o.TTY:
		w = o.Stdout
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
	r, hint := n.Route()
	_, _ = io.WriteString(safe.Unwrap(w), output.NotificationAs(name, a, r))
	if hint != "" {
		fmt.Fprintln(o.Stderr, "aipwatch: "+hint)
	}
}

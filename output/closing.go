package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"aipwatch/model"
	"aipwatch/safe"
)

// The closing lines of a run of N >= 1 actions, after the verdict's
// (ClosingLines): what says that an action keeps running and how to
// resume it (design §2.8), the report of an internal error (which resumes
// too), the tags of several actions' lines, plain's and jsonl's
// notification. The run picks the writer; these are the words.

// Watched is one action of a run as its closing lines name it.
type Watched struct {
	Action *model.Action // nil only when Failed
	Failed bool          // its run stopped on an error
	Name   string        // the run's name for it: its ID, or CONTEXT/ID
	Arg    string        // as given: a resume command repeats it
	Cursor string        // where its run started
	// HeldOpen: it is a submission whose POST was held open (sync or
	// streaming, protocol §13), sent with the idempotency key Key.
	HeldOpen bool
	Key      string
}

// Resume is how the closing lines word a resume.
type Resume struct {
	// Command is the shell command that follows args again (from cursor
	// when given); nil: nothing can be resumed.
	Command func(cursor string, args ...string) string
	Again   string // a demo's command that runs it again (its simulator stops with aipwatch)
	Replay  bool   // a --replay: nothing runs
}

// DetachLines say which actions keep running and the command that
// follows them again: of one action, what is known of it and the command
// from its cursor; of several, those still live (none aipd ended), as
// given. "" when none does.
func DetachLines(ws []Watched, r Resume) string {
	if len(ws) == 1 {
		if w := ws[0]; !w.Failed && !w.Action.Verdict().Final {
			return r.detachOne(w)
		}
		return ""
	}
	var live []Watched
	unknown := ""
	for _, w := range ws {
		switch {
		case w.Failed || w.Action.Verdict().Final || w.Action.Ended():
		case noRecordSeen(w.Action) && heldOpenLines(w) == "":
			// Nothing of it was seen (a mistyped ID?): not resumed.
			unknown += "aipwatch: aipd has no record of " + safe.Line(w.Name) + " and sent none of its events: check the ID.\n"
		default:
			live = append(live, w)
		}
	}
	if len(live) == 0 || r.Command == nil {
		return unknown
	}
	which := "the action keeps"
	if len(live) > 1 {
		which = fmt.Sprintf("%d actions keep", len(live))
	}
	return unknown + fmt.Sprintf("aipwatch stopped watching; %s running (quitting is not cancellation).\nresume with: %s\n",
		which, r.Command("", args(live)...))
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
func (r Resume) detachOne(w Watched) string {
	a := w.Action
	if r.Again != "" {
		return "aipwatch stopped watching the demo; its built-in simulator stopped with it, so there is nothing to resume.\n" +
			"run the demo again with: " + safe.Line(r.Again) + "\n"
	}
	first := "aipwatch stopped watching; the action keeps running (quitting is not cancellation).\n"
	switch {
	case r.Replay:
		// Nothing runs in a replay: the recording just stops there.
		first = "the recording ends before the action settled; on its daemon it may have settled since.\n"
	case a.Ended():
		// Never claim that an action runs on when aipd said it is over (an
		// async action cancelled in flight reads cancelled with no result).
		first = "aipwatch stopped watching; the action has ended, but its outcome was not read yet (quitting is not cancellation).\n"
	case !a.Connection().Answered:
		first = "aipwatch stopped watching before aipd answered: whether the action runs is not known (quitting is not cancellation).\n"
	case noRecordSeen(a):
		// aipd has no record of it and nothing of it came: nothing says it runs.
		if heldOpenLines(w) == "" {
			// Nothing of it was seen: no command resumes what may not
			// exist (a mistyped ID); the ID is said, to check it.
			return "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events: " +
				"check the ID (a synchronous or streaming action has no record while it runs; quitting is not cancellation).\n"
		}
		first = "aipwatch stopped watching; aipd has no record of " + safe.Line(a.ID) + " and sent none of its events yet: " +
			"it may not exist, or a synchronous run has not streamed yet (quitting is not cancellation).\n"
	}
	first += heldOpenLines(w)
	if r.Command == nil {
		return first
	}
	return first + "resume with: " + r.Command(a.Cursor, w.Arg) + "\n"
}

// heldOpenLines say what quitting did to a held-open submission (sync or
// streaming, protocol §13): the POST is closed, the run goes on and its
// result is stored on both deployments, only the reply is lost; unless
// the handler fails, the daemon restarts or the fleet's call to its host
// breaks, when no record is ever written. "" for any other run.
func heldOpenLines(w Watched) string {
	if !w.HeldOpen || w.Action.Settled() {
		return ""
	}
	id := safe.Line(w.Action.ID)
	return "the submission's POST was held open and is closed now: aipd goes on running " + id +
		" and stores its result; only the reply is lost (nothing was cancelled).\n" +
		"if it never settles, aipd may have lost its record (a failed handler, a daemon restart, or the fleet's call to its connector host broken): " +
		"never submit " + id + " again without its idempotency key " + safe.Line(w.Key) + " (the journal keeps it).\n"
}

func args(ws []Watched) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Arg
	}
	return out
}

// PanicLines are PanicReport of a run's internal error msg, with the
// command that follows ws again (none for a demo or a replay): one action
// from where its run stopped reading (else where it started), several
// with no cursor.
func (r Resume) PanicLines(msg string, ws []Watched) string {
	resume := ""
	if r.Command != nil && !r.Replay {
		cursor := ""
		if len(ws) == 1 {
			cursor = ws[0].Cursor
			if a := ws[0].Action; a != nil && a.Cursor != "" {
				cursor = a.Cursor
			}
		}
		resume = r.Command(cursor, args(ws)...)
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

// Tags are the line tags of the actions named names: none for one
// action, else each one's name (its ID, or CONTEXT/ID when the run named
// a context for it), whole and in brackets: a tag reads as the action it
// names, and the same ID on two daemons reads as two.
func Tags(names []string) []string {
	tags := make([]string, len(names))
	if len(names) < 2 {
		return tags
	}
	for i, n := range names {
		tags[i] = "[" + safe.Line(n) + "] "
	}
	return tags
}

// TagLines puts tag before each line of s.
func TagLines(tag, s string) string {
	if tag == "" || s == "" {
		return s
	}
	return tag + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+tag) + "\n"
}

// Tagged is one action's writer into w, which several share: its lines go
// out whole, one at a time (mu), after its tag. What it is given is a
// printer's, already on the route; w guards it as every stream is guarded
// (safe.Writer: the one the program gave, else one over w).
type Tagged struct {
	mu  *sync.Mutex
	w   *safe.Writer
	tag string
	buf []byte
}

// NewTagged is the writer into w of the action whose lines start with
// tag, one line at a time with the others that share mu.
func NewTagged(mu *sync.Mutex, w io.Writer, tag string) *Tagged {
	return &Tagged{mu: mu, w: safe.NewWriter(w, safe.Terminal), tag: tag}
}

// Write keeps p and writes each whole line it completes.
func (t *Tagged) Write(p []byte) (int, error) {
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

// Flush writes a last line with no newline, and what w held back.
func (t *Tagged) Flush() {
	if len(t.buf) > 0 {
		t.line(append(t.buf, '\n'))
		t.buf = nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.w.Flush()
}

func (t *Tagged) line(l []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.WriteString(t.tag)
	_, _ = t.w.Write(l)
}

// NotifyLines send plain's and jsonl's notification (--notify, design
// §10) of the action named name ("": its ID) by route, after their last
// line, when the run ended on a settled action (a run that stopped first
// has nothing to tell). It goes to stdout when that is a terminal (tty),
// else to stderr when that is one (errTTY: jsonl piped on, the operator
// still at the terminal), else nowhere.
func NotifyLines(route func() (safe.NotifyRoute, string), name string, a *model.Action, stdout, stderr io.Writer, tty, errTTY bool) {
	if route == nil || a == nil || !a.Settled() {
		return
	}
	if name == "" {
		name = a.ID
	}
	w := stdout
	switch {
	case tty:
	case errTTY:
		w = stderr
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
	_, _ = safe.Unwrap(w).Write(safe.Notification("aipwatch", NotifyTextOf(name, a.Verdict()), r))
	if hint != "" {
		ew := safe.NewWriter(stderr, safe.Terminal)
		_, _ = ew.WriteString("aipwatch: " + hint + "\n")
		_ = ew.Flush()
	}
}

// ErrorLead is what starts the line on stderr of the error that stopped
// the run of one action of a line mode: plain's printer leaves the error
// to its caller (stdout is the run's output), who says it there, as the
// TUI's; jsonl wrote the error object on stdout, and says nothing more
// unless several share it (tagged): then stderr says whose.
func ErrorLead(plain, tagged bool) string {
	switch {
	case plain:
		return "aipwatch: error: "
	case tagged:
		return "aipwatch: "
	}
	return ""
}

// Fail says an error that stops a command before or outside a run: the
// jsonl error object on stdout, else a line on stderr.
func Fail(stdout, stderr io.Writer, jsonl bool, err error) {
	if jsonl {
		WriteError(stdout, err)
		return
	}
	say(stderr, safe.Sprintf("aipwatch: %s\n", err))
}

// say writes s to w (stderr, most often) through a Terminal safe.Writer.
func say(w io.Writer, s safe.Str) {
	sw := safe.NewWriter(w, safe.Terminal)
	_, _ = sw.WriteString(s.String())
	_ = sw.Flush()
}

// Package run is one run of watching N >= 1 actions (design §2, §12): the
// live view of one action, or the split view of several, on a terminal;
// plain's or jsonl's lines elsewhere; then the closing lines and the
// command that resumes what still runs (worded by output/closing.go), and
// the exit code (model.ExitOf). One action is the case N = 1 of several.
//
// A command of cli describes the run (Plan: the targets, the output mode,
// the run's flags, how to word a resume) and gives it its I/O (IO); the
// program shell (ui.Run) draws the views. It knows nothing of flags, the
// config file or the connection a target's Runner was made from.
package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/ui"
	"aipwatch/ui/split"
)

// Target is one action of the run.
type Target struct {
	Arg     string // as given (CONTEXT/act_… too): a resume command repeats it
	ID      string
	Context string        // the config file's context whose daemon runs it ("" = the run's own)
	Cursor  string        // where the run starts (--cursor)
	Runner  stream.Runner // what it is read from: a client, a submission, a replay
	Session string        // the Hermes session_id its input carried (model.Action.SubmittedSession)
	// Reconcile is the live view's R (nil: none); Hint the line that
	// follows an error before aipd ever answered ("": none).
	Reconcile ui.ReconcileFunc
	Hint      func(error) string
}

// Name is how the run's outputs name t: its ID, or CONTEXT/ID when it
// has a context (the same ID on two daemons reads as two actions).
func (t Target) Name() string {
	if t.Context == "" {
		return t.ID
	}
	return t.Context + "/" + t.ID
}

// Flags are the run's flags, as every view and printer of it reads them.
type Flags struct {
	Redact, Timestamps, Cancel, Notify bool
	NoColor                            bool // --no-color, $NO_COLOR, or no terminal
	Replay                             bool // a --replay: nothing runs
	Reason                             string
	RawCap                             int64  // model.Action.SetRawCap
	Export                             string // where the TUI's e writes
}

// Plan is one run: what to watch and how.
type Plan struct {
	Targets []Target
	Mode    string // tui, plain or jsonl
	Flags   Flags
	Keys    ui.KeyMap
	Version string
	// Route is how a notification reaches the terminal (design §10), and
	// what to say when it is dropped; asked only when one may be sent (it
	// may ask tmux).
	Route func() (safe.NotifyRoute, string)
	// Resume is the shell command that follows args again (from cursor
	// when given); nil: nothing can be resumed. Again is a demo's command
	// that runs it again (its simulator stops with aipwatch).
	Resume func(cursor string, args ...string) string
	Again  string
}

// IO is where a run reads its keys and writes. A full-screen view's size
// and environment are the terminal's: the one host that knows them
// otherwise (an SSH session) builds its screen on a ui.Terminal itself.
type IO struct {
	Keys           io.Reader // a full-screen view's keys (nil: the controlling terminal)
	Stdout, Stderr io.Writer
	TTY, ErrTTY    bool // stdout, stderr is a terminal
}

// outcome is one target's run.
type outcome struct {
	a   *model.Action
	err error
}

// Run runs p on o and returns the exit code and each target's final
// model, in the targets' order.
func Run(ctx context.Context, p Plan, o IO) (int, []*model.Action) {
	var runs []outcome
	var code int
	if p.Mode == "tui" {
		runs, code = p.screen(ctx, o)
	} else {
		runs, code = p.lines(ctx, o)
	}
	models := make([]*model.Action, len(runs))
	for i, r := range runs {
		models[i] = r.a
	}
	return code, models
}

// screen runs the live view of the one target (with its start line), or
// the split view of several, then prints each one's closing lines once the
// alt screen is gone.
func (p *Plan) screen(ctx context.Context, o IO) ([]outcome, int) {
	panes := make([]ui.Options, len(p.Targets))
	for i, t := range p.Targets {
		panes[i] = p.live(t, o.TTY)
	}
	var s interface {
		ui.Screen
		Close()
		Panes() []*ui.Live
	} = ui.NewSingle(ctx, panes[0])
	if len(panes) > 1 {
		s = split.New(ctx, panes)
	}
	err := ui.Run(ctx, s, ui.Terminal{Input: o.Keys, Output: safe.Unwrap(o.Stdout), NoColor: p.Flags.NoColor})
	s.Close()
	var runs []outcome
	for _, l := range s.Panes() {
		runs = append(runs, outcome{a: l.Action(), err: l.Failure()})
	}
	if err != nil {
		p.failed(o, -1, outcome{a: runs[0].a, err: err}, "aipwatch: ")
		return runs, model.ExitError
	}
	tags := p.tags()
	for i, r := range runs {
		if r.err != nil {
			p.failed(o, i, r, "aipwatch: error: ")
			continue
		}
		// The transcript stayed on the alt screen; what remains is the verdict.
		name := p.untagged(i)
		closing := output.ClosingLines(r.a, p.Flags.Redact, true)
		if name != "" {
			closing = "action: " + safe.Line(name) + "\n" + closing // as plain's first line
		}
		fmt.Fprint(o.Stdout, output.TagLines(tags[i], closing))
	}
	return runs, p.exit(runs, o.Stdout)
}

func (p *Plan) live(t Target, tty bool) ui.Options {
	f := p.Flags
	uo := ui.Options{ActionID: t.ID, Backend: t.Runner, Context: t.Context, Reconcile: t.Reconcile, Session: t.Session,
		Keys: p.Keys, Redact: f.Redact, NoColor: f.NoColor, CancelReason: f.Reason, Version: p.Version,
		RawCap: f.RawCap, AutoCancel: f.Cancel, ExportPath: f.Export, Replay: f.Replay, Notify: f.Notify}
	if tty && p.Route != nil { // nothing is sent to what is no terminal: n is off
		route, hint := p.Route()
		name := t.Name() // the notification names the context too
		uo.Notification = func(a *model.Action) string { return output.NotificationAs(name, a, route) }
		uo.NotifyHint = hint
	}
	if p.Resume != nil && !f.Replay { // the help's resume command: none for a demo or a replay
		uo.Resume = func(cursor string) string { return p.Resume(cursor, t.Arg) }
	}
	return uo
}

// lines runs plain's or jsonl's printer for each target at once; several
// share stdout, their lines going out whole, plain's tagged.
func (p *Plan) lines(ctx context.Context, o IO) ([]outcome, int) {
	tags := p.tags()
	var mu sync.Mutex // one line at a time
	runs := make([]outcome, len(p.Targets))
	var wg sync.WaitGroup
	for i, t := range p.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { // a bug: one line (failed), no stack; the action keeps running
				if r := recover(); r != nil {
					runs[i] = outcome{err: &stream.Error{Op: "internal", Message: fmt.Sprint(r)}}
				}
			}()
			w, ew := o.Stdout, o.Stderr
			if len(p.Targets) > 1 {
				tag := tags[i]
				if p.Mode != "plain" {
					tag = "" // each jsonl line is one JSON object, untagged
				}
				tw, etw := output.NewTagged(&mu, o.Stdout, tag), output.NewTagged(&mu, o.Stderr, tags[i])
				defer tw.Flush()
				defer etw.Flush()
				w, ew = tw, etw
			}
			if p.Mode != "plain" {
				ew = nil // jsonl's every line is an object on stdout
			}
			ro := output.RunOptions{Options: output.Options{Redact: p.Flags.Redact, Timestamps: p.Flags.Timestamps, Context: t.Context, Name: p.untagged(i), Errors: ew},
				ActionID: t.ID, JSONL: p.Mode == "jsonl", RawCap: p.Flags.RawCap, CancelReason: p.Flags.Reason,
				Cancel: p.Flags.Cancel, Session: t.Session}
			a, err := output.Run(ctx, t.Runner, w, ro)
			runs[i] = outcome{a: a, err: err}
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if r.err != nil {
			p.failed(o, i, r, output.ErrorLead(p.Mode == "plain", tags[i] != ""))
		}
		if p.Flags.Notify {
			output.NotifyLines(p.Route, p.Targets[i].Name(), r.a, o.Stdout, o.Stderr, o.TTY, o.ErrTTY)
		}
	}
	// The detach message goes to stderr in both line modes: stdout ends
	// on the verdict (plain: its last line, design §4; jsonl: one JSON
	// object per line).
	return runs, p.exit(runs, o.Stderr)
}

// failed reports the error that stopped target i (-1: the program that
// drew them all) on stderr after say ("": not at all): an internal one as
// the report of a bug, with the command that resumes it; one that came
// before aipd answered with its hint.
func (p *Plan) failed(o IO, i int, r outcome, say string) {
	ts, tag := p.Targets, ""
	if i >= 0 {
		ts, tag = ts[i:i+1], p.tags()[i]
	}
	var se *stream.Error
	switch {
	case errors.As(r.err, &se) && se.Op == "internal": // a caught panic: the action was not touched
		ws := make([]output.Watched, len(ts))
		for j := range ts {
			ws[j] = p.watch(max(i, 0)+j, r)
		}
		fmt.Fprint(o.Stderr, p.resume().PanicLines(se.Message, ws))
		return
	case i < 0 && p.Mode == "jsonl":
		output.WriteError(o.Stdout, r.err)
	case say != "":
		fmt.Fprintf(o.Stderr, "%s%s%s\n", say, tag, safe.Line(r.err.Error()))
	}
	if i >= 0 && ts[0].Hint != nil && !attached(r.a) {
		if h := ts[0].Hint(r.err); h != "" {
			fmt.Fprintln(o.Stderr, safe.Line(h))
		}
	}
}

// attached reports whether aipd ever answered this run: an error before
// that is a start-up failure, which gets a hint.
func attached(a *model.Action) bool {
	return a != nil && a.Connection().Answered
}

// Fail reports an error that stops a command before or outside a run
// (exit 1): the jsonl error object on stdout, else a line on stderr.
func Fail(o IO, jsonl bool, err error) int {
	output.Fail(o.Stdout, o.Stderr, jsonl, err)
	return model.ExitError
}

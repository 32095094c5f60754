// Several actions at once (design §12): `aipwatch ID1 ID2 [ID3 ID4]`, each
// ID an act_… of the run's daemon or CONTEXT/act_… of another context's;
// in a terminal a split view, in plain and jsonl each action's lines, one
// verdict each.

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/ui"
	"aipwatch/ui/split"
)

// target is one action of several: the word given, its ID, the context
// that names its daemon ("" = the run's own), and the connection to it.
type target struct {
	arg, id, context string
	conn             conn
}

// contextTarget splits CONTEXT/act_… (ok false for any other word).
func contextTarget(word string) (name, id string, ok bool) {
	name, id, ok = strings.Cut(word, "/")
	return name, id, ok && name != "" && strings.HasPrefix(id, "act_")
}

// resolveMany checks the words of several actions (or one of another
// context) and decides each one's daemon: every mistake is a usage error
// before any request.
func (o *options) resolveMany(args []string, getenv func(string) string) error {
	if len(args) > split.MaxPanes {
		return output.UsageError(fmt.Sprintf("%d ACTION_IDs: at most %d at once", len(args), split.MaxPanes))
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"--cursor", o.cursor != ""}, {"--cancel", o.cancel}, {"--replay", o.replay != ""}, {"--demo", o.demo != ""},
		{"--record", o.record != ""}, {"--export", o.export != ""}, {"--speed", o.speed != 0}} {
		if f.set {
			return output.UsageError(f.name + " follows one action: give one ACTION_ID")
		}
	}
	o.conn = newConn(o.cf, true, getenv)
	seen := map[string]bool{}
	for _, w := range args {
		t := target{arg: w, id: w, conn: o.conn}
		if name, id, ok := contextTarget(w); ok {
			t.id, t.context, t.conn = id, name, forContext(o.cf, name, getenv)
		} else if !strings.HasPrefix(w, "act_") {
			return output.UsageError(fmt.Sprintf("%q is neither an ACTION_ID (act_…) nor CONTEXT/ACTION_ID", w))
		}
		if seen[w] {
			return output.UsageError(fmt.Sprintf("%s is given twice", w))
		}
		seen[w] = true
		if err := t.conn.check(); err != nil {
			return err
		}
		o.targets = append(o.targets, t)
	}
	return nil
}

// runMany follows the targets: in a split view on a terminal, else each
// one's lines. The exit code is 0 when every action is verified, else the
// first one's, in argument order, that is not.
func runMany(ctx context.Context, o *options, e *runEnv) int {
	stdout, stderr := e.stdout, e.stderr
	mode, isTTY := outputMode(o, stdout)
	runners := make([]stream.Runner, len(o.targets))
	for i := range o.targets {
		t := &o.targets[i]
		base, err := t.conn.config(stderr)
		if err == nil {
			cfg := o.withTimeouts(base)
			cfg.ActionID = t.id
			runners[i], err = newClient(cfg)
		}
		if err != nil {
			return fail(o, stdout, stderr, fmt.Errorf("%s: %w", t.arg, err))
		}
	}
	if mode == "tui" {
		return runManyTUI(ctx, o, e, runners, isTTY)
	}
	return runManyLines(ctx, o, mode, runners, stdout, stderr)
}

// runManyTUI runs the split view, then prints each action's closing lines
// (tagged) once the alt screen is gone.
func runManyTUI(ctx context.Context, o *options, e *runEnv, runners []stream.Runner, isTTY bool) int {
	base := liveOptions(o, isTTY)
	panes := make([]ui.Options, len(o.targets))
	for i := range o.targets {
		t := &o.targets[i]
		panes[i] = base
		panes[i].ActionID, panes[i].Backend, panes[i].Context, panes[i].Reconcile = t.id, runners[i], t.context, reconcilerFor(o, &t.conn)
	}
	sp := split.New(ctx, panes, o.keys.Live, base.NoColor)
	err := ui.Run(ctx, sp, ui.Terminal{Input: keysFrom(e.stdin), Output: safe.Unwrap(e.stdout), NoColor: base.NoColor})
	sp.Close()
	lives := sp.Panes()
	var se *stream.Error
	if err != nil && errors.As(err, &se) && se.Op == "internal" { // a caught panic: no action was touched
		fmt.Fprint(e.stderr, panicReport(se.Message, nil))
		fmt.Fprintf(e.stderr, "resume with: %s\n", o.resumeMany(o.targets))
		return model.ExitError
	} else if err != nil {
		return fail(o, e.stdout, e.stderr, err)
	}
	runs, tags := make([]manyRun, len(lives)), o.tags()
	for i, l := range lives {
		r := manyRun{a: l.Action(), err: l.Failure()}
		if !r.a.Settled() {
			r.a.Stop()
		}
		if r.err != nil {
			fmt.Fprintf(e.stderr, "aipwatch: error: %s%s\n", tags[i], safe.Line(r.err.Error()))
		}
		fmt.Fprint(e.stdout, tagLines(tags[i], output.ClosingLines(r.a, o.redact, true)))
		runs[i] = r
	}
	return o.manyExit(runs, e.stdout)
}

// manyRun is one action's run: its model and the error that stopped it.
type manyRun struct {
	a   *model.Action
	err error
}

// runManyLines runs plain's or jsonl's printer for each action at once;
// their lines go out whole, plain's tagged with the action's.
func runManyLines(ctx context.Context, o *options, mode string, runners []stream.Runner, stdout, stderr io.Writer) int {
	tags := o.tags()
	var mu sync.Mutex // one line at a time
	runs := make([]manyRun, len(runners))
	var wg sync.WaitGroup
	for i := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &tagged{mu: &mu, w: stdout}
			if mode == "plain" {
				w.tag = tags[i]
			}
			a, err := output.Run(ctx, runners[i], w, o.lineOptions(o.targets[i].id, mode))
			w.flush()
			runs[i] = manyRun{a: a, err: err}
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if r.err != nil {
			fmt.Fprintf(stderr, "aipwatch: %s%s\n", tags[i], safe.Line(r.err.Error()))
		}
		notifyLines(o, r.a, stdout, stderr, isTerminal)
	}
	return o.manyExit(runs, stderr)
}

// manyExit is the exit code of several runs: 0 when every action is
// verified, else the first one's, in argument order, that is not (an
// error's, pending's, the verdict's). When any still runs, w gets the
// command that follows those again: quitting is not cancellation.
func (o *options) manyExit(runs []manyRun, w io.Writer) int {
	code := model.ExitVerified
	var live []target
	for i, r := range runs {
		v, c := r.a.Verdict(), model.ExitError
		switch {
		case r.err != nil:
		case !v.Final:
			c = model.ExitPending
			if !r.a.Ended() {
				live = append(live, o.targets[i])
			}
		default:
			c = v.ExitCode
		}
		if code == model.ExitVerified {
			code = c
		}
	}
	if len(live) > 0 {
		which := "the action keeps"
		if len(live) > 1 {
			which = fmt.Sprintf("%d actions keep", len(live))
		}
		fmt.Fprintf(w, "aipwatch stopped watching; %s running (quitting is not cancellation).\nresume with: %s\n",
			which, o.resumeMany(live))
	}
	return code
}

// resumeMany is the command that follows ts again, as given.
func (o *options) resumeMany(ts []target) string {
	args := make([]string, len(ts))
	for i, t := range ts {
		args[i] = t.arg
	}
	return resumeWith(o, "", args...)
}

// tags are the targets' line tags: none for one action, else the end of
// each ID that tells it from the others' (ui.DistinctSuffix, as the
// cancel's confirmation asks for), in brackets.
func (o *options) tags() []string {
	tags := make([]string, len(o.targets))
	if len(o.targets) < 2 {
		return tags
	}
	ids := make([]string, len(o.targets))
	for i, t := range o.targets {
		ids[i] = t.id
	}
	for i, t := range o.targets {
		tags[i] = "[" + safe.Line(ui.DistinctSuffix(t.id, ids)) + "] "
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

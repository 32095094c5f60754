// The follow command: one action, live while it runs and reviewed once it
// has settled, in the TUI or a line mode (plain, jsonl).

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/reconcile"
	"aipwatch/record"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// addFollow makes the root the follow of one action (design §2): an
// ACTION_ID, a demo or a replay, or with none on a terminal the console
// (ls.go).
func addFollow(root *cobra.Command, e *runEnv, g *globalFlags) {
	o := &options{keys: e.keys, getenv: e.getenv}
	fs := root.Flags()
	fs.StringVar(&o.cursor, "cursor", "", "start from this `CURSOR` (the one a detached run printed)")
	addRunFlags(fs, &o.runFlags)
	addDemoFlag(fs, &o.demo, "follow a scripted action on the built-in simulator (`SCENARIO`s below; default chat-tools)", "chat-tools")
	fs.StringVar(&o.replay, "replay", "", "review a recording `FILE` made with --record, with no network")
	fs.Float64Var(&o.speed, "speed", 0, "with --replay: recorded time divided by `N` (default 0: instant)")
	fs.StringVar(&o.notifyOn, "notify-on", "", "the console: ring and notify when any action settles with one of these `VERDICTS` (failed,incomplete,partial); a burst is one notification (default: the context's notify_on)")
	root.RunE = versioned(e, g, func(c *cobra.Command, args []string) error {
		o.globalFlags = *g
		if err := o.resolve(c, args, e.getenv); err != nil {
			return err
		}
		if e.parsed != nil {
			e.parsed(o)
			return nil
		}
		return e.exit(runFollow(o, e))
	})
}

// resolve checks the follow's flags and arguments and decides its daemon:
// every mistake is a usage error before any request.
func (o *options) resolve(c *cobra.Command, args []string, getenv func(string) string) error {
	if err := o.checkRun(c.Flags()); err != nil {
		return err
	}
	if len(args) > 1 || (len(args) == 1 && strings.Contains(args[0], "/")) {
		if _, _, ok := contextTarget(args[0]); ok || strings.HasPrefix(args[0], "act_") {
			// Several actions, or one of another context (design §12).
			return o.resolveMany(args, getenv)
		}
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "act_") {
		if o.demo != "" && slices.Contains(rootDemos(), args[0]) {
			return output.UsageError(fmt.Sprintf("--demo follows its own action: give no ACTION_ID (for the %s scenario: --demo=%s)", args[0], args[0]))
		}
		return unknownVerb(c.Root(), args[0])
	}
	o.actionID = getenv("AIP_ACTION_ID")
	if len(args) == 1 {
		o.actionID = args[0]
	}
	if err := o.checkNotifyOn(c.Flags(), args); err != nil {
		return err
	}
	switch {
	case o.speed < 0:
		return output.UsageError("--speed must be 0 (instant) or more")
	case o.speed > 0 && o.replay == "":
		return output.UsageError("--speed only applies to --replay")
	}
	o.conn = newConn(o.cf, o.demo == "" && o.replay == "", getenv)
	if o.replay != "" {
		switch {
		case o.demo != "":
			return output.UsageError("--replay and --demo exclude each other")
		case len(args) == 1:
			return output.UsageError("--replay reviews the recorded action: give no ACTION_ID")
		case o.cancel:
			return output.UsageError("--cancel needs a live action, not a --replay")
		case o.record != "":
			return output.UsageError("--record and --replay exclude each other")
		}
		return nil
	}
	if o.demo != "" {
		if !slices.Contains(rootDemos(), o.demo) {
			return output.UsageError(fmt.Sprintf("unknown demo scenario %q (known: %s)", o.demo, strings.Join(rootDemos(), ", ")))
		}
		if len(args) == 1 {
			return output.UsageError("--demo follows its own action: give no ACTION_ID")
		}
		return nil
	}
	if o.actionID == "" {
		// On a terminal, no ACTION_ID opens the console (design §7);
		// runFollow decides, since only it knows the terminal.
		o.console = true
		return o.check()
	}
	if !strings.HasPrefix(o.actionID, "act_") {
		return output.UsageError(fmt.Sprintf("ACTION_ID (from $AIP_ACTION_ID) must start with act_: %q", o.actionID))
	}
	return o.check()
}

// runFollow follows one action (design §2): ACTION_ID, a demo or a replay,
// or with none on a terminal the console (ls.go).
func runFollow(o *options, e *runEnv) (code int) {
	stdout, stderr := e.stdout, e.stderr
	defer func() {
		// A bug must not leave a stack dump (or anything secret) on the
		// operator's screen: one line, and the action keeps running.
		if r := recover(); r != nil {
			fmt.Fprint(stderr, panicReport(r, o))
			code = model.ExitError
		}
	}()
	ctx, stop := detachContext()
	defer stop()

	if o.console || isConsoleDemo(o.demo) {
		return runConsole(ctx, o, e.stdin, stdout, stderr)
	}
	if len(o.targets) > 0 { // several actions (follow_many.go)
		return runMany(ctx, o, e)
	}
	if o.demo != "" {
		if !o.stallSet {
			// A demo of a run that never settles should not take six minutes
			// to say so: the scripted run's silence is known to be final.
			o.stallTimeout = demoStallTimeout
		}
		k := sim.Knobs{Speed: 1}
		if o.demo == "late-cancel" {
			// The demo sends the cancel itself, as --cancel does, once attached;
			// the simulator holds it in transit until the turn has completed,
			// so it lands late whatever the machine's speed.
			o.cancel = true
			k.CancelInTransit = demoLateCancelTransit
		}
		srv, ok := startDemo(o, k, stderr)
		if !ok {
			return model.ExitError
		}
		defer srv.Close()
		o.actionID = srv.ActionID()
	}

	mode, isTTY := outputMode(o, stdout)
	if err := checkExportPath(o.export); err != nil {
		return fail(o, stdout, stderr, err)
	}
	return followRun(ctx, o, e, mode, isTTY, nil)
}

// followRun follows the run o describes (a follow, a demo, a replay, a
// submission) in mode and returns its exit code; after, when set, sees
// the final model before the export and the recording are closed.
func followRun(ctx context.Context, o *options, e *runEnv, mode string, isTTY bool, after func(*model.Action)) int {
	runner, finish, err := newRunner(o, mode, e.stderr)
	if err != nil {
		return fail(o, e.stdout, e.stderr, err)
	}
	a, code := runMode(ctx, o, mode, runner, e.stdin, e.stdout, e.stderr, isTTY)
	if a != nil && after != nil {
		after(a)
	}
	if err := finish(a); err != nil {
		fmt.Fprintf(e.stderr, "aipwatch: %s\n", safe.Line(err.Error()))
		if code == model.ExitVerified {
			code = model.ExitError
		}
	}
	return code
}

// newRunner builds what the run reads from: the stream client (with the
// recorder around it for --record), or a replay. finish, called with the
// final model, writes the export and closes the recording.
func newRunner(o *options, mode string, stderr io.Writer) (stream.Runner, func(*model.Action) error, error) {
	var (
		runner stream.Runner
		rec    *record.Writer
		warns  []string
	)
	if o.replay != "" {
		rp, err := record.Open(o.replay)
		if err != nil {
			return nil, nil, err
		}
		o.actionID, rp.Speed = rp.ActionID(), o.speed
		if !o.urlGiven && rp.Header.BaseURL != "" {
			// A resume line names the daemon the recording came from.
			o.url = rp.Header.BaseURL
		}
		rp.Warn = func(s string) {
			if mode == "tui" { // printed after the alt screen is gone
				warns = append(warns, s)
			} else {
				fmt.Fprintf(stderr, "aipwatch: warning: %s\n", safe.Line(s))
			}
		}
		runner = rp
	} else {
		base, err := o.config(stderr)
		if err != nil {
			return nil, nil, err
		}
		cfg := o.withTimeouts(base)
		cfg.ActionID, cfg.Cursor = o.actionID, o.cursor
		if o.submission != nil { // aipwatch submit (submit.go)
			cfg.InFlight = o.submission.InFlight
		}
		if o.record != "" {
			rec, err = record.Create(o.record, record.Header{ActionID: o.actionID, BaseURL: o.shownURL(),
				Started: time.Now(), Version: versionString(), Redact: o.redact})
			if err != nil {
				return nil, nil, err
			}
			cfg.OnFrame = rec.Frame
		}
		client, err := newClient(cfg)
		if err != nil {
			return nil, nil, err
		}
		runner = client
		if o.submission != nil { // aipwatch submit: post, and follow the same ID (submit.go)
			o.submission.Client = client
			runner = o.submission
		}
		if rec != nil {
			runner = record.Recording{Inner: runner, W: rec}
		}
	}
	finish := func(a *model.Action) error {
		for _, w := range warns {
			fmt.Fprintf(stderr, "aipwatch: warning: %s\n", safe.Line(w))
		}
		var errs []error
		if o.export != "" && a != nil {
			md := output.ExportFile(o.export, a, output.HTMLOptions{MarkdownOptions: output.MarkdownOptions{Redact: o.redact, Version: versionString(), Now: time.Now()}, Resume: resumeCommand(o, a.Cursor)})
			if err := safe.WritePrivate(o.export, md); err != nil {
				errs = append(errs, fmt.Errorf("--export: %w", err))
			}
		}
		if rec != nil {
			if a != nil {
				rec.Verdict(output.RecordOf(a, o.redact))
			}
			if err := rec.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	return runner, finish, nil
}

// checkExportPath fails before the run, not after it, when --export names
// a file that cannot be written: a verified run must not end in exit 1
// because of a typo in a path. It leaves no file behind.
func checkExportPath(path string) error {
	if path == "" {
		return nil
	}
	_, statErr := os.Lstat(path)
	f, err := safe.OpenPrivate(path, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	f.Close()
	if os.IsNotExist(statErr) {
		_ = os.Remove(path) // the probe's own empty file
	}
	return nil
}

// runMode runs the TUI or the plain/jsonl printer over runner.
func runMode(ctx context.Context, o *options, mode string, runner stream.Runner, stdin io.Reader, stdout, stderr io.Writer, isTTY bool) (*model.Action, int) {
	if o.session == "" && o.replay == "" && o.getenv != nil {
		// An action submitted earlier from this machine: the journal kept
		// the session_id its input carried (a Chat finish may carry none).
		if jpath, err := journal.Path(o.getenv); err == nil {
			o.session = reconcile.Journalled(o.actionID, o.url, jpath).SessionID
		}
	}
	if mode == "tui" {
		return runTUI(ctx, o, runner, stdin, stdout, stderr, isTTY)
	}
	a, code := runLines(ctx, o, mode, runner, stdout, stderr)
	notifyLines(o, a, stdout, stderr, isTerminal)
	return a, code
}

// liveOptions are what every live view of the run shares (one action's,
// or each pane of several): keys, privacy, colour, notifications (--notify
// and n: notify.go, asked once).
func liveOptions(o *options, isTTY bool) ui.Options {
	note, noteHint := notification(o, isTTY)
	return ui.Options{Keys: o.keys.Live, Redact: o.redact, NoColor: o.colorless(isTTY),
		CancelReason: o.reason, Version: versionString(), RawCap: o.rawCap(),
		Notify: o.notify, Notification: note, NotifyHint: noteHint}
}

// lineOptions are what plain's or jsonl's printer of the action id shares
// with every other of the run.
func (o *options) lineOptions(id, mode string) output.RunOptions {
	return output.RunOptions{Options: output.Options{Redact: o.redact, Timestamps: o.timestamps},
		ActionID: id, JSONL: mode == "jsonl", RawCap: o.rawCap(), CancelReason: o.reason}
}

// runLines drives the plain or jsonl printer from the stream client
// (output.Run), then prints the closing lines and picks the exit code.
func runLines(ctx context.Context, o *options, mode string, client stream.Runner, stdout, stderr io.Writer) (*model.Action, int) {
	ro := o.lineOptions(o.actionID, mode)
	ro.Cancel, ro.Session = o.cancel, o.session
	a, err := output.Run(ctx, client, stdout, ro)
	if err != nil {
		if !attached(a) {
			printHint(stderr, o, err)
		}
		return a, model.ExitError
	}
	// The detach message goes to stderr in both line modes: stdout ends on
	// the verdict (plain: its last line, design §4; jsonl: one JSON
	// object per line).
	return a, exitCode(o, a, stderr)
}

// exitCode is a run's exit code, the verdict's; a run that stopped before
// the action settled also says, to w, how to resume it.
func exitCode(o *options, a *model.Action, w io.Writer) int {
	v := a.Verdict()
	if !v.Final {
		fmt.Fprint(w, detachMessage(o, a))
		return model.ExitPending
	}
	return v.ExitCode
}

// colorless says the TUI draws without colour: --no-color, $NO_COLOR, or
// an output that is no terminal (the one rule for every TUI: one action,
// the split view, the console).
func (o *options) colorless(isTTY bool) bool {
	return o.noColor || o.getenv("NO_COLOR") != "" || !isTTY
}

// runTUI runs the live interface, then prints the same closing lines as
// plain once the alt screen is gone.
func runTUI(ctx context.Context, o *options, client stream.Runner, stdin io.Reader, stdout, stderr io.Writer, isTTY bool) (*model.Action, int) {
	uo := liveOptions(o, isTTY)
	uo.ActionID, uo.Backend, uo.AutoCancel = o.actionID, client, o.cancel
	if o.demo == "" && o.replay == "" {
		// The resume command the help shows: none for a demo (its simulator
		// dies with aipwatch) or a replay (nothing is running).
		uo.Resume = func(cursor string) string { return resumeCommand(o, cursor) }
	}
	uo.Input, uo.Output, uo.ExportPath, uo.Replay = keysFrom(stdin), safe.Unwrap(stdout), o.export, o.replay != ""
	uo.Reconcile, uo.Session = reconcilerFor(o, &o.conn), o.session // R (reconcile.go)
	a, err := ui.Run(ctx, uo)
	if a == nil {
		return nil, fail(o, stdout, stderr, err)
	}
	var se *stream.Error
	if err != nil && errors.As(err, &se) {
		if se.Op == "internal" { // a caught panic: the action was not touched
			if a.Cursor != "" {
				o.cursor = a.Cursor // resume from where the viewer was
			}
			fmt.Fprint(stderr, panicReport(se.Message, o))
			return a, model.ExitError
		}
		// Errors go to stderr (the transcript stayed on the alt screen);
		// one that came before aipd ever answered gets a hint.
		fmt.Fprintf(stderr, "aipwatch: error: %s\n", safe.Line(se.Error()))
		if !attached(a) {
			printHint(stderr, o, se)
		}
		return a, model.ExitError
	}
	if !a.Settled() {
		a.Stop()
	}
	// The transcript stayed on the alt screen; what remains is the verdict.
	fmt.Fprint(stdout, output.ClosingLines(a, o.redact, true))
	return a, exitCode(o, a, stdout)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@=,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fail reports an error that stops aipwatch before or outside a run.
func fail(o *options, stdout, stderr io.Writer, err error) int {
	if o.output == "jsonl" {
		output.WriteError(stdout, err)
	} else {
		fmt.Fprintf(stderr, "aipwatch: %s\n", safe.Line(err.Error()))
	}
	return model.ExitError
}

// demoStallTimeout is --stall-timeout on the simulator unless given.
const demoStallTimeout = 5 * time.Second

// demoLateCancelTransit is how long --demo=late-cancel's cancel stays on
// the wire after the turn completed: time to read the verified verdict
// with the cancel still pending, before the "too late" line.
const demoLateCancelTransit = 2 * time.Second

// startDemo runs the simulator of --demo (the scenario o.demo) on
// 127.0.0.1:0 and points the run at it; when it cannot, it says so on
// stderr and returns false.
func startDemo(o *options, knobs sim.Knobs, stderr io.Writer) (*sim.Server, bool) {
	srv, err := sim.New(o.demo, knobs)
	if err == nil {
		o.url, err = srv.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "aipwatch: demo: %s\n", err)
		return nil, false
	}
	o.local(o.url)
	return srv, true
}

// outputMode is --output, or tui on a terminal and plain elsewhere; isTTY
// says whether stdout is a terminal.
func outputMode(o *options, stdout io.Writer) (mode string, isTTY bool) {
	isTTY = isTerminal(stdout)
	mode = o.output
	if mode == "" {
		mode = "plain"
		if isTTY {
			mode = "tui"
		}
	}
	return mode, isTTY
}

func isTerminal(w io.Writer) bool {
	f, ok := safe.Unwrap(w).(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// keysFrom is where a full-screen view (the live view, the split view, the
// console) reads its keys: stdin, unless stdin is a file or pipe that is no
// terminal (`xargs aipwatch` gives /dev/null; `… | aipwatch` a pipe). Then
// nil: Bubble Tea opens the controlling terminal itself, so q and c still
// reach the view instead of its quitting at stdin's end.
func keysFrom(stdin io.Reader) io.Reader {
	if f, ok := stdin.(*os.File); ok && !term.IsTerminal(f.Fd()) {
		return nil
	}
	return stdin
}

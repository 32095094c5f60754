// The follow command: one action, live while it runs and reviewed once it
// has settled, in the TUI or a line mode (plain, jsonl).

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/record"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// runFollow follows one action (design §2): ACTION_ID, a demo or a replay,
// or with none on a terminal the console (ls.go).
func runFollow(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, keys Keys) (code int) {
	o, fs, err := parse(args, stderr, getenv)
	defer func() {
		// A bug must not leave a stack dump (or anything secret) on the
		// operator's screen: one line, and the action keeps running.
		if r := recover(); r != nil {
			fmt.Fprint(stderr, panicReport(r, o))
			code = model.ExitError
		}
	}()
	if err != nil {
		if wantsJSONL(args) {
			output.WriteError(stdout, err)
		} else {
			fmt.Fprintf(stderr, "aipwatch: %s\n(see aipwatch --help)\n", safe.Line(err.Error()))
		}
		return model.ExitUsage
	}
	o.getenv, o.keys = getenv, keys
	switch {
	case o.help:
		usage(fs, stdout)
		return 0
	case o.version:
		fmt.Fprint(stdout, versionText())
		return 0
	}

	ctx, stop := detachContext()
	defer stop()

	if o.console || o.demo == demoConsole || o.demo == demoFleet {
		return runConsole(ctx, o, stdin, stdout, stderr)
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
	runner, finish, err := newRunner(o, mode, stderr)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	a, code := runMode(ctx, o, mode, runner, stdin, stdout, stderr, isTTY)
	if err := finish(a); err != nil {
		fmt.Fprintf(stderr, "aipwatch: %s\n", safe.Line(err.Error()))
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
		if err := loadToken(o, stderr); err != nil {
			return nil, nil, err
		}
		httpc, err := stream.HTTPClient(o.cacert)
		if err != nil {
			return nil, nil, err
		}
		cfg := o.withTimeouts(stream.Config{BaseURL: o.url, Token: o.token, ActionID: o.actionID, Cursor: o.cursor, HTTP: httpc})
		if o.submission != nil { // aipwatch submit (submit.go)
			cfg.InFlight = o.submission.InFlight
		}
		if o.record != "" {
			rec, err = record.Create(o.record, record.Header{ActionID: o.actionID, BaseURL: redactURL(o.url),
				Started: time.Now(), Version: versionString(), Redact: o.redact})
			if err != nil {
				return nil, nil, err
			}
			cfg.OnFrame = rec.Frame
		}
		client, err := stream.New(cfg)
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
			md := output.Markdown(a, output.MarkdownOptions{Redact: o.redact, Version: versionString(), Now: time.Now()})
			if err := safe.WritePrivate(o.export, md); err != nil {
				errs = append(errs, fmt.Errorf("--export: %w", err))
			}
		}
		if rec != nil {
			if a != nil {
				v := a.Record()
				if o.redact {
					v = output.RedactRecord(v)
				}
				rec.Verdict(v)
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
			o.session = journalled(o.actionID, o.url, jpath).SessionID
		}
	}
	if mode == "tui" {
		return runTUI(ctx, o, runner, stdin, stdout, stderr, isTTY)
	}
	a, code := runLines(ctx, o, mode, runner, stdout, stderr)
	notifyLines(o, a, stdout, stderr, isTerminal)
	return a, code
}

// runLines drives the plain or jsonl printer from the stream client
// (output.Run), then prints the closing lines and picks the exit code.
func runLines(ctx context.Context, o *options, mode string, client stream.Runner, stdout, stderr io.Writer) (*model.Action, int) {
	a, err := output.Run(ctx, client, stdout, output.RunOptions{
		Options:      output.Options{Redact: o.redact, Timestamps: o.timestamps},
		ActionID:     o.actionID,
		JSONL:        mode == "jsonl",
		RawCap:       o.rawCap(),
		Cancel:       o.cancel,
		CancelReason: o.reason,
		Session:      o.session,
	})
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

// runTUI runs the live interface, then prints the same closing lines as
// plain once the alt screen is gone.
func runTUI(ctx context.Context, o *options, client stream.Runner, stdin io.Reader, stdout, stderr io.Writer, isTTY bool) (*model.Action, int) {
	noColor := o.noColor || o.getenv("NO_COLOR") != "" || !isTTY
	a, err := ui.Run(ctx, ui.Options{
		ActionID:     o.actionID,
		Keys:         o.keys.Live,
		Backend:      client,
		Redact:       o.redact,
		NoColor:      noColor,
		CancelReason: o.reason,
		AutoCancel:   o.cancel,
		Resume:       tuiResume(o),
		Input:        stdin,
		Output:       safe.Unwrap(stdout),
		ExportPath:   o.export,
		Version:      versionString(),
		Replay:       o.replay != "",
		RawCap:       o.rawCap(),
		Reconcile:    reconcilerFor(o), // R (reconcile.go)
		Notify:       o.notify,
		Notification: notification(o, isTTY), // --notify and n (notify.go)
		Session:      o.session,
	})
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

// tuiResume is the resume command the TUI's help shows: none for a demo
// (its simulator dies with aipwatch) or a replay (nothing is running).
func tuiResume(o *options) func(string) string {
	if o.demo != "" || o.replay != "" {
		return nil
	}
	return func(cursor string) string { return resumeCommand(o, cursor) }
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
	o.tokenFile, o.token = "", "" // the simulator asks for none: no real token goes to it
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

func wantsJSONL(args []string) bool {
	for i, a := range args {
		if a == "--output=jsonl" || (a == "--output" && i+1 < len(args) && args[i+1] == "jsonl") {
			return true
		}
	}
	return false
}

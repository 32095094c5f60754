package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/reconcile"
	"aipwatch/record"
	"aipwatch/run"
	"aipwatch/safe"
	"aipwatch/stream"
)

// A run of watching actions, as the follow and submit make it: each
// target's source, then one run.Plan (aipwatch/run draws and closes it),
// then what each run leaves behind (the export, the recording).

// source is one target and what it is read from (its stream client, a
// submission or a replay); rec and warns are what its run leaves behind
// (the recording, a replay's warnings, said once the alt screen is gone).
type source struct {
	t       target
	cursor  string // where it starts (--cursor)
	session string // the Hermes session_id its input carried
	runner  stream.Runner
	rec     *record.Writer
	warns   []string
}

// runWatch runs the sources made for the output mode, then closes each one;
// after, when set, sees each final model before its export and recording
// are closed. It returns the exit code (design §3).
func runWatch(ctx context.Context, w *watch, sources func(mode string) ([]*source, error), replay bool, after func(*model.Action)) int {
	p, io, srcs, err := w.decide(sources, replay)
	if err != nil {
		return run.Fail(io, p.Mode == "jsonl", err)
	}
	code, models := run.Run(ctx, p, io)
	for i, s := range srcs {
		a := models[i]
		if a != nil && after != nil {
			after(a)
		}
		if err := s.finish(w, a); err != nil {
			fmt.Fprintf(io.Stderr, "aipwatch: %s\n", safe.Line(err.Error()))
			if code == model.ExitVerified {
				code = model.ExitError
			}
		}
	}
	return code
}

// decide is the one decision of w's run: its IO and output mode, what its
// targets are read from (sources, made for that mode), and its plan.
func (w *watch) decide(sources func(mode string) ([]*source, error), replay bool) (run.Plan, run.IO, []*source, error) {
	io, mode := w.e.ioOf(w.g.output)
	srcs, err := sources(mode)
	return planOf(w, mode, io.TTY, srcs, replay), io, srcs, err
}

// planOf is the run of srcs in mode.
func planOf(w *watch, mode string, isTTY bool, srcs []*source, replay bool) run.Plan {
	p := run.Plan{Mode: mode, Keys: w.e.keys.Live, Version: versionString(),
		Flags: run.Flags{Redact: w.g.redact, Timestamps: w.r.timestamps, Cancel: w.r.cancel, Notify: w.r.notify,
			NoColor: w.colorless(isTTY), Replay: replay, Reason: w.r.reason, RawCap: w.r.rawCap(), Export: w.r.export},
		Route: w.e.notifyRoute}
	if w.r.demo != "" {
		p.Again = invokedAs() + " --demo=" + shellQuote(w.r.demo)
	} else {
		p.Resume = w.resume
	}
	for _, s := range srcs {
		c, id := s.t.conn, s.t.id
		t := run.Target{Arg: s.t.arg, ID: id, Context: s.t.context, Cursor: s.cursor, Runner: s.runner, Session: s.session,
			Hint: func(err error) string { return startupHint(&c, id, err) }}
		if !replay {
			t.Reconcile = reconcilerFor(&c, w.e.getenv, w.g.redact) // R (reconcile.go)
		}
		p.Targets = append(p.Targets, t)
	}
	return p
}

// source is t's stream client from cursor, with the recorder around it
// for --record; sub, when set, posts the action first (submit.go), its
// input carrying session.
func (w *watch) source(t target, cursor string, sub *stream.Submission, session string) (*source, error) {
	s := &source{t: t, cursor: cursor, session: session}
	base, err := t.conn.config(w.e.stderr)
	if err != nil {
		return nil, err
	}
	cfg := w.r.withTimeouts(base)
	cfg.ActionID, cfg.Cursor = t.id, cursor
	if sub != nil {
		cfg.InFlight = sub.InFlight
	} else if jpath, err := journal.Path(w.e.getenv); err == nil {
		// An action submitted earlier from this machine: the journal kept
		// the session_id its input carried (a Chat finish may carry none).
		s.session = reconcile.Journalled(t.id, t.conn.url, jpath).SessionID
	}
	if w.r.record != "" {
		s.rec, err = record.Create(w.r.record, record.Header{ActionID: t.id, BaseURL: t.conn.shownURL(),
			Started: time.Now(), Version: versionString(), Redact: w.g.redact})
		if err != nil {
			return nil, err
		}
		cfg.OnFrame = s.rec.Frame
	}
	client, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	s.runner = client
	if sub != nil { // aipwatch submit: post, and follow the same ID
		sub.Client = client
		s.runner = sub
	}
	if s.rec != nil {
		s.runner = record.Recording{Inner: s.runner, W: s.rec}
	}
	return s, nil
}

// replay is the source of --replay FILE at speed; the resume names the
// daemon the recording came from.
func (w *watch) replay(path string, speed float64, mode string) (*source, error) {
	rp, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	rp.Speed = speed
	if !w.conn.urlGiven && rp.Header.BaseURL != "" {
		w.conn.url = rp.Header.BaseURL
	}
	s := &source{t: target{arg: rp.ActionID(), id: rp.ActionID(), conn: w.conn}, runner: rp}
	rp.Warn = func(msg string) {
		if mode == "tui" { // printed after the alt screen is gone
			s.warns = append(s.warns, msg)
		} else {
			fmt.Fprintf(w.e.stderr, "aipwatch: warning: %s\n", safe.Line(msg))
		}
	}
	return s, nil
}

// finish says a replay's warnings, writes the export of a (--export) and
// closes the recording with its verdict.
func (s *source) finish(w *watch, a *model.Action) error {
	for _, msg := range s.warns {
		fmt.Fprintf(w.e.stderr, "aipwatch: warning: %s\n", safe.Line(msg))
	}
	var errs []error
	if w.r.export != "" && a != nil {
		md := output.ExportFile(w.r.export, a, output.HTMLOptions{MarkdownOptions: output.MarkdownOptions{Redact: w.g.redact, Version: versionString(), Now: time.Now()}, Resume: w.resume(a.Cursor, a.ID)})
		if err := safe.WritePrivate(w.r.export, md); err != nil {
			errs = append(errs, fmt.Errorf("--export: %w", err))
		}
	}
	if s.rec != nil {
		if a != nil {
			s.rec.Verdict(output.RecordOf(a, w.g.redact))
		}
		if err := s.rec.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fail is run.Fail on w's streams, under its --output.
func (w *watch) fail(err error) int {
	return run.Fail(run.IO{Stdout: w.e.stdout, Stderr: w.e.stderr}, w.g.output == "jsonl", err)
}

// colorless says the TUI draws without colour: --no-color, $NO_COLOR, or
// an output that is no terminal (the one rule for every TUI).
func (w *watch) colorless(isTTY bool) bool {
	return w.g.noColor || w.e.getenv("NO_COLOR") != "" || !isTTY
}

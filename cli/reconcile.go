package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/reconcile"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/ui"
)

// `aipwatch reconcile ACTION_ID` (design §8): review the settled action,
// then submit one read-only action and show the stored status beside the
// verdict, which it never changes. The rules are reconcile/'s; this file
// wires them to the command, the TUI's R key and the printers.

func reconcileCommand(e *runEnv, g *globalFlags) *cobra.Command {
	w := &watch{e: e}
	var readTimeout time.Duration
	c := &cobra.Command{
		Use:   "reconcile [flags] ACTION_ID",
		Short: "read the provider's stored state of a settled action once",
		Long: "aipwatch reconcile reads the provider's stored state of a settled action once: " +
			"response_get of its response.id (Responses), the Hermes session read of its session_id (Chat). " +
			"It submits one read-only action, journalled like any submission, and never re-runs the stream.",
		Example: `  aipwatch reconcile act_0123456789
  aipwatch reconcile --output jsonl act_0123456789 | jq .stored_status
  aipwatch reconcile --context prod --export incident.md act_0123456789`,
		Args: cobra.ArbitraryArgs, // checked after --version
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.DurationVar(&readTimeout, "read-timeout", reconcile.DefaultReadTimeout, "how long the read waits for aipd's answer before it is reported unanswered (`D`)")
	addReviewFlags(fs, &w.r)
	c.RunE = versioned(e, g, func(c *cobra.Command, args []string) error {
		w.g = *g
		if err := w.r.checkRun(c.Flags()); err != nil {
			return err
		}
		switch {
		case len(args) != 1:
			return output.UsageError("reconcile takes one ACTION_ID")
		case !strings.HasPrefix(args[0], "act_"):
			return output.UsageError(fmt.Sprintf("ACTION_ID must start with act_: %q", args[0]))
		case w.g.output == "tui":
			return output.UsageError("reconcile prints lines: --output plain or jsonl (the TUI has the R key)")
		case readTimeout <= 0:
			return output.UsageError("--read-timeout must be a positive duration (e.g. 30s, 2m)")
		}
		w.conn = newConn(w.g.cf, true, e.getenv)
		if err := w.conn.check(); err != nil {
			return err
		}
		ctx, stop := detachContext()
		defer stop()
		return e.exit(runReconcile(ctx, w, args[0], readTimeout))
	})
	return c
}

func (c *conn) reader(client *stream.Client, timeout time.Duration) reconcile.Daemon {
	return reconcile.Daemon{Client: client, BaseURL: c.shownURL(), TokenSource: c.tokenSource(), Timeout: timeout}
}

func runReconcile(ctx context.Context, w *watch, id string, readTimeout time.Duration) int {
	stdout, stderr, redact, jsonl := w.e.stdout, w.e.stderr, w.g.redact, w.g.output == "jsonl"
	base, err := w.conn.config(stderr)
	if err != nil {
		return w.fail(err)
	}
	cfg := w.r.withTimeouts(base)
	cfg.ActionID = id
	client, err := newClient(cfg)
	if err != nil {
		return w.fail(err)
	}
	// Review the original action quietly: the verdict and the IDs to read.
	// One that has not settled is followed until it does (the read needs
	// its verdict), and the operator is told so.
	a := model.NewAction(id)
	a.SetRawCap(w.r.rawCap())
	var runErr *stream.Error
	rerr := client.Run(ctx, stream.SinkFunc(func(m stream.Msg) {
		stream.Apply(a, m)
		switch m := m.(type) {
		case stream.ErrorMsg:
			runErr = m.Err
		case stream.ModeMsg:
			if !m.Review {
				fmt.Fprintf(stderr, "aipwatch: reconcile: %s has not settled; following it until it does (the read needs its verdict)\n", safe.Line(id))
			}
		}
	}))
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "aipwatch: reconcile stopped before %s settled: nothing was submitted\n", safe.Line(id))
		if jsonl { // the last line is the verdict object, as a follow stopped early writes it: pending
			a.Stop()
			_ = output.WriteObject(stdout, output.RecordOf(a, redact))
		}
		return model.ExitPending
	}
	if rerr != nil {
		e := runErr
		if e == nil {
			e = &stream.Error{Op: "review", Message: rerr.Error()}
		}
		return w.fail(e)
	}
	jpath, err := journal.Path(w.e.getenv)
	if err != nil {
		return w.fail(err)
	}
	plan, err := reconcile.PlanRead(id, w.conn.url, a, jpath)
	if err != nil {
		return w.fail(err)
	}
	res := reconcile.Read(ctx, w.conn.reader(client, readTimeout), jpath, plan)
	printReconcile(redact, jsonl, stdout, a, res)
	if w.r.export != "" {
		md := output.ExportFile(w.r.export, a, output.HTMLOptions{MarkdownOptions: output.MarkdownOptions{Redact: redact, Version: versionString(), Now: time.Now()}})
		if output.FormatOf(w.r.export) == output.ExportMarkdown { // the HTML report has its own reconcile section
			md = append(md, []byte(res.Markdown(redact))...)
		}
		if err := safe.WritePrivate(w.r.export, md); err != nil {
			fmt.Fprintf(stderr, "aipwatch: --export: %s\n", safe.Line(err.Error()))
			return model.ExitError
		}
	}
	if res.Refused {
		return model.ExitError
	}
	return 0
}

// reconcilerFor is the TUI's R key on the daemon c: the journal is read
// before the TUI starts, the plan is made from the model (pure), the read
// runs in a command with its own client, within the read's default
// bound. The action is the one the live view shows.
func reconcilerFor(c *conn, getenv func(string) string, redact bool) ui.ReconcileFunc {
	if getenv == nil {
		return nil
	}
	jpath, err := journal.Path(getenv)
	if err != nil {
		return nil
	}
	orig := reconcile.JournalledAll(c.url, jpath)
	return func(a *model.Action) (string, func(context.Context) string) {
		id := a.ID
		p, err := reconcile.PlanFrom(id, a, orig[id])
		if err != nil {
			return safe.Line(err.Error()), nil
		}
		shown := p.Target
		if redact {
			shown = safe.Masked
		}
		return p.Op + " of " + safe.Line(shown), func(ctx context.Context) string {
			cfg, err := c.config(io.Discard)
			if err != nil {
				return "not sent: " + safe.Line(err.Error())
			}
			cfg.ActionID = id
			client, err := newClient(cfg)
			if err != nil {
				return "not sent: " + safe.Line(err.Error())
			}
			return reconcile.Read(ctx, c.reader(client, 0), jpath, p).Line(redact)
		}
	}
}

func printReconcile(redact, jsonl bool, stdout io.Writer, a *model.Action, r reconcile.Result) {
	if jsonl {
		line := struct {
			Type         string              `json:"type"`
			Verdict      model.VerdictRecord `json:"verdict"`
			Operation    string              `json:"operation"`
			ActionID     string              `json:"reconcile_action_id"`
			Target       string              `json:"target"`
			StoredStatus string              `json:"stored_status,omitempty"`
			Meaning      string              `json:"meaning"`
			Refused      bool                `json:"refused,omitempty"`
		}{"reconcile", output.RecordOf(a, redact), r.Op, r.ActionID, r.Shown(redact), r.StoredStatus, r.Meaning, r.Refused}
		_ = output.WriteObject(stdout, line)
		return
	}
	fmt.Fprint(stdout, output.VerdictLine(a))
	fmt.Fprintf(stdout, "stored: %s (%s of %s by %s; the verdict above is unchanged)\n", r.Status(), r.Op, r.Shown(redact), r.ActionID)
	fmt.Fprintf(stdout, "stored: %s\n", r.Meaning)
}

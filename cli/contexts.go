package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/config"
	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// applyContext fills what flags and environment left empty from the
// context named (or the file's current one): config.Resolve. A broken
// config is kept in o.ctx.Err and reported by load, the first step of
// every request.
func (o *conn) applyContext(name string, f *config.File, err error, getenv func(string) string) {
	rules := config.Rules{
		SameDaemon: func(contextURL string) bool { return journal.SameDaemon(contextURL)(redactURL(o.url)) },
		CheckNotifyOn: func(s string) error {
			_, err := model.ParseVerdicts(s)
			return err
		},
	}
	given := config.Daemon{URL: o.url, TokenFile: o.tokenFile, Token: o.token != "", CACert: o.cacert, AllowInsecureHTTP: o.allowInsecureHTTP}
	d, u := config.Resolve(given, name, f, err, rules, getenv)
	o.url, o.urlGiven, o.tokenFile, o.cacert, o.allowInsecureHTTP = d.URL, d.URL != "", d.TokenFile, d.CACert, d.AllowInsecureHTTP
	o.ctx = u
}

// checkContext stops a command that reaches aipd on a config it could not
// use, checks the context's CA file before the token is read (so its
// error names the context), and warns when the token is not the context's
// own.
func (o *conn) checkContext(stderr io.Writer) error {
	c := o.ctx
	if c.Err != nil {
		return c.Err
	}
	if c.CACert {
		if _, err := o.readCA(); err != nil {
			return err
		}
	}
	if c.Skipped != "" && c.Explicit {
		fmt.Fprintf(stderr, "aipwatch: warning: context %s is not used: --url or $AIP_URL names another daemon, and its credentials are for its own\n", safe.Line(c.Skipped))
	}
	if c.EnvToken != "" {
		fmt.Fprintf(stderr, "aipwatch: warning: the token comes from %s, not from context %s's token_file, and goes to %s\n",
			c.EnvToken, safe.Line(c.Name), safe.Line(redactURL(o.url)))
	}
	return nil
}

// wrapContext names the context and key of an error about a field the
// context gave.
func (o *conn) wrapContext(key string, fromContext bool, err error) error {
	if !fromContext || o.ctx.Name == "" {
		return err
	}
	return fmt.Errorf("context %s: %s: %w", o.ctx.Name, key, err)
}

const probeTimeout = 3 * time.Second

// contextsCommand is `aipwatch contexts` (the list) and `contexts use NAME`.
func contextsCommand(e *runEnv, g *globalFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "contexts [flags]",
		Short: "the config file's daemons: does each answer?",
		Long: fmt.Sprintf("List the contexts of %s: the current one marked *, each one's URL and "+
			"token file, and whether its daemon answers (one probe each, at most %s). --context NAME "+
			"(or $AIPWATCH_CONTEXT) picks a context for any command; flags and AIP_* variables win over it.",
			config.PathShown(e.getenv), probeTimeout),
		Example: `  aipwatch contexts
  aipwatch contexts use staging
  aipwatch --context prod ls`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownVerb(c, args[0])
			}
			return nil
		},
	}
	c.RunE = versioned(e, g, func(*cobra.Command, []string) error { return runContexts(e, g) })
	c.AddCommand(&cobra.Command{
		Use:   "use NAME",
		Short: "make NAME the current context (the file's current = \"NAME\")",
		Long: "Set the config file's current context to NAME: the file is rewritten at once (a new " +
			"file renamed over it, its mode kept within 0600), every other byte kept. A config that " +
			"is a symbolic link is written through it: its target is replaced, the link stays. A name " +
			"the file does not hold is a usage error and the file is left as it was.",
		Example: `  aipwatch contexts use staging
  aipwatch contexts use prod && aipwatch ls`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return output.UsageError("contexts use takes one context NAME")
			}
			return nil
		},
		RunE: versioned(e, g, func(_ *cobra.Command, args []string) error { return useContext(e, args[0]) }),
	})
	return c
}

// runContexts lists the config file's contexts: the current one marked,
// each one's URL, its token's source (never the token) and whether its
// daemon answers.
func runContexts(e *runEnv, g *globalFlags) error {
	if g.output == "tui" {
		g.output = "plain"
	}
	f, err := filesOf(g.cf, e.getenv).Config()
	if err != nil {
		return e.fail(g.output, err)
	}
	if f == nil {
		fmt.Fprintf(e.stderr, "aipwatch: no config file at %s: aipwatch uses --url, $AIP_URL and the token variables (docs/contexts.md)\n", config.PathShown(e.getenv))
		return nil
	}
	rows := probeAll(f, g.cf, e.getenv)
	_ = output.WriteContexts(e.stdout, g.output == "jsonl", rows)
	return nil
}

// probeAll probes every context at once, each within probeTimeout
// (stream.Multi's fan-out, as ls --all-contexts reads them).
func probeAll(f *config.File, cf connFlags, getenv func(string) string) []output.ContextRow {
	names := f.Names()
	rows := make([]output.ContextRow, len(names))
	fanOut := stream.Multi{Sources: make([]stream.MultiSource, len(names))}
	fanOut.Each(context.Background(), probeTimeout, func(ctx context.Context, i int, _ stream.MultiSource) {
		c := f.Contexts[names[i]]
		rows[i] = output.ContextRow{Name: c.Name, Current: names[i] == f.Current, URL: redactURL(c.URL), TokenFile: c.TokenFile, CACert: c.CACert}
		rows[i].Status, rows[i].Reachable = probe(ctx, c, cf, getenv)
	})
	return rows
}

// probe reads one list row with the context's own credentials: it says
// whether the daemon answers and takes the token.
func probe(ctx context.Context, c config.Context, cf connFlags, getenv func(string) string) (string, bool) {
	cn := forContext(cf, c.Name, getenv)
	client, err := cn.quietDaemon()
	if err != nil {
		return err.Error(), false
	}
	_, err = client.ListAt(ctx, stream.ListQuery{}, 0, 1)
	if err == nil {
		return "ok", true
	}
	var se *stream.Error
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer from " + hostOf(cn.url) + " within " + probeTimeout.String(), false
	}
	if errors.As(err, &se) && se.Denied() {
		return fmt.Sprintf("refuses the token (%d %s)", se.HTTPStatus, se.Code), false
	}
	return err.Error(), false
}

func useContext(e *runEnv, name string) error {
	path := config.Path(e.getenv)
	if path == "" {
		return e.fail("", fmt.Errorf("no config file: %s cannot be known", config.PathShown(e.getenv)))
	}
	err := config.SetCurrent(path, name, e.getenv)
	switch {
	case errors.Is(err, config.ErrUnknownContext):
		return output.UsageError(err.Error())
	case err != nil:
		return e.fail("", err)
	}
	fmt.Fprintf(e.stdout, "current context: %s\n", safe.Line(name))
	return nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"text/tabwriter"
	"time"

	"aipwatch/config"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Named contexts (design §9): the config file names the daemons an
// operator works with; --context or $AIPWATCH_CONTEXT picks one, else the
// file's current one. Flags and the AIP_* variables win over the file,
// field by field; no file is today's behaviour exactly.

// contextUse is what a run took from a context: which fields, so the
// errors name the context and key, and the resume command names the
// context instead of repeating what it gives.
type contextUse struct {
	name     string // "" = no context applies
	explicit bool   // named by --context or $AIPWATCH_CONTEXT, not the file's current
	err      error  // the config file could not be used: every command that reaches aipd stops on it
	url      bool   // o.url is the context's
	token    bool   // o.tokenFile is the context's token_file
	cacert   bool   // o.cacert is the context's
	// envToken names the variable that gave the token while the URL is the
	// context's: that token goes to the context's daemon, so say so.
	envToken string
	// skipped names the context not used because --url or $AIP_URL named
	// another daemon.
	skipped string
	// insecureFlag is --allow-insecure-http as given, before any context's
	// allow_insecure_http (one context's may not open another's to http).
	insecureFlag, applied bool
}

// applyContext fills what flags and environment left empty from the
// context the run names (or the file's current one). A broken config is
// kept in o.ctx.err and reported by loadToken, the first step of every
// command that talks to aipd; a demo or a replay does not read it.
func applyContext(o *options, getenv func(string) string) {
	o.ctx.insecureFlag, o.ctx.applied = o.allowInsecureHTTP, true
	if o.demo != "" || o.replay != "" {
		return // a demo's daemon is its own, a replay reaches none
	}
	name := o.contextFlag
	if name == "" {
		name = getenv("AIPWATCH_CONTEXT")
	}
	o.ctx.explicit = name != ""
	f, err := config.Load(config.Path(getenv), getenv)
	if err != nil {
		o.ctx.err = err
		return
	}
	if f == nil {
		if name != "" {
			o.ctx.err = fmt.Errorf("context %q: there is no config file (%s); see aipwatch contexts --help", name, configPathShown(getenv))
		}
		return
	}
	c, ok, err := f.Pick(name)
	if err != nil || !ok {
		o.ctx.err = err
		return
	}
	if o.urlGiven && !sameDaemon(c.URL)(redactURL(o.url)) {
		// --url or $AIP_URL names another daemon: none of the context's
		// credentials go there (a context's token is for its own URL).
		o.ctx.skipped = c.Name
		return
	}
	o.ctx.name = c.Name
	if !o.urlGiven {
		o.url, o.urlGiven, o.ctx.url = c.URL, true, true
	}
	switch {
	case o.tokenFile == "" && o.token == "":
		o.tokenFile, o.ctx.token = c.TokenFile, c.TokenFile != ""
	case o.ctx.url:
		o.ctx.envToken = tokenVariable(o, getenv)
	}
	if o.cacert == "" {
		o.cacert, o.ctx.cacert = c.CACert, c.CACert != ""
	}
	o.allowInsecureHTTP = o.allowInsecureHTTP || c.AllowInsecureHTTP
}

// tokenVariable names where a token that is not the context's came from.
func tokenVariable(o *options, getenv func(string) string) string {
	for _, v := range []string{"AIP_TOKEN_FILE", "GETAIP_NATIVE_BEARER_TOKEN_FILE"} {
		if o.tokenFile != "" && getenv(v) == o.tokenFile {
			return "$" + v
		}
	}
	if o.tokenFile != "" {
		return "--token-file"
	}
	return "$AIP_TOKEN"
}

func configPathShown(getenv func(string) string) string {
	if p := config.Path(getenv); p != "" {
		return p
	}
	return "$XDG_CONFIG_HOME/aipwatch/config.toml"
}

// check stops a command that reaches aipd on a config it could not use,
// checks the context's CA file before it is used (so its error names the
// context), and warns when the token is not the context's own.
func (c contextUse) check(o *options, stderr io.Writer) error {
	if c.err != nil {
		return c.err
	}
	if c.cacert {
		if _, err := os.ReadFile(o.cacert); err != nil {
			return c.wrap("cacert", true, err)
		}
	}
	if c.skipped != "" && c.explicit {
		fmt.Fprintf(stderr, "aipwatch: warning: context %s is not used: --url or $AIP_URL names another daemon, and its credentials are for its own\n", safe.Line(c.skipped))
	}
	if c.envToken != "" {
		fmt.Fprintf(stderr, "aipwatch: warning: the token comes from %s, not from context %s's token_file, and goes to %s\n",
			c.envToken, safe.Line(c.name), safe.Line(redactURL(o.url)))
	}
	return nil
}

// wrap names the context and key of an error about a field the context gave.
func (c contextUse) wrap(key string, fromContext bool, err error) error {
	if !fromContext || c.name == "" {
		return err
	}
	return fmt.Errorf("context %s: %s: %w", c.name, key, err)
}

// contextsIgnores are the common flags `aipwatch contexts` does not take.
var contextsIgnores = []string{"token-file", "cursor", "cancel", "notify", "reason", "redact", "timestamps", "demo", "cacert",
	"allow-insecure-http", "record", "replay", "speed", "export", "raw-cap-mib", "appear-timeout", "stall-timeout", "url", "context"}

// probeTimeout bounds each context's reachability probe.
const probeTimeout = 3 * time.Second

// runContexts lists the config file's contexts: the current one marked,
// each one's URL, its token's source (never the token) and whether its
// daemon answers.
func runContexts(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	o := &options{}
	fs := newFlagSet(o, stderr)
	fs.Usage = func() {}
	hideFlags(fs, contextsIgnores)
	jsonl := wantsJSONL(args)
	if err := fs.Parse(args); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}
	switch {
	case o.help:
		fmt.Fprintf(stdout, "Usage: aipwatch contexts [--output plain|jsonl]\n\n"+
			"List the contexts of %s: the current one marked *, each one's URL and token file, and\n"+
			"whether its daemon answers (one probe each, at most %s). --context NAME (or\n"+
			"$AIPWATCH_CONTEXT) picks a context for any command; flags and AIP_* variables win over it.\n\nFlags:\n",
			configPathShown(getenv), probeTimeout)
		fmt.Fprint(stdout, flagHelp(fs))
		return 0
	case o.version:
		fmt.Fprint(stdout, versionText())
		return 0
	case notTaken(fs, contextsIgnores) != "":
		return usageFail(stdout, stderr, jsonl, "--"+notTaken(fs, contextsIgnores)+" does not apply to contexts")
	case len(fs.Args()) > 0:
		return usageFail(stdout, stderr, jsonl, "contexts takes no arguments")
	case o.output == "tui":
		o.output = "plain"
	}
	f, err := config.Load(config.Path(getenv), getenv)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	if f == nil {
		fmt.Fprintf(stderr, "aipwatch: no config file at %s: aipwatch uses --url, $AIP_URL and the token variables (README, \"Several daemons\")\n", configPathShown(getenv))
		return 0
	}
	rows := probeAll(f)
	printContexts(stdout, o.output == "jsonl", rows)
	return 0
}

// contextRow is one context as `aipwatch contexts` shows it.
type contextRow struct {
	config.Context
	current bool
	token   string // where the token comes from, never the token
	status  string // "ok", or why the daemon cannot be used
	ok      bool
}

// probeAll probes every context at once, each within probeTimeout.
func probeAll(f *config.File) []contextRow {
	names := f.Names()
	rows := make([]contextRow, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		c := f.Contexts[n]
		rows[i] = contextRow{Context: c, current: n == f.Current, token: "none"}
		if c.TokenFile != "" {
			rows[i].token = c.TokenFile
		}
		wg.Add(1)
		go func(r *contextRow) {
			defer wg.Done()
			r.status, r.ok = probe(r.Context)
		}(&rows[i])
	}
	wg.Wait()
	return rows
}

// probe reads one list row with the context's own credentials: it says
// whether the daemon answers and whether it takes the token.
func probe(c config.Context) (string, bool) {
	o := &options{url: c.URL, tokenFile: c.TokenFile, cacert: c.CACert, allowInsecureHTTP: c.AllowInsecureHTTP,
		ctx: contextUse{name: c.Name, token: c.TokenFile != "", cacert: c.CACert != ""}}
	if err := checkURL(o.url, o.allowInsecureHTTP); err != nil {
		return err.Error(), false
	}
	client, err := daemonClient(o, io.Discard)
	if err != nil {
		return err.Error(), false
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	_, err = client.ListAt(ctx, stream.ListQuery{}, 0, 1)
	if err == nil {
		return "ok", true
	}
	var se *stream.Error
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + probeTimeout.String(), false
	}
	if errors.As(err, &se) && se.Denied() {
		return fmt.Sprintf("refuses the token (%d %s)", se.HTTPStatus, se.Code), false
	}
	return err.Error(), false
}

func printContexts(w io.Writer, jsonl bool, rows []contextRow) {
	if jsonl {
		for _, r := range rows {
			output.WriteContextJSONL(w, output.ContextRow{Name: r.Name, Current: r.current, URL: redactURL(r.URL),
				TokenFile: r.TokenFile, CACert: r.CACert, Reachable: r.ok, Status: r.status})
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tURL\tTOKEN FILE\tDAEMON")
	for _, r := range rows {
		mark := " "
		if r.current {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\n", mark, safe.Line(r.Name), safe.Line(redactURL(r.URL)), safe.Line(r.token), safe.Line(r.status))
	}
	_ = tw.Flush()
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Wiring of design §7: `aipwatch ls` (the console a terminal gets when no
// ACTION_ID is given is console.go's).

// demoConsole is the --demo scenario of the console: a simulated daemon
// hosting several actions.
const demoConsole = "console"

// lsFlags are the flags of ls.
type lsFlags struct {
	states     []string // --state, repeatable: each adds a state
	capability string
	limit      int
	since      time.Duration
	all        bool
	contexts   bool   // --all-contexts
	noHeaders  bool   // --no-headers (also when stdout is a pipe)
	verdict    bool   // judge each printed row (lsverdict.go)
	verdictArg string // --verdict's value: "all" bare (judge and show), else the words to keep
	keep       []string
	demo       string
	timeout    listTimeout // --timeout (timeout.go)
}

// defaultListLimit is how many rows ls prints without --limit, --since or
// --all: the most recent (design §7).
const defaultListLimit = 100

// lsCommand is `aipwatch ls [--state S]… [--capability C] [--limit N | --all] [--since D]`.
func lsCommand(e *runEnv, g *globalFlags) *cobra.Command {
	var lf lsFlags
	c := &cobra.Command{
		Use:     "ls [flags]",
		Aliases: []string{"list"},
		Short:   "list actions, newest first",
		Long: `List the daemon's most recently updated actions, newest first (a synchronous
action appears only once it has settled).`,
		Example: `  aipwatch ls --state running --state queued
  aipwatch ls --since 1h --verdict
  aipwatch ls --all-contexts --output jsonl | jq .action_id`,
		Args: noArgs,
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringArrayVar(&lf.states, "state", nil, "only actions in this `STATE` ("+strings.Join(model.LifecycleStates, ", ")+"); repeat it for several")
	fs.StringVar(&lf.capability, "capability", "", "only actions of this `CAPABILITY_ID` (cap:hermes_agent:ENDPOINT:OPERATION)")
	fs.IntVar(&lf.limit, "limit", defaultListLimit, "the `N` most recently updated actions (default 100; with --since: at most N)")
	fs.DurationVar(&lf.since, "since", 0, "only actions updated within this `DURATION` (90s, 15m, 24h), all of them unless --limit is given")
	fs.BoolVarP(&lf.contexts, "all-contexts", "A", false, "list the actions of every context of the config file, with a CONTEXT column (aipwatch contexts)")
	fs.BoolVar(&lf.noHeaders, "no-headers", false, "no header row (none either when the output is a pipe: aipwatch ls | fzf)")
	fs.BoolVar(&lf.all, "all", false, "every action of the daemon's list, newest first, printed page by page as it is read (on a daemon with a long history: one request per 1,000 rows)")
	fs.StringVar(&lf.verdictArg, "verdict", "", "judge each settled row printed and show its verdict (a review of each: its whole log, at most 4 at once); =`VERDICTS` (failed,incomplete) keeps only the rows judged so")
	fs.Lookup("verdict").NoOptDefVal = verdictAll
	lf.timeout.add(fs)
	addDemoFlag(fs, &lf.demo, "list the actions of the `console` demo's simulated daemon", demoConsole)
	c.RunE = versioned(e, g, func(c *cobra.Command, _ []string) error {
		return lf.run(c, e, g, func(o *watch) int { return runList(o, lf) })
	})
	return c
}

// run checks lf, then lists every context's daemon for --all-contexts,
// else the run's one daemon (ls, stats: list).
func (lf *lsFlags) run(c *cobra.Command, e *runEnv, g *globalFlags, list func(*watch) int) error {
	if err := lf.check(c.Flags()); err != nil {
		return err
	}
	if lf.contexts {
		return e.exit(listAllContexts(e, g, *lf))
	}
	o := &watch{g: *g, e: e}
	o.r.demo = lf.demo
	o.conn = newConn(g.cf, lf.demo == "", e.getenv)
	if err := o.conn.check(); err != nil {
		return err
	}
	return e.exit(list(o))
}

// check refuses what ls cannot do, before any request.
func (lf *lsFlags) check(fs *pflag.FlagSet) error {
	if fs.Changed("verdict") && lf.verdictArg == "" {
		lf.verdictArg = "," // --verdict= names no verdict: the usage error says so
	}
	if err := lf.checkVerdict(); err != nil {
		return err
	}
	if err := lf.timeout.check(); err != nil {
		return err
	}
	for _, s := range lf.states {
		if !slices.Contains(model.LifecycleStates, s) {
			return output.UsageError(fmt.Sprintf("--state %q is not an AIP state (%s)", s, strings.Join(model.LifecycleStates, ", ")))
		}
	}
	limitSet := fs.Changed("limit")
	switch {
	case lf.demo != "" && lf.demo != demoConsole:
		return output.UsageError("ls --demo lists the console demo's daemon: --demo or --demo=" + demoConsole)
	case lf.limit <= 0 && fs.Lookup("all") == nil: // stats: no --all
		return output.UsageError("--limit takes a number of actions above 0 (all within a span: --since D)")
	case lf.limit <= 0:
		return output.UsageError("--limit takes a number of actions above 0 (every action: --all)")
	case lf.all && limitSet:
		return output.UsageError("--all prints every action: it takes no --limit")
	case fs.Changed("since") && lf.since <= 0:
		return output.UsageError("--since takes a duration above 0, such as 15m or 24h")
	case lf.contexts && lf.demo != "":
		return output.UsageError("--all-contexts reads the config file's daemons, not a --demo")
	case lf.contexts:
		for _, f := range []string{"url", "token-file", "cacert", "context"} {
			if fs.Changed(f) {
				return output.UsageError("--all-contexts takes each context's own --" + f + " from the config file")
			}
		}
	}
	if lf.all || (lf.since > 0 && !limitSet) {
		lf.limit = 0 // no bound
	}
	return nil
}

// query is what ls (or stats) asks of a daemon's list.
func (lf lsFlags) query() output.ListQuery {
	return output.ListQuery{States: lf.states, Capability: lf.capability, Limit: lf.limit, Since: lf.since, Keep: lf.keep}
}

func runList(o *watch, lf lsFlags) int {
	e := o.e
	var w *output.ListWriter
	return runListing(o, lf, "ls", true, func(client *stream.Client) (output.RowWriter, *output.RowJudge) {
		w = output.NewListWriter(e.stdout, o.g.output == "jsonl", time.Now(), termWidth(e.stdout))
		w.NoHeaders = lf.headerless(e.stdout)
		var rj *output.RowJudge
		if lf.verdict {
			w.Verdicts, rj = true, newRowJudge(contextDaemon{run: o, client: client}.judge(), e.stderr, true)
		}
		return w, rj
	}, func() error { return w.Close() })
}

// headerless: the table has no header row, asked (--no-headers) or
// written into a pipe, whose reader takes rows (`aipwatch ls | fzf | awk
// '{print $1}' | xargs aipwatch` must not feed it ACTION).
func (lf lsFlags) headerless(stdout io.Writer) bool {
	if lf.noHeaders {
		return true
	}
	f, ok := safe.Unwrap(stdout).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// runListing reads one daemon's list as ls reads it, for ls and stats:
// the --demo daemon, the two-minute bound, this machine's journal marks
// when journal is set, the paging's notes and a failure on stderr under
// the command's name. setup makes what takes the rows and their judge
// (nil: none) once the client is made; done ends the output.
func runListing(o *watch, lf lsFlags, cmd string, journal bool,
	setup func(*stream.Client) (output.RowWriter, *output.RowJudge), done func() error) int {
	e := o.e
	stop, ok := consoleDemo(o)
	if !ok {
		return model.ExitError
	}
	defer stop()
	client, err := o.conn.daemon(e.stderr)
	if err == nil {
		client, err = lf.timeout.bound(client)
	}
	if err != nil {
		return o.fail(err)
	}
	// A bounded listing's reads: two minutes (the reviews of --verdict
	// have their own bound: stream.Listing).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if lf.limit > 0 {
		var cancelBound context.CancelFunc
		ctx, cancelBound = context.WithTimeout(ctx, output.ListBound)
		defer cancelBound()
	}
	w, rj := setup(client)
	if rj != nil {
		rj.Cmd = cmd
	}
	var ids []string
	if journal {
		ids = journalIDs(e.getenv, o.conn.url, func(ws []string) { warnJournal(e.stderr, "aipwatch "+cmd, ws) })
	}
	notes, err := output.ListRows(ctx, client, lf.query(), ids, w, rj)
	rj.End()
	if err == nil {
		err = done()
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "aipwatch %s: %s\n", cmd, safe.Line(n))
	}
	if err != nil {
		code := o.fail(err)
		if o.g.output != "jsonl" {
			printHint(e.stderr, &o.conn, err)
		}
		return code
	}
	return 0
}

// journalIDs are the action IDs this machine's submission journal knows
// for the daemon at baseURL; warn is journal.Load's.
func journalIDs(getenv func(string) string, baseURL string, warn func([]string)) []string {
	return journal.ActionIDs(journal.Load(getenv, warn), baseURL)
}

func warnJournal(stderr io.Writer, prefix string, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "%s: %s\n", prefix, safe.Line(w))
	}
}

// termWidth is the width of the terminal w is, 0 when it is none: a
// table piped to a file or a pager keeps its cells whole (scripts read
// --output jsonl).
func termWidth(w io.Writer) int {
	if !isTerminal(w) {
		return 0
	}
	width, _, err := term.GetSize(safe.Unwrap(w).(*os.File).Fd())
	if err != nil {
		return 0
	}
	return width
}

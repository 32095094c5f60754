package cli

import (
	"fmt"
	"io"

	"aipwatch/config"
	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
	"aipwatch/ui/console"
)

// The console (design §7): `aipwatch` alone on a terminal, on one daemon
// or, with a config file of several contexts, on all of them at once
// (design §9); --demo=console and --demo=fleet show it on simulated
// daemons.

// runConsole opens the live console (no ACTION_ID on a terminal) on its
// daemons, each a console.Source: --demo=fleet's, else the config file's
// contexts (consoleContexts), else the run's one daemon. It is the one
// place the console is started, on stdout and keysFrom(stdin).
func runConsole(f *follow) int {
	o, e := &f.w, f.w.e
	stdout, stderr := e.stdout, e.stderr
	ctx, stop := detachContext()
	defer stop()
	if !isTerminal(stdout) || (o.g.output != "" && o.g.output != "tui") {
		if isConsoleDemo(o.r.demo) {
			fmt.Fprintf(stderr, "aipwatch: --demo=%s is the console, which needs a terminal (no --output plain or jsonl); for lines: aipwatch ls --demo\n", o.r.demo)
		} else {
			fmt.Fprintln(stderr, "aipwatch: no ACTION_ID given (argument or $AIP_ACTION_ID); `aipwatch ls` lists the actions, and on a terminal `aipwatch` alone opens the console")
		}
		return model.ExitUsage
	}
	var daemons []contextDaemon
	// listHint follows the list's error while nothing was ever listed (a
	// console across contexts: while no context's daemon ever answered,
	// each row saying why); hint follows the console's error.
	listHint := ""
	var hint func(error)
	names := consoleContexts(f)
	switch {
	case o.r.demo == demoFleet:
		fleet, stop, err := startFleetDemo(o)
		if err != nil {
			fmt.Fprintf(stderr, "aipwatch: demo: %s\n", err)
			return model.ExitError
		}
		defer stop()
		daemons = fleet
	case names != nil:
		daemons = configDaemons(o, names)
		listHint = "check: aipwatch contexts · no daemon: aipwatch --demo=console"
	default:
		stop, ok := consoleDemo(o)
		if !ok {
			return model.ExitError
		}
		defer stop()
		d := contextDaemon{c: &o.conn, run: o}
		d.client, d.err = o.conn.daemon(stderr)
		if d.err != nil {
			return o.fail(d.err)
		}
		daemons = []contextDaemon{d}
		// Is aipd there, and the console without one.
		listHint = "is aipd running at " + redactURL(o.conn.url) + "? (--url, --context) · no daemon: aipwatch --demo=console"
		hint = func(err error) { printHint(stderr, &o.conn, err) }
	}
	co := consoleOptions(f)
	co.ListHint = listHint
	jc := journal.NewCache(e.getenv) // one read of the file for every daemon
	for _, d := range daemons {
		co.Sources = append(co.Sources, d.source(jc))
	}
	if err := console.Run(ctx, co, ui.Terminal{Input: keysFrom(e.stdin), Output: safe.Unwrap(stdout)}); err != nil {
		fmt.Fprintf(stderr, "aipwatch: %s\n", safe.Line(err.Error()))
		if hint != nil {
			hint(err)
		}
		return model.ExitError
	}
	return 0
}

// consoleOptions are the console's options that do not depend on its
// daemons.
func consoleOptions(f *follow) console.Options {
	o := &f.w
	route, hint := notifyRoute(o.e.getenv)
	co := console.Options{
		Keys:     o.e.keys.Console,
		LiveKeys: o.e.keys.Live,
		// n on a row (design §10); the console is a terminal
		Notification: func(a *model.Action) string { return output.Notification(a, route) },
		// --notify-on, else the context's notify_on (design §13; notify.go)
		NotifyOn:      notifyOnWords(f),
		NotifyOnBytes: func(text string) string { return output.NotifyOnBytes(text, route) },
		NotifyHint:    hint,
		Redact:        o.g.redact,
		NoColor:       o.colorless(true), // the console runs on a terminal only
		CancelReason:  o.r.reason,
		Version:       versionString(),
	}
	// Across contexts a notification names the row's context too.
	co.NotificationAs = func(name string, a *model.Action) string { return output.NotificationAs(name, a, route) }
	return co
}

// consoleDemo starts --demo=console's simulated daemon, if asked, and
// points the run at it; ok is false when it could not start (said).
func consoleDemo(o *watch) (stop func(), ok bool) {
	if o.r.demo != demoConsole {
		return func() {}, true
	}
	u, stop, err := sim.StartConsoleDemo()
	return stop, onDemo(o, u, err)
}

// demoFleet is the --demo scenario of the console across two contexts.
const demoFleet = "fleet"

// consoleContexts are the contexts the console reads at once (design §9):
// every context of the config file when it has several and nothing names
// one daemon (--context, $AIPWATCH_CONTEXT, --url, $AIP_URL); else nil.
func consoleContexts(f *follow) []string {
	o := &f.w.conn
	if f.w.r.demo != "" || f.f.replay != "" || o.ctx.Explicit || o.ctx.Err != nil || (o.urlGiven && !o.ctx.URL) {
		return nil
	}
	if names := contextNames(filesOf(f.w.g.cf, f.w.e.getenv)); len(names) >= 2 {
		return names
	}
	return nil
}

// contextDaemon is one daemon as the console and ls read it: its
// connection, and the run's settings (timeouts, privacy) it is read with.
type contextDaemon struct {
	name   string
	c      *conn
	run    *watch
	client *stream.Client // nil when err
	err    error
}

// follow is the runner that follows one action of the daemon.
func (d contextDaemon) follow(id string) stream.Runner {
	cfg := d.run.r.withTimeouts(d.client.Config())
	cfg.ActionID = id
	c, err := newClient(cfg)
	if err != nil {
		return nil
	}
	return c
}

// judge is the daemon's judge of settled rows (the VERDICT column).
func (d contextDaemon) judge() *stream.Judge {
	return stream.NewJudge(d.run.r.withTimeouts(d.client.Config()), stream.JudgeOptions{})
}

// source is the daemon as the console reads it, with its own connection:
// its list and global log, its follows, its judge (the VERDICT column's
// reviews: the rows drawn, four at once), its reconcile reads and its
// journal marks (jc: the file read again only when it changed).
func (d contextDaemon) source(jc *journal.Cache) console.Source {
	s := console.Source{MultiSource: stream.MultiSource{Name: d.name, Err: d.err}}
	if d.client == nil {
		return s
	}
	s.Poller = d.client.NewPoller(0)
	s.Follow = d.follow
	s.Judge = d.judge()
	s.Reconcile = func() ui.ReconcileFunc { return reconcilerFor(d.c, d.run.e.getenv, d.run.g.redact) }
	s.Journal = func() []string { return jc.IDs(d.c.url) }
	return s
}

// configDaemons are the config file's contexts' daemons, each with its own
// credentials; one whose token file or CA cannot be read keeps its error
// (its row shows it).
func configDaemons(o *watch, names []string) []contextDaemon {
	out := make([]contextDaemon, 0, len(names))
	for _, name := range names {
		c := forContext(o.g.cf, name, o.e.getenv)
		d := contextDaemon{name: name, c: &c, run: o}
		d.client, d.err = c.quietDaemon()
		out = append(out, d)
	}
	return out
}

// startFleetDemo runs --demo=fleet's simulated daemons (sim.StartFleetDemo),
// each read as a context of its name; stop ends them.
func startFleetDemo(o *watch) (daemons []contextDaemon, stop func(), err error) {
	sims, stop, err := sim.StartFleetDemo(sim.FleetDemoDown)
	if err != nil {
		return nil, nil, err
	}
	if !o.r.stallSet {
		o.r.stallTimeout = demoStallTimeout
	}
	for _, s := range sims {
		c := &conn{ctx: config.Use{Name: s.Name, URL: true}}
		c.local(s.URL)
		d := contextDaemon{name: s.Name, c: c, run: o}
		d.client, d.err = c.daemon(io.Discard)
		daemons = append(daemons, d)
	}
	return daemons, stop, nil
}

package cli

import (
	"context"
	"fmt"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/ui"
	"aipwatch/ui/console"
)

// The console (design §7): `aipwatch` alone on a terminal, on one daemon
// or, with a config file of several contexts, on all of them at once
// (console_contexts.go); --demo=console and --demo=fleet show it on
// simulated daemons.

// runConsole opens the live console (no ACTION_ID on a terminal): on
// stdout, the terminal it checks, reading its keys from stdin.
func runConsole(ctx context.Context, f *follow, e *runEnv) int {
	o, stdout, stderr := &f.w, e.stdout, e.stderr
	if !isTerminal(stdout) || (o.g.output != "" && o.g.output != "tui") {
		if isConsoleDemo(o.r.demo) {
			fmt.Fprintf(stderr, "aipwatch: --demo=%s is the console, which needs a terminal (no --output plain or jsonl); for lines: aipwatch ls --demo\n", o.r.demo)
		} else {
			fmt.Fprintln(stderr, "aipwatch: no ACTION_ID given (argument or $AIP_ACTION_ID); `aipwatch ls` lists the actions, and on a terminal `aipwatch` alone opens the console")
		}
		return model.ExitUsage
	}
	if o.r.demo == demoFleet {
		daemons, stop, err := startFleetDemo(o)
		if err != nil {
			fmt.Fprintf(stderr, "aipwatch: demo: %s\n", err)
			return model.ExitError
		}
		defer stop()
		return runConsoleAcross(ctx, f, daemons)
	}
	if names := consoleContexts(f); names != nil {
		return runConsoleAcross(ctx, f, configDaemons(o, names))
	}
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
	co := consoleOptions(f)
	co.Daemon = d.client.NewPoller(0)
	co.Journal = func() []string { return journalIDs(e.getenv, o.conn.url, nil) }
	co.Follow = d.follow
	// The VERDICT column's reviews: the rows drawn, four at once.
	co.Judge = d.judge()
	co.Reconcile = reconcilerFor(&o.conn, e.getenv, o.g.redact, 0)
	return startConsole(ctx, co, e, func(err error) { printHint(stderr, &o.conn, "", err) })
}

// startConsole runs the console with co, one daemon or several: the one
// place the console is started, on the program shell (ui.Run) over the
// run's stdout and its keys (keysFrom, as the live view's: aipwatch/run).
// hint, when set, follows an error with what to check.
func startConsole(ctx context.Context, co console.Options, e *runEnv, hint func(error)) int {
	stderr := e.stderr
	err := console.Run(ctx, co, ui.Terminal{Input: keysFrom(e.stdin), Output: safe.Unwrap(e.stdout)})
	if err != nil {
		fmt.Fprintf(stderr, "aipwatch: %s\n", safe.Line(err.Error()))
		if hint != nil {
			hint(err)
		}
		return model.ExitError
	}
	return 0
}

// consoleOptions are the console's options that do not depend on its
// daemons: keys, notifications, privacy, colour.
func consoleOptions(f *follow) console.Options {
	o := &f.w
	route, hint := notifyRoute(o.e.getenv)
	return console.Options{
		Keys:         o.e.keys.Console,
		LiveKeys:     o.e.keys.Live,
		Notification: notifyWith(route), // n on a row (notify.go); the console is a terminal
		// --notify-on, else the context's notify_on (design §13; notify.go)
		NotifyOn:      notifyOnWords(f),
		NotifyOnBytes: func(text string) string { return output.NotifyOnBytes(text, route) },
		NotifyHint:    hint,
		Redact:        o.g.redact,
		NoColor:       o.colorless(true), // the console runs on a terminal only
		CancelReason:  o.r.reason,
		Version:       versionString(),
	}
}

// consoleDemo starts the console's simulated daemon when --demo=console
// asks for it and points the run at it; stop ends it. ok is false when it
// could not start (said on stderr).
func consoleDemo(o *watch) (stop func(), ok bool) {
	if o.r.demo != demoConsole {
		return func() {}, true
	}
	f, err := sim.ConsoleFleet(1)
	var u string
	if err == nil {
		if u, err = f.Start(); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(o.e.stderr, "aipwatch: demo: %s\n", err)
		return nil, false
	}
	o.conn.local(u)
	if !o.r.stallSet {
		o.r.stallTimeout = demoStallTimeout
	}
	return f.Close, true
}

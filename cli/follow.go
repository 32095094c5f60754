package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/run"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/ui/split"
)

// followFlags are the root's own flags.
type followFlags struct {
	cursor   string
	replay   string
	speed    float64
	notifyOn string // the console's --notify-on, as given (notify.go)
}

// follow is what the root decided from its flags and arguments: the run
// of its targets, a demo's or a replay's, or the console.
type follow struct {
	w       watch
	f       followFlags
	console bool     // no ACTION_ID: the console on a terminal, else a usage error
	targets []target // the actions, as given (none yet for a demo or a replay)
}

// addFollow makes the root the follow (design §2, §12) of one action or
// several (`aipwatch ID1 ID2 [ID3 ID4]`), live while it runs and reviewed
// once it has settled: ACTION_IDs, a demo or a replay, or with none on a
// terminal the console (console.go).
func addFollow(root *cobra.Command, e *runEnv, g *globalFlags) {
	o := &follow{w: watch{e: e}}
	fs := root.Flags()
	fs.StringVar(&o.f.cursor, "cursor", "", "start from this `CURSOR` (the one a detached run printed)")
	addRunFlags(fs, &o.w.r)
	addDemoFlag(fs, &o.w.r.demo, "follow a scripted action on the built-in simulator (`SCENARIO`s below; default chat-tools)", "chat-tools")
	fs.StringVar(&o.f.replay, "replay", "", "review a recording `FILE` made with --record, with no network")
	fs.Float64Var(&o.f.speed, "speed", 0, "with --replay: recorded time divided by `N` (default 0: instant)")
	fs.StringVar(&o.f.notifyOn, "notify-on", "", "the console: ring and notify when any action settles with one of these `VERDICTS` (failed,incomplete,partial); a burst is one notification (default: the context's notify_on)")
	root.RunE = versioned(e, g, func(c *cobra.Command, args []string) error {
		o.w.g = *g
		if err := o.resolve(c, args, e.getenv); err != nil {
			return err
		}
		switch {
		case e.parsed != nil:
			e.parsed(o)
			return nil
		case o.console || isConsoleDemo(o.w.r.demo):
			return e.exit(runConsole(o))
		}
		// An --export that cannot be written fails now, not after the run:
		// a verified run must not end in exit 1 because of a typo in a path.
		if err := safe.CheckPrivate(o.w.r.export); err != nil {
			return e.fail(o.w.g.output, fmt.Errorf("--export: %w", err))
		}
		return e.exit(runFollow(o))
	})
}

// resolve checks the follow's flags and arguments and decides each
// target's daemon (an act_… is the run's daemon's, CONTEXT/act_… another
// context's): every mistake is a usage error before any request.
func (o *follow) resolve(c *cobra.Command, args []string, getenv func(string) string) error {
	r := &o.w.r
	if err := r.checkRun(c.Flags()); err != nil {
		return err
	}
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	if _, _, ok := contextTarget(first); first != "" && !strings.HasPrefix(first, "act_") && !ok {
		if r.demo != "" && slices.Contains(rootDemos(), args[0]) {
			return output.UsageError(fmt.Sprintf("--demo follows its own action: give no ACTION_ID (for the %s scenario: --demo=%s)", args[0], args[0]))
		}
		return unknownVerb(c.Root(), args[0])
	}
	if len(args) > 1 || strings.Contains(first, "/") {
		if len(args) > split.MaxPanes {
			return output.UsageError(fmt.Sprintf("%d ACTION_IDs: at most %d at once", len(args), split.MaxPanes))
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"--cursor", o.f.cursor != ""}, {"--cancel", r.cancel}, {"--replay", o.f.replay != ""}, {"--demo", r.demo != ""},
			{"--record", r.record != ""}, {"--export", r.export != ""}, {"--speed", o.f.speed != 0}} {
			if f.set {
				return output.UsageError(f.name + " follows one action: give one ACTION_ID")
			}
		}
	}
	if err := o.checkNotifyOn(c.Flags(), args); err != nil {
		return err
	}
	switch {
	case o.f.speed < 0:
		return output.UsageError("--speed must be 0 (instant) or more")
	case o.f.speed > 0 && o.f.replay == "":
		return output.UsageError("--speed only applies to --replay")
	}
	o.w.conn = newConn(o.w.g.cf, r.demo == "" && o.f.replay == "", getenv)
	if o.f.replay != "" {
		switch {
		case r.demo != "":
			return output.UsageError("--replay and --demo exclude each other")
		case len(args) > 0:
			return output.UsageError("--replay reviews the recorded action: give no ACTION_ID")
		case r.cancel:
			return output.UsageError("--cancel needs a live action, not a --replay")
		case r.record != "":
			return output.UsageError("--record and --replay exclude each other")
		}
		return nil
	}
	if r.demo != "" {
		if !slices.Contains(rootDemos(), r.demo) {
			return output.UsageError(fmt.Sprintf("unknown demo scenario %q (known: %s)", r.demo, strings.Join(rootDemos(), ", ")))
		}
		if len(args) > 0 {
			return output.UsageError("--demo follows its own action: give no ACTION_ID")
		}
		return nil
	}
	if len(args) == 0 {
		id := getenv("AIP_ACTION_ID")
		if id == "" {
			// On a terminal, no ACTION_ID opens the console (design §7);
			// runConsole decides, since only it knows the terminal.
			o.console = true
			return o.w.conn.check()
		}
		if !strings.HasPrefix(id, "act_") {
			return output.UsageError(fmt.Sprintf("ACTION_ID (from $AIP_ACTION_ID) must start with act_: %q", id))
		}
		args = []string{id}
	}
	named := false // a word names a context: every target's output carries its own
	for _, w := range args {
		t := target{arg: w, id: w, conn: o.w.conn}
		if name, id, ok := contextTarget(w); ok {
			t.id, t.context, t.conn = id, name, forContext(o.w.g.cf, name, getenv)
			named = true
		} else if !strings.HasPrefix(w, "act_") {
			return output.UsageError(fmt.Sprintf("%q is neither an ACTION_ID (act_…) nor CONTEXT/ACTION_ID", w))
		}
		if err := t.conn.check(); err != nil {
			return err
		}
		// One action is one ID on one daemon, however it is named
		// (a/act_x and act_x while a is current): compared by the
		// daemon's URL and the ID, not by the words.
		for _, p := range o.targets {
			if p.id == t.id && journal.SameDaemon(p.conn.url)(redactURL(t.conn.url)) {
				if p.arg == w {
					return output.UsageError(fmt.Sprintf("%s is given twice", w))
				}
				return output.UsageError(fmt.Sprintf("%s and %s are the same action (%s on %s): give it once", p.arg, w, t.id, t.conn.shownURL()))
			}
		}
		o.targets = append(o.targets, t)
	}
	for i := range o.targets {
		// A run that names a context (a word, --context, $AIPWATCH_CONTEXT)
		// carries it in every output: the run's own daemon's too.
		if t := &o.targets[i]; t.context == "" && (named || t.conn.ctx.Explicit) {
			t.context = t.conn.ctx.Name
		}
	}
	return nil
}

// runFollow follows the targets (design §2, §12), a demo or a replay.
func runFollow(o *follow) (code int) {
	w := &o.w
	defer func() {
		// A bug must not leave a stack dump (or anything secret) on the
		// operator's screen: one line, and the action keeps running.
		if r := recover(); r != nil {
			fmt.Fprint(w.e.stderr, o.panicReport(r))
			code = model.ExitError
		}
	}()
	ctx, stop := detachContext()
	defer stop()
	if w.r.demo != "" {
		k := sim.Knobs{Speed: 1}
		if w.r.demo == "late-cancel" {
			// The demo sends the cancel itself, as --cancel does, once attached;
			// the simulator holds it in transit until the turn has completed,
			// so it lands late whatever the machine's speed.
			w.r.cancel = true
			k.CancelInTransit = demoLateCancelTransit
		}
		srv, ok := startDemo(w, k)
		if !ok {
			return model.ExitError
		}
		defer srv.Close()
		o.targets = []target{{arg: srv.ActionID(), id: srv.ActionID(), conn: w.conn}}
	}
	return runWatch(ctx, w, o.sources, o.f.replay != "", nil)
}

// sources are what the follow's targets are read from: a replay, else
// each one's stream client (with the recorder of --record, and the
// --cursor to start at, for one).
func (o *follow) sources(mode string) ([]*source, error) {
	if o.f.replay != "" {
		s, err := o.w.replay(o.f.replay, o.f.speed, mode)
		return []*source{s}, err
	}
	out := make([]*source, len(o.targets))
	for i, t := range o.targets {
		s, err := o.w.source(t, o.f.cursor, nil, "")
		if err != nil {
			if len(o.targets) > 1 {
				err = fmt.Errorf("%s: %w", t.arg, err)
			}
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// panicReport is the report of a bug that stopped the follow, with the
// command that resumes it (none for a demo or a replay). output.PanicReport
// writes it through safe.Line, which scrubs every token newConn protected.
func (o *follow) panicReport(r any) string {
	var args []string
	for _, t := range o.targets {
		args = append(args, t.arg)
	}
	resume := ""
	if len(args) > 0 && o.f.replay == "" && o.w.r.demo == "" {
		resume = o.w.resume(o.f.cursor, args...) // several take no --cursor
	}
	return output.PanicReport(r, resume)
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@=,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// demoStallTimeout is --stall-timeout on the simulator unless given.
const demoStallTimeout = 5 * time.Second

// demoLateCancelTransit is how long --demo=late-cancel's cancel stays on
// the wire after the turn completed: time to read the verified verdict
// with the cancel still pending, before the "too late" line.
const demoLateCancelTransit = 2 * time.Second

// startDemo runs the simulator of --demo on 127.0.0.1:0 and points the
// run at it.
func startDemo(w *watch, knobs sim.Knobs) (*sim.Server, bool) {
	scenario, knobs := demoSim(w.r.demo, knobs)
	srv, err := sim.New(scenario, knobs)
	var u string
	if err == nil {
		u, err = srv.Start()
	}
	return srv, onDemo(w, u, err)
}

// demoSim is the simulator's scenario of a --demo name and the knobs it
// adds: a fleet- demo plays its scenario on the fleet topology; followed
// (no submission), it is the async action that records no chunk.
func demoSim(name string, k sim.Knobs) (string, sim.Knobs) {
	scenario, fleet := strings.CutPrefix(name, "fleet-")
	if !fleet || !slices.Contains(sim.Scenarios(), scenario) {
		return name, k
	}
	k.Topology = sim.TopologyFleet
	if k.Submit.ActionID == "" && !k.Submit.Await {
		k.Mode = sim.ModeAsync
	}
	return scenario, k
}

// onDemo points w at a demo's simulated daemon at u, which aipwatch runs
// and which asks for no token; its silence is known to be final, so its
// --stall-timeout is demoStallTimeout unless given. When it could not
// start (err), it says so on stderr and returns false.
func onDemo(w *watch, u string, err error) bool {
	if err != nil {
		fmt.Fprintf(w.e.stderr, "aipwatch: demo: %s\n", err)
		return false
	}
	w.conn.local(u)
	if !w.r.stallSet {
		w.r.stallTimeout = demoStallTimeout
	}
	return true
}

// ioOf is where a run reads its keys and writes, and its output mode:
// output (--output), or tui on a terminal and plain elsewhere.
func (e *runEnv) ioOf(output string) (run.IO, string) {
	o := run.IO{Keys: keysFrom(e.stdin), Stdout: e.stdout, Stderr: e.stderr, TTY: isTerminal(e.stdout), ErrTTY: isTerminal(e.stderr)}
	switch {
	case output != "":
		return o, output
	case o.TTY:
		return o, "tui"
	}
	return o, "plain"
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

// target is one action of the run.
type target struct {
	arg, id, context string // the word given, its ID, the context naming its daemon ("" = the run's own)
	conn             conn
}

// contextTarget splits CONTEXT/act_… (ok false for any other word).
func contextTarget(word string) (name, id string, ok bool) {
	name, id, ok = strings.Cut(word, "/")
	return name, id, ok && name != "" && strings.HasPrefix(id, "act_")
}

// detachContext is done when the operator interrupts, terminates or hangs up
// aipwatch: each of them detaches (design §2, exit 8), whatever the command.
// One place, so that no command forgets one of the three signals.
func detachContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

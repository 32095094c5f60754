package cli

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
)

// watch is what a command that watches actions decided (the follow,
// submit, reconcile, the console, ls and stats): the daemon, the global
// flags, the run's flags, and the invocation it runs in. A command turns
// it into a run.Plan (plan.go) or the console's options (console.go).
type watch struct {
	conn conn        // the daemon (conn.go)
	g    globalFlags // --output, --redact, --no-color, and the flags conn was built from
	r    runFlags    // the flags of watching a run
	e    *runEnv     // the streams, the environment, the keys
}

// runFlags are the flags of watching a run: following one action (the
// root) and submitting one (submit); reconcile takes a few of them.
type runFlags struct {
	cancel        bool
	notify        bool // ring and notify when the action settles (notify.go)
	reason        string
	timestamps    bool
	demo          string
	record        string
	export        string
	rawCapMiB     int
	appearTimeout time.Duration
	stallTimeout  time.Duration
	stallSet      bool // --stall-timeout was given
}

const (
	defaultReason    = "cancelled by an operator from aipwatch"
	defaultRawCapMiB = 64
)

// addRunFlags adds the flags of watching a run, in the order --help shows
// them.
func addRunFlags(fs *pflag.FlagSet, r *runFlags) {
	fs.SortFlags = false
	fs.BoolVar(&r.cancel, "cancel", false, "send explicit cancellation once attached, then follow to the end")
	fs.StringVar(&r.reason, "reason", defaultReason, "cancellation reason `TEXT` (default \""+defaultReason+"\")")
	fs.BoolVar(&r.notify, "notify", false, "when the action settles, ring the bell and send the verdict as a desktop notification through the terminal (OSC 9, and OSC 777 where TERM says so); nothing when the output is not a terminal")
	fs.BoolVar(&r.timestamps, "timestamps", false, "plain: start each status line with its time; jsonl: add \"at\" to each object (the TUI toggles times with T)")
	fs.StringVar(&r.record, "record", "", "append every frame, connection change and the result to `FILE` (JSON lines, mode 0600)")
	addReviewFlags(fs, r)
}

// addReviewFlags are the flags of reading one action into a model: the
// run's and reconcile's review.
func addReviewFlags(fs *pflag.FlagSet, r *runFlags) {
	fs.StringVar(&r.export, "export", "", "write the transcript to `FILE` (any output mode): an HTML report when FILE ends in .html, else Markdown")
	fs.IntVar(&r.rawCapMiB, "raw-cap-mib", defaultRawCapMiB, "keep at most `N` MiB of raw frames for the raw view (default 64; 0: all); the oldest go first, never text or verdict evidence")
	fs.DurationVar(&r.appearTimeout, "appear-timeout", stream.DefaultAppearTimeout, "how long to wait for an action aipd has no record of yet (a synchronous action has none until it settles) to show its first event (`D`, default "+stream.DefaultAppearTimeout.String()+")")
	fs.DurationVar(&r.stallTimeout, "stall-timeout", stream.DefaultStallTimeout, "how long an action with chunks but no record or result may show no new chunk before it is reported unsettled (`D`, default "+stream.DefaultStallTimeout.String()+")")
}

// addDemoFlag adds --demo with the command's own meaning and its scenario
// when given bare.
func addDemoFlag(fs *pflag.FlagSet, demo *string, usage, def string) {
	fs.StringVar(demo, "demo", "", usage)
	fs.Lookup("demo").NoOptDefVal = def
}

// checkRun refuses the values of the review flags that mean nothing,
// before any request; fs says which were given.
func (r *runFlags) checkRun(fs *pflag.FlagSet) error {
	r.stallSet = fs.Changed("stall-timeout")
	if fs.Lookup("reason") == nil {
		r.reason = defaultReason // a command without --cancel
	}
	switch {
	case r.appearTimeout <= 0 || r.stallTimeout <= 0:
		return output.UsageError("--appear-timeout and --stall-timeout must be positive durations (e.g. 90s, 5m)")
	case r.rawCapMiB < 0:
		return output.UsageError("--raw-cap-mib must be 0 (keep all) or more")
	}
	return nil
}

// submitDemos are submit's --demo scenarios: the simulator's, then the
// fleet's, in the order help and completion offer them.
func submitDemos() []string { return append(sim.Scenarios(), demoFleetChat) }

// demoFleetChat is the demo of the fleet deployment (design §14): the
// chat-tools turn on the simulator's connector-host topology.
const demoFleetChat = "fleet-chat-tools"

// rootDemos are the root's --demo scenarios: the simulator's, then the
// console's two (isConsoleDemo), in the order help and completion offer
// them.
func rootDemos() []string { return append(submitDemos(), demoConsole, demoFleet) }

// isConsoleDemo: the --demo scenario opens the console.
func isConsoleDemo(name string) bool { return name == demoConsole || name == demoFleet }

// checkURL enforces the transport rule of design §1: plain http:// only
// to a loopback host unless --allow-insecure-http.
func checkURL(raw string, allowInsecure bool) error {
	if !strings.Contains(raw, "://") {
		// host:port, or a bare host: show what was given (without any
		// user:password@) and the URL it probably meant.
		shown := raw
		if i := strings.IndexAny(shown, "?#"); i >= 0 {
			shown = shown[:i] // a query may hold a credential
		}
		if i := strings.LastIndex(shown, "@"); i >= 0 {
			shown = shown[i+1:]
		}
		// A loopback host takes plain http:// (design §1): suggest that
		// first there, https:// anywhere else.
		first, other := "https://", "http:// for a loopback host"
		host := shown
		if h, _, err := net.SplitHostPort(shown); err == nil {
			host = h
		} else if i := strings.IndexAny(host, "/"); i >= 0 {
			host = host[:i]
		}
		if isLoopback(strings.Trim(host, "[]")) {
			first, other = "http://", "https:// if it serves TLS"
		}
		return output.UsageError(fmt.Sprintf("--url %s has no scheme: did you mean %s%s (or %s)?",
			safe.Line(shown), first, safe.Line(shown), other))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return output.UsageError(fmt.Sprintf("--url is not an absolute http(s) URL: %q", redactURL(raw)))
	}
	if u.User != nil {
		// Go would send them as Basic authentication; aipd takes a bearer
		// token, and a URL is printed and logged more than a file is read.
		return output.UsageError(fmt.Sprintf("--url %s carries credentials (user:password@): aipd takes a bearer token, from --token-file, $AIP_TOKEN_FILE or $AIP_TOKEN", redactURL(raw)))
	}
	for name := range u.Query() {
		if safe.SecretParam(name) {
			// The URL is printed (the resume command), journalled and
			// recorded, and only the bearer token is scrubbed.
			return output.UsageError(fmt.Sprintf("--url %s carries a credential in its query string (%s=…): aipd takes a bearer token, from --token-file, $AIP_TOKEN_FILE or $AIP_TOKEN",
				redactURL(raw), safe.Line(name)))
		}
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowInsecure || isLoopback(u.Hostname()) {
			return nil
		}
		return output.UsageError(fmt.Sprintf("refusing plain http:// to %s, which is not loopback: use https:// (with --cacert for a private CA) or --allow-insecure-http", u.Hostname()))
	default:
		return output.UsageError(fmt.Sprintf("--url scheme must be http or https, not %q", u.Scheme))
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// rawCap is the model's raw-bytes cap for --raw-cap-mib (0 keeps all).
func (r *runFlags) rawCap() int64 {
	if r.rawCapMiB == 0 {
		return -1
	}
	return int64(r.rawCapMiB) << 20
}

// withTimeouts is cfg with the run's --appear-timeout and --stall-timeout:
// every follow of an action (the run, the console's, reconcile's review).
func (r *runFlags) withTimeouts(cfg stream.Config) stream.Config {
	cfg.AppearTimeout, cfg.StallTimeout = r.appearTimeout, r.stallTimeout
	return paced(cfg)
}

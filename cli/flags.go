package cli

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
)

// options is the parsed invocation (design §1).
type options struct {
	url               string
	tokenFile         string
	cursor            string
	output            string
	cancel            bool
	notify            bool // ring and notify when the action settles (notify.go)
	reason            string
	redact            bool
	noColor           bool
	timestamps        bool
	demo              string
	cacert            string
	allowInsecureHTTP bool
	record            string
	replay            string
	speed             float64
	export            string
	rawCapMiB         int
	appearTimeout     time.Duration
	stallTimeout      time.Duration
	stallSet          bool          // --stall-timeout was given
	readTimeout       time.Duration // reconcile's --read-timeout (0: defaultReadTimeout)
	console           bool          // no ACTION_ID: the console on a terminal, else a usage error
	version           bool
	help              bool
	actionID          string
	token             string              // from $AIP_TOKEN or the token file; never printed
	urlGiven          bool                // --url or $AIP_URL, not the default
	submission        *stream.Submission  // aipwatch submit (submit.go)
	session           string              // the Hermes session_id submitted (model.Action.SubmittedSession)
	getenv            func(string) string // for the journal's path (R, submit)
	keys              Keys                // the TUI's and the console's bindings (the root's keymap.go)
	contextFlag       string              // --context
	ctx               contextUse          // the config file's context this run uses (contexts.go)
}

const defaultReason = "cancelled by an operator from aipwatch"

// defaultRawCapMiB is --raw-cap-mib when not given.
const defaultRawCapMiB = 64

func newFlagSet(o *options, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("aipwatch", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.StringVar(&o.url, "url", "", "base `URL` of aipd, with http:// or https:// (default $AIP_URL, else http://127.0.0.1:8080)")
	fs.StringVar(&o.contextFlag, "context", "", "use the config file's context `NAME` for --url, --token-file, --cacert (default $AIPWATCH_CONTEXT, else the file's current; see aipwatch contexts)")
	fs.StringVar(&o.tokenFile, "token-file", "", "`FILE` holding the bearer token (default $AIP_TOKEN_FILE, else $GETAIP_NATIVE_BEARER_TOKEN_FILE, else the token itself in $AIP_TOKEN; none: no Authorization header)")
	fs.StringVar(&o.cursor, "cursor", "", "start from this `CURSOR` (the one a detached run printed)")
	fs.StringVar(&o.output, "output", "", "`MODE`: tui, plain or jsonl (default tui on a terminal, else plain)")
	fs.BoolVar(&o.cancel, "cancel", false, "send explicit cancellation once attached, then follow to the end")
	fs.StringVar(&o.reason, "reason", defaultReason, "cancellation reason `TEXT` (default \""+defaultReason+"\")")
	fs.BoolVar(&o.notify, "notify", false, "when the action settles, ring the bell and send the verdict as a desktop notification through the terminal (OSC 9, and OSC 777 where TERM says so); nothing when the output is not a terminal")
	fs.BoolVar(&o.redact, "redact", false, "mask prompts, outputs, tool arguments and results, provider IDs and error details")
	fs.BoolVar(&o.timestamps, "timestamps", false, "plain: start each status line with its time; jsonl: add \"at\" to each object (the TUI toggles times with T)")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour (also when NO_COLOR is set or the output is not a terminal)")
	fs.StringVar(&o.demo, "demo", "", "follow a scripted action on the built-in simulator (`SCENARIO`s below; default chat-tools)")
	fs.Lookup("demo").NoOptDefVal = "chat-tools"
	fs.StringVar(&o.cacert, "cacert", "", "PEM `FILE` of the private CA that signed aipd's certificate")
	fs.BoolVar(&o.allowInsecureHTTP, "allow-insecure-http", false, "allow plain http:// to a host that is not loopback (the token then crosses the network in clear)")
	fs.StringVar(&o.record, "record", "", "append every frame, connection change and the result to `FILE` (JSON lines, mode 0600)")
	fs.StringVar(&o.replay, "replay", "", "review a recording `FILE` made with --record, with no network")
	fs.Float64Var(&o.speed, "speed", 0, "with --replay: recorded time divided by `N` (default 0: instant)")
	fs.StringVar(&o.export, "export", "", "write the transcript as Markdown to `FILE` (any output mode)")
	fs.IntVar(&o.rawCapMiB, "raw-cap-mib", defaultRawCapMiB, "keep at most `N` MiB of raw frames for the raw view (default 64; 0: all); the oldest go first, never text or verdict evidence")
	fs.DurationVar(&o.appearTimeout, "appear-timeout", stream.DefaultAppearTimeout, "how long to wait for an action aipd has no record of yet (a synchronous action has none until it settles) to show its first event (`D`, default "+stream.DefaultAppearTimeout.String()+")")
	fs.DurationVar(&o.stallTimeout, "stall-timeout", stream.DefaultStallTimeout, "how long an action with chunks but no record or result may show no new chunk before it is reported unsettled (`D`, default "+stream.DefaultStallTimeout.String()+")")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVarP(&o.help, "help", "h", false, "show this help")
	return fs
}

// parse reads flags and environment into options, or a usage error.
func parse(args []string, stderr io.Writer, getenv func(string) string) (*options, *pflag.FlagSet, error) {
	o := &options{}
	fs := newFlagSet(o, stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		return nil, fs, output.UsageError(err.Error())
	}
	if o.help || o.version {
		return o, fs, nil
	}
	applyEnv(o, getenv)
	if o.appearTimeout <= 0 || o.stallTimeout <= 0 {
		return nil, fs, output.UsageError("--appear-timeout and --stall-timeout must be positive durations (e.g. 90s, 5m)")
	}
	o.stallSet = fs.Changed("stall-timeout")
	switch o.output {
	case "", "tui", "plain", "jsonl":
	default:
		return nil, fs, output.UsageError(fmt.Sprintf("--output must be tui, plain or jsonl, not %q", o.output))
	}
	rest := fs.Args()
	switch {
	case len(rest) > 1:
		return nil, fs, output.UsageError("one ACTION_ID at most")
	case len(rest) == 1:
		o.actionID = rest[0]
	default:
		o.actionID = getenv("AIP_ACTION_ID")
	}
	if o.rawCapMiB < 0 {
		return nil, fs, output.UsageError("--raw-cap-mib must be 0 (keep all) or more")
	}
	if o.speed < 0 {
		return nil, fs, output.UsageError("--speed must be 0 (instant) or more")
	}
	if o.speed > 0 && o.replay == "" {
		return nil, fs, output.UsageError("--speed only applies to --replay")
	}
	if o.replay != "" {
		switch {
		case o.demo != "":
			return nil, fs, output.UsageError("--replay and --demo exclude each other")
		case len(rest) == 1:
			return nil, fs, output.UsageError("--replay reviews the recorded action: give no ACTION_ID")
		case o.cancel:
			return nil, fs, output.UsageError("--cancel needs a live action, not a --replay")
		case o.record != "":
			return nil, fs, output.UsageError("--record and --replay exclude each other")
		}
		return o, fs, nil
	}
	if o.demo != "" {
		if !knownScenario(o.demo) && o.demo != demoConsole && o.demo != demoFleet {
			return nil, fs, output.UsageError(fmt.Sprintf("unknown demo scenario %q (known: %s)", o.demo, strings.Join(sim.Scenarios(), ", ")))
		}
		if len(rest) == 1 {
			msg := "--demo follows its own action: give no ACTION_ID"
			if knownScenario(rest[0]) || rest[0] == demoConsole || rest[0] == demoFleet {
				msg += fmt.Sprintf(" (for the %s scenario: --demo=%s)", rest[0], rest[0])
			}
			return nil, fs, output.UsageError(msg)
		}
		return o, fs, nil
	}
	if o.actionID == "" {
		// On a terminal, no ACTION_ID opens the console (design §7);
		// run decides, since only it knows the terminal.
		o.console = true
		return o, fs, checkURL(o.url, o.allowInsecureHTTP)
	}
	if !strings.HasPrefix(o.actionID, "act_") {
		from := "ACTION_ID"
		if len(rest) == 0 {
			from = "ACTION_ID (from $AIP_ACTION_ID)"
		}
		return nil, fs, output.UsageError(fmt.Sprintf("%s must start with act_: %q", from, o.actionID))
	}
	if err := checkURL(o.url, o.allowInsecureHTTP); err != nil {
		return nil, fs, err
	}
	return o, fs, nil
}

// applyEnv fills what the flags left empty from the environment, then
// from the config file's context (contexts.go), field by field.
func applyEnv(o *options, getenv func(string) string) {
	if o.url == "" {
		o.url = getenv("AIP_URL")
	}
	o.urlGiven = o.url != ""
	defer func() {
		if o.url == "" {
			o.url = "http://127.0.0.1:8080"
		}
	}()
	if o.tokenFile == "" {
		o.tokenFile = getenv("AIP_TOKEN_FILE")
	}
	if o.tokenFile == "" {
		o.tokenFile = getenv("GETAIP_NATIVE_BEARER_TOKEN_FILE")
	}
	if o.tokenFile == "" {
		// The token itself may come from the environment, never a flag.
		o.token = getenv("AIP_TOKEN")
	}
	applyContext(o, getenv)
}

func knownScenario(name string) bool {
	for _, s := range sim.Scenarios() {
		if s == name {
			return true
		}
	}
	return false
}

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
		return output.UsageError(fmt.Sprintf("--url %s has no scheme: did you mean https://%s (or http:// for a loopback host)?",
			safe.Line(shown), safe.Line(shown)))
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

// redactURL drops user:password and credential query parameters from a URL
// before it is shown, journalled or recorded anywhere.
func redactURL(raw string) string {
	clean, _ := safe.URLSecrets(raw)
	if clean == "" && raw != "" {
		return "(unparsable URL)"
	}
	return clean
}

// loadToken sets o.token to the bearer token: the token file's, else the
// one from $AIP_TOKEN, and registers it with safe.Protect, so from here on
// no 12-character piece of it is written anywhere, whatever the server
// echoes (design §5). Every command that talks to aipd calls it.
func loadToken(o *options, stderr io.Writer) error {
	if err := o.ctx.check(o, stderr); err != nil {
		return err
	}
	tok, err := readToken(o.tokenFile, stderr)
	if err != nil {
		return o.ctx.wrap("token_file", o.ctx.token, err)
	}
	if tok != "" {
		o.token = tok
	}
	safe.Protect(o.token)
	return nil
}

// readToken reads the bearer token file, trimming the trailing newline. A
// file readable by group or others gets a warning: the token is a secret.
func readToken(path string, stderr io.Writer) (string, error) {
	if path == "" {
		return "", nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(stderr, "warning: token file %s is readable by group or others (mode %04o); chmod 600 it\n", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimRight(string(b), "\r\n")
	if strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("token file %s holds more than one line", path)
	}
	if strings.TrimSpace(tok) == "" {
		// A file given but empty is a mistake, not "no token": requests
		// would go without Authorization and fail as if the token were wrong.
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}

// rawCap is the model's raw-bytes cap for --raw-cap-mib (0 keeps all).
func (o *options) rawCap() int64 {
	if o.rawCapMiB == 0 {
		return -1
	}
	return int64(o.rawCapMiB) << 20
}

// hideFlags leaves out of a subcommand's help the common flags it does not
// take; notTaken, after parsing, names the first of them that was given
// (""), so the subcommand refuses it instead of ignoring it.
func hideFlags(fs *pflag.FlagSet, names []string) {
	for _, name := range names {
		_ = fs.MarkHidden(name)
	}
}

func notTaken(fs *pflag.FlagSet, names []string) string {
	for _, name := range names {
		if fs.Changed(name) {
			return name
		}
	}
	return ""
}

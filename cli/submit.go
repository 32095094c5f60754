package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/submit"
)

// submitOptions are the flags of `aipwatch submit` beyond the common ones
// (design §6).
type submitOptions struct {
	capability     string
	input          string // @file, @- (stdin) or the JSON itself
	actionID       string
	idempotencyKey string
	mode           string
	dryRun         bool
}

// commonEnv fills the options the environment may give (design §1): the
// same rule as a follow's.
func commonEnv(o *options, getenv func(string) string) { applyEnv(o, getenv) }

func tokenSource(o *options) string {
	switch {
	case o.tokenFile != "":
		return "file:" + o.tokenFile
	case o.token != "":
		return "env:AIP_TOKEN"
	}
	return "none"
}

func usageFail(stdout, stderr io.Writer, jsonl bool, msg string) int {
	if jsonl {
		output.WriteError(stdout, output.UsageError(msg))
	} else {
		fmt.Fprintf(stderr, "aipwatch: %s\n(see aipwatch submit --help)\n", safe.Line(msg))
	}
	return model.ExitUsage
}

func newSubmitFlags(o *options, so *submitOptions, stderr io.Writer) *pflag.FlagSet {
	fs := newFlagSet(o, stderr)
	fs.Init("aipwatch submit", pflag.ContinueOnError)
	fs.Usage = func() {}
	fs.StringVar(&so.input, "input", "", "the action input: @FILE, @- for stdin, or the JSON itself (required, but with --demo)")
	fs.StringVar(&so.actionID, "action-id", "", "the action ID to use (act_…; default a new act_ + UUIDv7)")
	fs.StringVar(&so.idempotencyKey, "idempotency-key", "", "the idempotency key (default a new one for this request)")
	fs.StringVar(&so.mode, "mode", submit.ModeAsync, "async (aipd keeps a record at once; the action outlives this terminal) or sync (the guide's action call)")
	fs.BoolVar(&so.dryRun, "dry-run", false, "check the input and print the envelope that would be sent; send nothing, write no journal")
	hideFlags(fs, submitIgnores)
	return fs
}

// submitIgnores are the common flags that submit refuses: a submission is
// live and starts at the beginning.
var submitIgnores = []string{"replay", "cursor", "speed"}

func submitUsage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `aipwatch submit submits one action with a stable ID, then follows it.

Usage:
  aipwatch submit [flags] CAPABILITY_ID --input @request.json
  aipwatch submit --demo[=SCENARIO]
                        submit to the built-in simulator and follow

The action ID and idempotency key are written to the journal before the first
byte is sent: $XDG_STATE_HOME/aipwatch/submissions.jsonl (else
~/.local/state/aipwatch/submissions.jsonl). Quitting is not cancellation:
aipwatch prints the command that follows the same ID.

Flags:
`)
	fmt.Fprint(w, flagHelp(fs))
	fmt.Fprint(w, "\nDemo scenarios (submit --demo=NAME):\n")
	demoScenarios(w, sim.Scenarios())
}

// demoInput is the request --demo submits for a scenario's operation.
func demoInput(op string) string {
	if op == submit.OpResponses {
		return `{"body":{"model":"hermes-agent","input":"Summarise the incident notes.","store":true},"session_key":"aipwatch:demo","max_events":4096}`
	}
	return `{"messages":[{"role":"user","content":"Show me the repository layout and summarise the README."}],"model":"hermes-agent","session_id":"aipwatch-demo","max_events":4096}`
}

func readInput(spec string, stdin io.Reader) ([]byte, error) {
	switch {
	case spec == "@-":
		return io.ReadAll(io.LimitReader(stdin, 64<<20))
	case strings.HasPrefix(spec, "@"):
		return os.ReadFile(spec[1:])
	}
	return []byte(spec), nil
}

// runSubmit is `aipwatch submit` (design §6).
func runSubmit(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, keys Keys) (code int) {
	o := &options{keys: keys}
	so := &submitOptions{}
	fs := newSubmitFlags(o, so, stderr)
	jsonl := wantsJSONL(args)
	if err := fs.Parse(args); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}
	if o.help {
		submitUsage(fs, stdout)
		return 0
	}
	if o.version {
		fmt.Fprint(stdout, versionText())
		return 0
	}
	commonEnv(o, getenv)
	o.getenv = getenv
	rest := fs.Args()
	switch {
	case notTaken(fs, submitIgnores) != "":
		return usageFail(stdout, stderr, jsonl, "--"+notTaken(fs, submitIgnores)+" does not apply to submit")
	case o.output != "" && o.output != "tui" && o.output != "plain" && o.output != "jsonl":
		return usageFail(stdout, stderr, jsonl, fmt.Sprintf("--output must be tui, plain or jsonl, not %q", o.output))
	case so.mode != submit.ModeAsync && so.mode != submit.ModeSync:
		return usageFail(stdout, stderr, jsonl, fmt.Sprintf("--mode must be async or sync, not %q", so.mode))
	case len(rest) > 1:
		return usageFail(stdout, stderr, jsonl, "one CAPABILITY_ID at most")
	case o.appearTimeout <= 0 || o.stallTimeout <= 0:
		return usageFail(stdout, stderr, jsonl, "--appear-timeout and --stall-timeout must be positive durations (e.g. 90s, 5m)")
	case o.rawCapMiB < 0:
		return usageFail(stdout, stderr, jsonl, "--raw-cap-mib must be 0 (keep all) or more")
	}
	if o.demo != "" {
		if !knownScenario(o.demo) {
			return usageFail(stdout, stderr, jsonl, fmt.Sprintf("unknown demo scenario %q (known: %s)", o.demo, strings.Join(sim.Scenarios(), ", ")))
		}
		op := sim.Operation(o.demo)
		if len(rest) == 0 {
			rest = []string{"cap:hermes_agent:sim:" + op}
		}
		if so.input == "" {
			so.input = demoInput(op)
		}
	}
	if len(rest) == 0 {
		return usageFail(stdout, stderr, jsonl, "no CAPABILITY_ID given")
	}
	so.capability = rest[0]
	if err := submit.CheckCapability(so.capability); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}
	if so.input == "" {
		return usageFail(stdout, stderr, jsonl, "no --input given (@request.json, @- for stdin, or the JSON itself)")
	}
	input, err := readInput(so.input, stdin)
	if err != nil {
		return usageFail(stdout, stderr, jsonl, "--input: "+err.Error())
	}
	// Contract §6.1: one clear line per problem, before anything is sent.
	problems := submit.Check(so.capability, input)
	for _, p := range problems {
		fmt.Fprintf(stderr, "aipwatch: input: %s\n", safe.Line(p.String()))
	}
	if submit.HasErrors(problems) {
		return usageFail(stdout, stderr, jsonl, "the input breaks the streaming guide's rules (above); nothing was sent")
	}
	now := time.Now()
	if so.actionID != "" {
		if err := submit.CheckActionID(so.actionID); err != nil {
			return usageFail(stdout, stderr, jsonl, err.Error())
		}
	} else if so.actionID, err = submit.NewActionID(now, rand.Reader); err != nil {
		return fail(o, stdout, stderr, err)
	}
	if so.idempotencyKey == "" {
		if so.idempotencyKey, err = submit.NewIdempotencyKey(now, rand.Reader); err != nil {
			return fail(o, stdout, stderr, err)
		}
	}
	req := submit.Request{ActionID: so.actionID, CapabilityID: so.capability, Input: compactJSON(input),
		Mode: so.mode, IdempotencyKey: so.idempotencyKey}
	o.actionID = so.actionID

	if so.dryRun {
		mid, err := submit.NewMessageID(now, rand.Reader)
		if err != nil {
			return fail(o, stdout, stderr, err)
		}
		shown := req
		if o.redact {
			shown.Input = json.RawMessage(`"` + safe.Masked + `"`)
		}
		env, err := submit.Envelope(shown, mid, now)
		if err != nil {
			return fail(o, stdout, stderr, err)
		}
		if jsonl { // one object with a type, as every jsonl line (design §4)
			fmt.Fprintf(stdout, "{\"type\":\"dry_run\",\"envelope\":%s}\n", compactJSON(env))
			return 0
		}
		fmt.Fprintf(stdout, "%s\n", env)
		return 0
	}

	ctx, stop := detachContext()
	defer stop()
	if o.demo != "" {
		srv, ok := startDemo(o, sim.Knobs{Speed: 1, Submit: sim.SubmitKnobs{Await: true, ActionID: so.actionID}}, stderr)
		if !ok {
			return model.ExitError
		}
		defer srv.Close()
	}
	if err := checkURL(o.url, o.allowInsecureHTTP); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}

	jpath, err := journal.Path(getenv)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	j, err := journal.Open(jpath)
	if err != nil {
		return fail(o, stdout, stderr, fmt.Errorf("%w (nothing was sent)", err))
	}
	defer j.Close()
	warnJournal(stderr, "aipwatch", j.Warnings())

	mode, isTTY := outputMode(o, stdout)
	cont := submit.ContinuityOf(input)
	o.session = cont.SessionID
	base := journal.Entry{ActionID: so.actionID, CapabilityID: so.capability, IdempotencyKey: so.idempotencyKey,
		Mode: so.mode, BaseURL: redactURL(o.url), TokenSource: tokenSource(o),
		SessionID: cont.SessionID, SessionKey: cont.SessionKey, PreviousResponseID: cont.PreviousResponseID, Conversation: cont.Conversation}
	envelope := func(try int) ([]byte, error) {
		at := time.Now()
		mid, err := submit.NewMessageID(at, rand.Reader)
		if err != nil {
			return nil, err
		}
		env, err := submit.Envelope(req, mid, at)
		if err != nil {
			return nil, err
		}
		e := base
		e.Kind, e.MessageID, e.SentAt = journal.KindSubmit, mid, at.UTC().Format("2006-01-02T15:04:05.000Z")
		if try > 1 {
			e.Kind = journal.KindResend
		}
		if err := j.Append(e); err != nil {
			return nil, err
		}
		return env, nil
	}
	// Print the action ID and the command that follows it before sending
	// (design §6.2): quitting, a crash or a lost reply leave it findable.
	announce(o, mode, stdout, stderr, so, jpath)

	o.submission = &stream.Submission{Envelope: envelope, Sync: so.mode == submit.ModeSync, AppearTimeout: o.appearTimeout,
		OnReply: func(_ int, out stream.PostOutcome) {
			e := journal.Entry{Kind: journal.KindReply, ActionID: so.actionID}
			switch {
			case out.Uncertain:
				e.Reply = "none"
			case out.Err != nil:
				e.Reply, e.Code = "error", out.Err.Code
			case out.Reply.Ack != nil:
				e.Reply = "ack:" + out.Reply.Ack.Status
			case out.Reply.Result != nil:
				e.Reply = "result:" + out.Reply.Result.Status
				if out.Reply.Replay { // an earlier run's result, returned again (protocol §1.3)
					e.Reply = "replay:" + out.Reply.Result.Status
				}
				if out.Reply.Result.Error != nil {
					e.Code = out.Reply.Result.Error.Code
				}
			}
			_ = j.Append(e)
		}}
	runner, finish, err := newRunner(o, mode, stderr)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	a, code := runMode(ctx, o, mode, runner, stdin, stdout, stderr, isTTY)
	if a != nil {
		if a.Cursor != "" {
			_ = j.Append(journal.Entry{Kind: journal.KindCursor, ActionID: so.actionID, Cursor: a.Cursor})
		}
		if v := a.Verdict(); v.Final {
			_ = j.Append(journal.Entry{Kind: journal.KindVerdict, ActionID: so.actionID, Verdict: v.Word})
		}
	}
	if err := finish(a); err != nil {
		fmt.Fprintf(stderr, "aipwatch: %s\n", safe.Line(err.Error()))
		if code == model.ExitVerified {
			code = model.ExitError
		}
	}
	return code
}

// announce prints the submission's identity before it is sent.
func announce(o *options, mode string, stdout, stderr io.Writer, so *submitOptions, jpath string) {
	follow := resumeCommand(o, "")
	if o.demo != "" {
		follow = "" // the demo's simulator stops with aipwatch: nothing to follow later
	}
	if mode == "jsonl" {
		_ = output.WriteObject(stdout, struct {
			Type           string `json:"type"`
			ActionID       string `json:"action_id"`
			IdempotencyKey string `json:"idempotency_key"`
			Mode           string `json:"mode"`
			Journal        string `json:"journal"`
			Follow         string `json:"follow"`
		}{"submit", so.actionID, so.idempotencyKey, so.mode, jpath, follow})
		return
	}
	w := stdout
	if mode == "tui" {
		w = stderr // stays on the terminal under the alt screen
	}
	if follow == "" {
		fmt.Fprintf(w, "submitting %s to %s (mode %s, the demo's simulator); journal: %s\n",
			safe.Line(so.actionID), safe.Line(so.capability), so.mode, safe.Line(jpath))
		return
	}
	fmt.Fprintf(w, "submitting %s to %s (mode %s); journal: %s\nfollow it with: %s\n",
		safe.Line(so.actionID), safe.Line(so.capability), so.mode, safe.Line(jpath), follow)
}

func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return json.RawMessage(b)
	}
	return json.RawMessage(buf.Bytes())
}

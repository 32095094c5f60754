package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/submit"
)

// submitOptions are submit's own flags (design §6).
type submitOptions struct {
	capability     string
	input          string // @file, @- (stdin) or the JSON itself
	actionID       string
	idempotencyKey string
	mode           string
	modeWhy        string // why the mode is mode (submit.ChooseMode)
	dryRun         bool
}

func submitCommand(e *runEnv, g *globalFlags) *cobra.Command {
	w := &watch{e: e}
	so := &submitOptions{}
	c := &cobra.Command{
		Use:   "submit [flags] CAPABILITY_ID --input @request.json",
		Short: "submit one action with a stable ID, then follow it",
		Long: `aipwatch submit submits one action with a stable ID, then follows it.

The action ID and idempotency key are written to the journal before the first
byte is sent: $XDG_STATE_HOME/aipwatch/submissions.jsonl (else
~/.local/state/aipwatch/submissions.jsonl). Quitting is not cancellation:
aipwatch prints the command that follows the same ID.`,
		Example: `  aipwatch submit cap:hermes_agent:ops:chat_stream --input @request.json
  aipwatch submit --dry-run cap:hermes_agent:ops:responses_stream --input @-
  aipwatch submit --demo=responses-tools`,
		Annotations: map[string]string{helpAfter: helpAfterSubmit},
		Args:        cobra.ArbitraryArgs,
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVar(&so.input, "input", "", "the action `INPUT`: @FILE, @- for stdin, or the JSON itself (required, but with --demo)")
	fs.StringVar(&so.actionID, "action-id", "", "the action `ID` to use (act_…; default a new act_ + UUIDv7)")
	fs.StringVar(&so.idempotencyKey, "idempotency-key", "", "the idempotency `KEY` (default a new one for this request)")
	fs.StringVar(&so.mode, "mode", "", "`MODE`: async (aipd keeps a record at once), sync (the guide's action call) or streaming (held open like sync; the only mode whose chunks the fleet records); default streaming for chat_stream and responses_stream, else async")
	fs.BoolVar(&so.dryRun, "dry-run", false, "check the input and print the envelope that would be sent; send nothing, write no journal")
	addRunFlags(fs, &w.r)
	addDemoFlag(fs, &w.r.demo, "submit a scripted action to the built-in simulator and follow it (`SCENARIO`s below; default chat-tools)", "chat-tools")
	c.RunE = versioned(e, g, func(c *cobra.Command, args []string) error {
		w.g = *g
		if err := w.r.checkRun(c.Flags()); err != nil {
			return err
		}
		w.conn = newConn(w.g.cf, w.r.demo == "", e.getenv)
		return runSubmit(w, so, args)
	})
	return c
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

// runSubmit returns a usage error, and reports anything else and sets
// its exit code.
func runSubmit(w *watch, so *submitOptions, rest []string) error {
	e := w.e
	req, input, err := so.request(w.r.demo, rest, e.stdin, e.stderr)
	var usage output.UsageError
	switch {
	case errors.As(err, &usage):
		return err
	case err != nil:
		return e.fail(w.g.output, err)
	case so.dryRun:
		if err := dryRun(req, w.g.redact, w.g.output == "jsonl", e.stdout); err != nil {
			return e.fail(w.g.output, err)
		}
		return nil
	}

	ctx, stop := detachContext()
	defer stop()
	if w.r.demo != "" {
		srv, ok := startDemo(w, sim.Knobs{Speed: 1, Submit: sim.SubmitKnobs{Await: true, ActionID: so.actionID}})
		if !ok {
			return e.exit(model.ExitError)
		}
		defer srv.Close()
	}
	if err := w.conn.check(); err != nil {
		return err
	}
	jpath, err := journal.Path(e.getenv)
	if err != nil {
		return e.fail(w.g.output, err)
	}
	j, err := journal.Open(jpath)
	if err != nil {
		return e.fail(w.g.output, fmt.Errorf("%w (nothing was sent)", err))
	}
	defer j.Close()

	cont := submit.ContinuityOf(input)
	base := journal.Entry{ActionID: so.actionID, CapabilityID: so.capability, IdempotencyKey: so.idempotencyKey,
		Mode: so.mode, BaseURL: w.conn.shownURL(), TokenSource: w.conn.tokenSource(),
		SessionID: cont.SessionID, SessionKey: cont.SessionKey, PreviousResponseID: cont.PreviousResponseID, Conversation: cont.Conversation}
	// Print the action ID and the command that follows it before sending
	// (design §6.2): quitting, a crash or a lost reply leave it findable.
	announce(w, so, jpath)
	sub := journalled(j, req, base, w.r.appearTimeout)
	p := posted{w: w, t: target{arg: so.actionID, id: so.actionID, conn: w.conn}, sub: sub, session: cont.SessionID}
	return e.exit(runWatch(ctx, w, p.sources, false, func(a *model.Action) {
		if a.Cursor != "" {
			_ = j.Append(journal.Entry{Kind: journal.KindCursor, ActionID: so.actionID, Cursor: a.Cursor})
		}
		if v := a.Verdict(); v.Final {
			_ = j.Append(journal.Entry{Kind: journal.KindVerdict, ActionID: so.actionID, Verdict: v.Word})
		}
	}))
}

// posted is the action a submission posts and follows: its one source is
// the submission, its input carrying session.
type posted struct {
	w       *watch
	t       target
	sub     *stream.Submission
	session string
}

func (p posted) sources(string) ([]*source, error) {
	s, err := p.w.source(p.t, "", p.sub, p.session)
	return []*source{s}, err
}

// request checks the submission's flags and input and decides its
// identity (design §6.1): a mistake is a usage error, one line a problem,
// before anything is sent.
func (so *submitOptions) request(demo string, rest []string, stdin io.Reader, stderr io.Writer) (submit.Request, []byte, error) {
	usage := func(msg string) (submit.Request, []byte, error) { return submit.Request{}, nil, output.UsageError(msg) }
	if so.mode != "" {
		if err := submit.CheckMode(so.mode); err != nil {
			return usage(err.Error())
		}
	}
	if len(rest) > 1 {
		return usage("one CAPABILITY_ID at most")
	}
	if demo != "" {
		if !slices.Contains(submitDemos(), demo) {
			return usage(fmt.Sprintf("unknown demo scenario %q (known: %s)", demo, strings.Join(submitDemos(), ", ")))
		}
		scenario, _ := demoSim(demo, sim.Knobs{})
		op := sim.Operation(scenario)
		if len(rest) == 0 {
			rest = []string{"cap:hermes_agent:sim:" + op}
		}
		if so.input == "" {
			so.input = demoInput(op)
		}
	}
	if len(rest) == 0 {
		return usage("no CAPABILITY_ID given")
	}
	so.capability = rest[0]
	if err := submit.CheckCapability(so.capability); err != nil {
		return usage(err.Error())
	}
	choice := submit.ChooseMode(so.capability, so.mode)
	so.mode, so.modeWhy = choice.Mode, choice.Why
	if so.input == "" {
		return usage("no --input given (@request.json, @- for stdin, or the JSON itself)")
	}
	input, err := readInput(so.input, stdin)
	if err != nil {
		return usage("--input: " + err.Error())
	}
	problems := submit.Check(so.capability, input)
	for _, p := range problems {
		fmt.Fprintf(stderr, "aipwatch: input: %s\n", safe.Line(p.String()))
	}
	if submit.HasErrors(problems) {
		return usage("the input breaks the streaming guide's rules (above); nothing was sent")
	}
	now := time.Now()
	if so.actionID != "" {
		if err := submit.CheckActionID(so.actionID); err != nil {
			return usage(err.Error())
		}
	} else if so.actionID, err = submit.NewActionID(now, rand.Reader); err != nil {
		return submit.Request{}, nil, err
	}
	if so.idempotencyKey == "" {
		if so.idempotencyKey, err = submit.NewIdempotencyKey(now, rand.Reader); err != nil {
			return submit.Request{}, nil, err
		}
	}
	return submit.Request{ActionID: so.actionID, CapabilityID: so.capability, Input: compactJSON(input),
		Mode: so.mode, IdempotencyKey: so.idempotencyKey}, input, nil
}

// dryRun prints the envelope that would be sent (masked under --redact).
func dryRun(req submit.Request, redact, jsonl bool, stdout io.Writer) error {
	now := time.Now()
	mid, err := submit.NewMessageID(now, rand.Reader)
	if err != nil {
		return err
	}
	if redact {
		req.Input = json.RawMessage(`"` + safe.Masked + `"`)
	}
	env, err := submit.Envelope(req, mid, now)
	if err != nil {
		return err
	}
	if jsonl { // one object with a type, as every jsonl line (design §4)
		fmt.Fprintf(stdout, "{\"type\":\"dry_run\",\"envelope\":%s}\n", compactJSON(env))
		return nil
	}
	fmt.Fprintf(stdout, "%s\n", env)
	return nil
}

// journalled is the submission that journals each try before its first
// byte is sent (design §6.2) and each reply as it comes.
func journalled(j *journal.Journal, req submit.Request, base journal.Entry, appear time.Duration) *stream.Submission {
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
	return &stream.Submission{Envelope: envelope, Sync: submit.Held(req.Mode), IdempotencyKey: req.IdempotencyKey, AppearTimeout: appear,
		OnReply: func(_ int, out stream.PostOutcome) {
			e := journal.Entry{Kind: journal.KindReply, ActionID: req.ActionID}
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
}

func announce(w *watch, so *submitOptions, jpath string) {
	stdout, stderr := w.e.stdout, w.e.stderr
	_, mode := w.e.ioOf(w.g.output)
	follow := w.resume("", so.actionID)
	if w.r.demo != "" {
		follow = "" // the demo's simulator stops with aipwatch: nothing to follow later
	}
	if mode == "jsonl" {
		_ = output.WriteObject(stdout, struct {
			Type           string `json:"type"`
			ActionID       string `json:"action_id"`
			IdempotencyKey string `json:"idempotency_key"`
			Mode           string `json:"mode"`
			ModeWhy        string `json:"mode_why,omitempty"`
			Journal        string `json:"journal"`
			Follow         string `json:"follow"`
		}{"submit", so.actionID, so.idempotencyKey, so.mode, so.modeWhy, jpath, follow})
		return
	}
	to := stdout
	if mode == "tui" {
		to = stderr // stays on the terminal under the alt screen
	}
	how, then := so.mode, "follow it with: "+follow+"\n" // how: "streaming: chat_stream's expected completion; …"
	if so.modeWhy != "" {
		how += ": " + so.modeWhy
	}
	if follow == "" {
		how, then = how+", the demo's simulator", ""
	}
	fmt.Fprintf(to, "submitting %s to %s (mode %s); journal: %s\n%s", safe.Line(so.actionID), safe.Line(so.capability), how, safe.Line(jpath), then)
}

func compactJSON(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return json.RawMessage(b)
	}
	return json.RawMessage(buf.Bytes())
}

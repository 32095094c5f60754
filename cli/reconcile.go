package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/submit"
	"aipwatch/ui"
)

// Reconciliation is what one read-only reconcile action read (design §8).
type reconcileResult struct {
	Op           string // response_get or session_get
	Capability   string
	ActionID     string // the reconcile action's own ID
	Target       string // the response.id or session_id read
	StoredStatus string // completed, failed, incomplete, in_progress, stored, not_found; "" = no answer
	Meaning      string // one line for the operator
	Refused      bool   // aipd or the policy refused the read (or no reply)
}

// readTarget decides what to read for a settled action: response_get of
// the captured response.id for Responses, the session read of the
// session_id for Chat (the finish chunk's, else the one the journal kept
// from the submitted input).
func readTarget(a *model.Action, journalled journal.Entry) (op, target string) {
	if id := a.Responses().ResponseID; id != "" {
		return submit.OpResponseGet, id
	}
	if r, ok := a.Reconcile(); ok && r.SessionID != "" {
		return submit.OpSessionGet, r.SessionID
	}
	if a.Operation() == submit.OpChat || strings.HasSuffix(journalled.CapabilityID, ":"+submit.OpChat) {
		if f := a.Chat().Finish; f != nil && f.Hermes != nil && f.Hermes.SessionID != "" {
			return submit.OpSessionGet, f.Hermes.SessionID
		}
		if journalled.SessionID != "" {
			return submit.OpSessionGet, journalled.SessionID
		}
	}
	return "", ""
}

// endpointOf is the endpoint of the original action: the result's
// endpoint_id, else its status's capability_id, else the journal's.
func endpointOf(a *model.Action, journalled journal.Entry) string {
	if e := a.Endpoint(); e != "" {
		return e
	}
	for _, capID := range []string{statusCapability(a), journalled.CapabilityID} {
		if ep, _, ok := submit.Capability(capID); ok {
			return ep
		}
	}
	return ""
}

func statusCapability(a *model.Action) string {
	if a.Status != nil {
		return a.Status.CapabilityID
	}
	return ""
}

// interpret turns the read's reply into the stored status (guide §14,
// protocol §3: the provider's 404 arrives as HTTP 400
// connector.hermes_agent.remote_rejected).
func interpret(op string, out stream.PostOutcome) (status, meaning string, refused bool) {
	status, meaning, refused = interpretReply(op, out)
	if out.Err == nil && !out.Uncertain && out.Reply.Replay && !refused {
		// The read's key is derived from the original action, so a second
		// reconcile can get the first read's answer again
		// (output.idempotent_replay, protocol §1.3).
		meaning += " (an earlier read's answer, replayed by aipd under the same idempotency key: the stored state may have changed since)"
	}
	return status, meaning, refused
}

func interpretReply(op string, out stream.PostOutcome) (status, meaning string, refused bool) {
	provider := providerStatus(out.Err)
	switch {
	case out.Uncertain:
		return "", "no reply to the read (" + oneLineErr(out.Err) + "); it was not retried: the journal holds its ID", true
	case out.Err != nil && notStored(out.Err, provider):
		if op == submit.OpSessionGet {
			return "not_found", "Hermes has no such session (404): it was not stored, was deleted, or the request reached another Hermes instance", false
		}
		return "not_found", "Hermes has no such response (404): it was not stored (store false), was evicted or deleted, or the request reached another response store", false
	case out.Err != nil && (out.Err.Code == "connector.hermes_agent.authentication" || out.Err.Code == "connector.hermes_agent.missing_credential"):
		// A provider 401/403 arrives as HTTP 401 (protocol open
		// point 8): Hermes refused aipd's own key for it.
		return "", "refused: Hermes refused aipd's own key for it (" + oneLineErr(out.Err) + "); aipd accepted your token, so it is not your token to fix", true
	case out.Err != nil && out.Err.Code == stream.CodeRemoteRejected:
		// Another provider 4xx (open point 8): Hermes answered, but not that
		// the object is missing.
		return "", fmt.Sprintf("refused: Hermes rejected the read with HTTP %d (%s); that is not a 404, so nothing is known of the stored state", provider, oneLineErr(out.Err)), true
	case out.Err != nil && (out.Err.Code == "connector.hermes_agent.remote_temporary" || out.Err.Code == "connector.hermes_agent.transport"):
		// A provider 429/5xx, or no answer from it, is HTTP 503 (open point 8).
		return "", "refused: Hermes is unavailable or rate-limited (" + oneLineErr(out.Err) + "); the read was not retried: reconcile again later", true
	case out.Err != nil && out.Err.Code == "resource.not_found":
		return "", "refused: aipd does not know this capability (" + oneLineErr(out.Err) + ")", true
	case out.Err != nil:
		return "", "refused: " + oneLineErr(out.Err), true
	case out.Reply.Result == nil:
		return "", "refused: the read was only acknowledged, not answered", true
	}
	r := out.Reply.Result
	if r.Status != model.StateCompleted {
		code := r.Status
		if r.Error != nil {
			code = r.Error.Code
		}
		return "", "refused: the read ended " + safe.Line(r.Status) + " (" + safe.Line(code) + ")", true
	}
	var o struct {
		Status string `json:"status"`
		ID     string `json:"id"`
	}
	_ = json.Unmarshal(r.Output, &o)
	if op == submit.OpSessionGet {
		return "stored", "Hermes holds the session; inspect it before deciding that another action is safe", false
	}
	switch o.Status {
	case "completed":
		return "completed", "the stored response is completed: a terminal provider object to review", false
	case "failed":
		return "failed", "the stored response is failed: the retained failure state", false
	case "incomplete":
		return "incomplete", "the stored response is incomplete: partial output kept after a disconnect or cancellation; do not submit a replacement", false
	case "":
		return "unknown", "the stored response has no status", false
	}
	return safe.Line(o.Status), "the stored response reads " + safe.Line(o.Status), false
}

// providerStatus is the provider's HTTP status a connector error names:
// the connector's message reads "Hermes endpoint `EP` returned HTTP N"
// (hermes_failure_with_retry_safety); 0 when it names none.
func providerStatus(e *stream.Error) int {
	if e == nil || !strings.HasPrefix(e.Code, "connector.") {
		return 0
	}
	m := providerStatusRE.FindStringSubmatch(e.Message)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

var providerStatusRE = regexp.MustCompile(`returned HTTP (\d{3})\b`)

// notStored: the provider's 404 on a read, whichever way aipd sends it
// (protocol open point 8: HTTP 400
// connector.hermes_agent.remote_rejected; protocol §3 said 502, kept as a
// reading). A remote_rejected that names no provider status is taken as
// the 404 too; one that names another status is not.
func notStored(e *stream.Error, provider int) bool {
	switch {
	case provider == http.StatusNotFound:
		return true
	case e.Code == stream.CodeRemoteRejected:
		return provider == 0
	}
	return false
}

func oneLineErr(e *stream.Error) string {
	if e == nil {
		return "no detail"
	}
	return safe.Line(e.Error())
}

// reconcileIgnores are the common flags its help leaves out: those of a
// replay, a demo or a cancel, which reconcile refuses or has no use for.
var reconcileIgnores = []string{"replay", "demo", "cancel", "record", "speed", "reason"}

// runReconcile is `aipwatch reconcile ACTION_ID` (design §8): review the
// settled action, then submit one read-only action and show the stored
// status beside the verdict, which it never changes.
func runReconcile(args []string, stdout, stderr io.Writer, getenv func(string) string, keys Keys) int {
	o := &options{keys: keys}
	fs := newFlagSet(o, stderr)
	fs.Init("aipwatch reconcile", pflag.ContinueOnError)
	fs.DurationVar(&o.readTimeout, "read-timeout", defaultReadTimeout, "how long the read waits for aipd's answer before it is reported unanswered (`D`)")
	fs.Usage = func() {}
	hideFlags(fs, reconcileIgnores) // refused below
	jsonl := wantsJSONL(args)
	if err := fs.Parse(args); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}
	switch {
	case o.help:
		writeWrapped(stdout, "", "aipwatch reconcile reads the provider's stored state of a settled action once: "+
			"response_get of its response.id (Responses), the Hermes session read of its session_id (Chat). "+
			"It submits one read-only action, journalled like any submission, and never re-runs the stream.", 0)
		fmt.Fprint(stdout, "\nUsage:\n  aipwatch reconcile [flags] ACTION_ID\n\nFlags:\n")
		fmt.Fprint(stdout, flagHelp(fs))
		return 0
	case o.version:
		fmt.Fprint(stdout, versionText())
		return 0
	}
	commonEnv(o, getenv)
	rest := fs.Args()
	switch {
	case o.replay != "" || o.demo != "" || o.cancel || o.record != "":
		return usageFail(stdout, stderr, jsonl, "--replay, --demo, --cancel and --record do not apply to reconcile")
	case len(rest) != 1:
		return usageFail(stdout, stderr, jsonl, "reconcile takes one ACTION_ID")
	case !strings.HasPrefix(rest[0], "act_"):
		return usageFail(stdout, stderr, jsonl, fmt.Sprintf("ACTION_ID must start with act_: %q", rest[0]))
	case o.output == "tui":
		return usageFail(stdout, stderr, jsonl, "reconcile prints lines: --output plain or jsonl (the TUI has the R key)")
	}
	o.actionID = rest[0]
	if err := checkURL(o.url, o.allowInsecureHTTP); err != nil {
		return usageFail(stdout, stderr, jsonl, err.Error())
	}
	ctx, stop := detachContext()
	defer stop()
	return reconcile(ctx, o, jsonl, stdout, stderr, getenv)
}

func reconcile(ctx context.Context, o *options, jsonl bool, stdout, stderr io.Writer, getenv func(string) string) int {
	if err := loadToken(o, stderr); err != nil {
		return fail(o, stdout, stderr, err)
	}
	httpc, err := stream.HTTPClient(o.cacert)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	client, err := stream.New(o.withTimeouts(stream.Config{BaseURL: o.url, Token: o.token, ActionID: o.actionID, HTTP: httpc}))
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	// Review the original action quietly: the verdict and the IDs to read.
	// One that has not settled is followed until it does (the read needs
	// its verdict), and the operator is told so.
	a := model.NewAction(o.actionID)
	a.SetRawCap(o.rawCap())
	var runErr *stream.Error
	rerr := client.Run(ctx, stream.SinkFunc(func(m stream.Msg) {
		stream.Apply(a, m)
		switch m := m.(type) {
		case stream.ErrorMsg:
			runErr = m.Err
		case stream.ModeMsg:
			if !m.Review {
				fmt.Fprintf(stderr, "aipwatch: reconcile: %s has not settled; following it until it does (the read needs its verdict)\n", safe.Line(o.actionID))
			}
		}
	}))
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "aipwatch: reconcile stopped before %s settled: nothing was submitted\n", safe.Line(o.actionID))
		if jsonl { // the last line is the verdict object, as a follow stopped early writes it: pending
			a.Stop()
			rec := a.Record()
			if o.redact {
				rec = output.RedactRecord(rec)
			}
			_ = output.WriteObject(stdout, rec)
		}
		return model.ExitPending
	}
	if rerr != nil {
		e := runErr
		if e == nil {
			e = &stream.Error{Op: "review", Message: rerr.Error()}
		}
		return fail(o, stdout, stderr, e)
	}
	jpath, err := journal.Path(getenv)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	plan, err := planRead(o.actionID, o.url, a, jpath)
	if err != nil {
		return fail(o, stdout, stderr, err)
	}
	res := doRead(ctx, o, client, jpath, plan)
	printReconcile(o, jsonl, stdout, a, res)
	if o.export != "" {
		md := output.Markdown(a, output.MarkdownOptions{Redact: o.redact, Version: versionString(), Now: time.Now()})
		md = append(md, []byte(reconcileMarkdown(o, res))...)
		if err := safe.WritePrivate(o.export, md); err != nil {
			fmt.Fprintf(stderr, "aipwatch: --export: %s\n", safe.Line(err.Error()))
			return model.ExitError
		}
	}
	if res.Refused {
		return model.ExitError
	}
	return 0
}

// defaultReadTimeout bounds the read's POST: it is sync (Post sets no
// timeout of its own), and an unanswered one waited for ever. aipd runs
// response_get for at most 60 s (protocol §3).
const defaultReadTimeout = 2 * time.Minute

func (o *options) readTimeoutOrDefault() time.Duration {
	if o.readTimeout > 0 {
		return o.readTimeout
	}
	return defaultReadTimeout
}

// readPlan is the one read-only action a reconcile submits.
type readPlan struct {
	of, op, target, capID string
}

// planRead decides the read for a settled action from its model and the
// journal.
func planRead(actionID, baseURL string, a *model.Action, jpath string) (readPlan, error) {
	return planFrom(actionID, a, journalled(actionID, baseURL, jpath))
}

// journalled is the last submit line of an action in the journal made
// against the daemon at baseURL, if any: the same ID on another daemon is
// another action (its session is not this one's).
func journalled(actionID, baseURL, jpath string) journal.Entry {
	return journalledAll(baseURL, jpath)[actionID]
}

// journalledAll is journalled for every action of the journal, by ID.
func journalledAll(baseURL, jpath string) map[string]journal.Entry {
	all := map[string]journal.Entry{}
	daemon := sameDaemon(baseURL)
	if entries, err := journal.Read(jpath); err == nil {
		for _, e := range entries {
			if e.Kind == journal.KindSubmit && daemon(e.BaseURL) {
				all[e.ActionID] = e
			}
		}
	}
	return all
}

// planFrom is planRead without I/O (the TUI calls it in Update).
func planFrom(actionID string, a *model.Action, orig journal.Entry) (readPlan, error) {
	op, target := readTarget(a, orig)
	endpoint := endpointOf(a, orig)
	if op == "" || endpoint == "" {
		var why string
		switch {
		case op != "":
			why = "the endpoint of the original action is unknown"
		case a.Operation() == submit.OpChat || strings.HasSuffix(orig.CapabilityID, ":"+submit.OpChat):
			why = "no Hermes session_id was captured from the stream nor kept in this machine's journal from the submitted input"
		case a.Operation() == submit.OpResponses || strings.HasSuffix(orig.CapabilityID, ":"+submit.OpResponses):
			why = "no response.id was captured (was body.store true?)"
		default:
			why = "aipwatch reads back only a Responses response.id or a Chat session_id, and neither is known"
		}
		return readPlan{}, fmt.Errorf("nothing to reconcile for %s: %s; the verdict stands: %s", actionID, why, strings.TrimSpace(output.VerdictLine(a)))
	}
	return readPlan{of: actionID, op: op, target: target, capID: "cap:hermes_agent:" + endpoint + ":" + op}, nil
}

// reconcilerFor is the TUI's R key: the journal is read before the TUI
// starts, the plan is made from the model (pure), the read runs in a
// command with its own client. The action is the one the live view shows
// (the console opens many; o.actionID is empty there).
func reconcilerFor(o *options) ui.ReconcileFunc {
	if o.replay != "" || o.getenv == nil {
		return nil
	}
	jpath, err := journal.Path(o.getenv)
	if err != nil {
		return nil
	}
	orig := journalledAll(o.url, jpath)
	opts := *o
	return func(a *model.Action) (string, func(context.Context) string) {
		id := a.ID
		if id == "" {
			id = opts.actionID
		}
		p, err := planFrom(id, a, orig[id])
		if err != nil {
			return safe.Line(err.Error()), nil
		}
		shown := p.target
		if opts.redact {
			shown = safe.Masked
		}
		return p.op + " of " + safe.Line(shown), func(ctx context.Context) string {
			httpc, err := stream.HTTPClient(opts.cacert)
			if err != nil {
				return "not sent: " + safe.Line(err.Error())
			}
			client, err := stream.New(paced(stream.Config{BaseURL: opts.url, Token: opts.token, ActionID: id, HTTP: httpc}))
			if err != nil {
				return "not sent: " + safe.Line(err.Error())
			}
			return doRead(ctx, &opts, client, jpath, p).line(opts.redact)
		}
	}
}

// doRead submits the read once (journalled first, with its own ID) and
// interprets the reply. It never retries.
func doRead(ctx context.Context, o *options, client *stream.Client, jpath string, p readPlan) reconcileResult {
	res := reconcileResult{Op: p.op, Capability: p.capID, Target: p.target}
	field := "response_id"
	if p.op == submit.OpSessionGet {
		field = "session_id"
	}
	in, _ := json.Marshal(map[string]string{field: p.target})
	now := time.Now()
	var err error
	refuse := func(err error) reconcileResult {
		res.Refused, res.Meaning = true, "not sent: "+safe.Line(err.Error())
		return res
	}
	if res.ActionID, err = submit.NewActionID(now, rand.Reader); err != nil {
		return refuse(err)
	}
	mid, err := submit.NewMessageID(now, rand.Reader)
	if err != nil {
		return refuse(err)
	}
	key := submit.ReconcileKey(p.of, p.op)
	// Sync, no mode (response_get is sync only, protocol §3).
	env, err := submit.Envelope(submit.Request{ActionID: res.ActionID, CapabilityID: p.capID, Input: in, IdempotencyKey: key}, mid, now)
	if err != nil {
		return refuse(err)
	}
	earlier := earlierReads(jpath, p)
	j, err := journal.Open(jpath)
	if err != nil {
		return refuse(err)
	}
	defer j.Close()
	entry := journal.Entry{Kind: journal.KindReconcile, ActionID: res.ActionID, Of: p.of, CapabilityID: p.capID,
		IdempotencyKey: key, BaseURL: redactURL(o.url), TokenSource: tokenSource(o), MessageID: mid,
		SentAt: now.UTC().Format("2006-01-02T15:04:05.000Z")}
	if err := j.Append(entry); err != nil {
		return refuse(err)
	}
	readCtx, cancel := context.WithTimeout(ctx, o.readTimeoutOrDefault())
	out := client.Post(readCtx, env, true)
	cancel()
	if e := readMismatch(out, res.ActionID, p, earlier); e != nil {
		out = stream.PostOutcome{Err: e}
	}
	res.StoredStatus, res.Meaning, res.Refused = interpret(p.op, out)
	done := entry
	done.Time, done.MessageID, done.SentAt, done.StoredStatus = time.Time{}, "", "", res.StoredStatus
	if res.Refused {
		done.Reply = "refused"
		if out.Err != nil {
			done.Code = out.Err.Code
		}
	}
	_ = j.Append(done)
	return res
}

// earlierReads are the IDs of the reads of the same target this journal
// holds: an idempotent replay answers the first one's result again, under
// its action ID (protocol §1.3).
func earlierReads(jpath string, p readPlan) map[string]bool {
	ids := map[string]bool{}
	entries, _ := journal.Read(jpath)
	for _, e := range entries {
		if e.Kind == journal.KindReconcile && e.Of == p.of && e.CapabilityID == p.capID {
			ids[e.ActionID] = true
		}
	}
	return ids
}

// readMismatch checks that a read's result is about this read: its
// action (the read's own ID, or under an idempotent replay an earlier
// read of the same target) and the response or session it read. Another
// one is an error, never a stored status (design §8). Post has checked
// in_response_to and the action of a result that is not a replay.
func readMismatch(out stream.PostOutcome, readID string, p readPlan, earlier map[string]bool) *stream.Error {
	if out.Err != nil || out.Uncertain || out.Reply.Result == nil {
		return nil
	}
	r := out.Reply.Result
	if !r.Of(readID) && !(out.Reply.Replay && earlier[r.ActionID]) {
		return &stream.Error{Op: "reconcile", Message: "aipd answered about another action (" + safe.Line(r.ActionID) + ", not " + readID + "): no evidence of the stored state"}
	}
	var o struct {
		ID        string `json:"id"`
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(r.Output, &o)
	for _, got := range []string{o.ID, o.SessionID} {
		if got != "" && got != p.target {
			// Neither ID is quoted: both are the provider's (masked under
			// --redact).
			return &stream.Error{Op: "reconcile", Message: "aipd's answer is about another " + strings.TrimSuffix(p.op, "_get") +
				" than the one asked for: no evidence of the stored state"}
		}
	}
	return nil
}

// line is the one-line form of a read's outcome (plain, the TUI).
func (r reconcileResult) line(redact bool) string {
	status := r.StoredStatus
	if status == "" {
		status = "no answer"
	}
	by := ""
	if r.ActionID != "" {
		by = " by " + r.ActionID
	}
	return fmt.Sprintf("stored: %s (%s of %s%s; the verdict is unchanged): %s", status, r.Op, r.shown(redact), by, r.Meaning)
}

// shown masks the provider ID under --redact.
func (r reconcileResult) shown(redact bool) string {
	if redact {
		return safe.Masked
	}
	return safe.Line(r.Target)
}

func printReconcile(o *options, jsonl bool, stdout io.Writer, a *model.Action, r reconcileResult) {
	if jsonl {
		v := a.Record()
		if o.redact {
			v = output.RedactRecord(v)
		}
		line := struct {
			Type         string              `json:"type"`
			Verdict      model.VerdictRecord `json:"verdict"`
			Operation    string              `json:"operation"`
			ActionID     string              `json:"reconcile_action_id"`
			Target       string              `json:"target"`
			StoredStatus string              `json:"stored_status,omitempty"`
			Meaning      string              `json:"meaning"`
			Refused      bool                `json:"refused,omitempty"`
		}{"reconcile", v, r.Op, r.ActionID, r.shown(o.redact), r.StoredStatus, r.Meaning, r.Refused}
		_ = output.WriteObject(stdout, line)
		return
	}
	fmt.Fprint(stdout, output.VerdictLine(a))
	status := r.StoredStatus
	if status == "" {
		status = "no answer"
	}
	fmt.Fprintf(stdout, "stored: %s (%s of %s by %s; the verdict above is unchanged)\n", status, r.Op, r.shown(o.redact), r.ActionID)
	fmt.Fprintf(stdout, "stored: %s\n", r.Meaning)
}

func reconcileMarkdown(o *options, r reconcileResult) string {
	status := r.StoredStatus
	if status == "" {
		status = "no answer"
	}
	target := safe.MDCode(r.Target)
	if o.redact {
		target = safe.MDInline(safe.Masked)
	}
	// Untrusted parts (the meaning can quote aipd's message) go through
	// the export's Markdown route (design §5).
	return safe.MDSprintf("\n## Reconciled\n\n- stored status: **%s** (%s of %s, read by %s; the verdict is unchanged)\n- %s\n",
		status, r.Op, target, safe.MDCode(r.ActionID), r.Meaning).String()
}

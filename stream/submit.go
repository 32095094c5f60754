package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"aipwatch/model"
)

// This file is the submission side of `aipwatch submit` (design §6) and
// of `aipwatch reconcile` (§8): one POST of an AIP envelope to
// /aip/v1/actions, its reply decoded (docs/protocol.md
// §1.2), and Submission, a Runner that posts and follows the same
// action ID at once, merging the POST's reply into the follow (§6.4, §6.5)
// and resolving an uncertain submission without ever creating a new ID
// (§6.6, protocol §1.6).

// SubmitMsg is a line about the submission itself (the ack, a reply, an
// uncertain POST and how it was resolved). It changes no verdict.
type SubmitMsg struct {
	At   time.Time // zero = when it is applied
	Note string    // one line, built by aipwatch (IDs and codes only)
}

func (SubmitMsg) streamMsg() {}

// Ack is an async submission's acknowledgement.
type Ack struct {
	ActionID string `json:"action_id"`
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
}

// PostReply is a 200 reply: a full envelope whose body holds an ack (async)
// or an action_result (sync, and the 200 rejections of protocol §1.2).
type PostReply struct {
	InResponseTo string
	Ack          *Ack
	Result       *model.ActionResult
	// Replay: the result is the original result of an earlier run of the
	// same idempotency key, returned again (output.idempotent_replay:
	// true, protocol §1.3): nothing ran for this POST.
	Replay bool
}

// PostOutcome is what one POST came to.
type PostOutcome struct {
	Reply PostReply
	// Err is an error envelope (Code and HTTPStatus set), a refused
	// request, or, with Uncertain, why there was no reply.
	Err *Error
	// Uncertain: no reply (timeout, reset, a proxy's page instead of an
	// AIP reply): the daemon may or may not have accepted the action.
	Uncertain bool
}

// Codes of protocol §1.2 and §1.3 that submit treats specially.
const (
	CodeIDConflict         = "action.id_conflict"
	CodeReplay             = "replay.message_id"
	CodeIdempotencyRunning = "idempotency.in_progress"
	CodeRemoteRejected     = "connector.hermes_agent.remote_rejected"
	// CodeStreamPublication: the handler ran again for an ID whose chunks
	// exist; the chunk store refused its output (protocol open
	// point 1).
	CodeStreamPublication = "connector.hermes_agent.stream_publication"
	// The idempotency refusals of other collision rules (open point 3):
	// 200 failed results with details {key, original_action_id,
	// current_action_id}; Hermes streams never answer them.
	CodeIdempotencyConflict = "idempotency.conflict"
	CodeInputHashMismatch   = "idempotency.input_hash_mismatch"
)

func (c *Client) submitURL() string {
	u := *c.reqURL
	u.Path = c.reqURL.Path + "/aip/v1/actions"
	u.RawPath = ""
	u.RawQuery = url.Values{}.Encode()
	return u.String()
}

// Post sends one envelope to POST /aip/v1/actions. wait is for a sync
// action: no client timeout and no reply-header timeout, because the reply
// comes only when the whole stream has ended. Post never retries.
func (c *Client) Post(ctx context.Context, envelope []byte, wait bool) PostOutcome {
	defer c.closeIdle()
	hc := c.http
	if wait {
		cl := *c.follow
		if tr, ok := cl.Transport.(*http.Transport); ok {
			tr = tr.Clone()
			tr.ResponseHeaderTimeout = 0
			cl.Transport = tr
			defer tr.CloseIdleConnections()
		}
		hc = &cl
	} else if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.SubmitTimeout)
		defer cancel()
	}
	req, err := c.newRequest(ctx, http.MethodPost, c.submitURL(), envelope)
	if err != nil {
		return PostOutcome{Err: c.clean(&Error{Op: "submit", Message: "cannot build the request"})}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", acceptGzip)
	resp, err := hc.Do(req)
	if err != nil {
		return PostOutcome{Err: c.transportError("submit", err), Uncertain: true}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		// Not followed (safeRedirect): a definite refusal, not an
		// uncertain POST to resolve and resend.
		return PostOutcome{Err: c.clean(&Error{Op: "submit", HTTPStatus: resp.StatusCode,
			Message: "the POST was answered with a redirect (to " + oneLine(resp.Header.Get("Location"), 200) +
				"): aipwatch never follows a redirect of a submission, nothing was sent there; point --url at aipd itself"})}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := c.httpError("submit", resp)
		// An AIP error envelope is a definite answer; anything else (a
		// proxy's 502 page) says nothing about whether aipd has the action.
		return PostOutcome{Err: e, Uncertain: e.Code == "" && resp.StatusCode >= 500}
	}
	// The reply goes through ReplyBody like every other JSON reply: a sync
	// result carries every provider frame and is bounded on the wire and
	// inflated (replycap.go).
	reply, err := ReplyBody(resp, maxReply)
	if err != nil {
		return PostOutcome{Err: c.clean(&Error{Op: "submit", HTTPStatus: resp.StatusCode, Message: err.Error()}), Uncertain: true}
	}
	size := resp.ContentLength
	if resp.Header.Get("Content-Encoding") != "" {
		size = -1
	}
	data, err := readReply(reply, size)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		// Accepted, but too large to read: the follow is the evidence.
		return PostOutcome{Err: &Error{Op: "submit", HTTPStatus: resp.StatusCode, Message: tl.Error()}, Uncertain: true}
	}
	if err != nil {
		return PostOutcome{Err: c.transportError("submit", err), Uncertain: true}
	}
	rep, derr := decodeSubmitReply(data)
	if derr != nil {
		return PostOutcome{Err: c.clean(badReply("submit", "an AIP reply envelope with an ack or an action_result", derr)), Uncertain: true}
	}
	if e := replyMismatch(envelope, rep); e != nil {
		return PostOutcome{Err: c.clean(e)}
	}
	return PostOutcome{Reply: rep}
}

// replyMismatch checks that a reply is about the request sent: its
// in_response_to is the envelope's message_id (protocol §1.2),
// its ack or result names the envelope's action. A reply about another
// message or action is an error, never evidence about this one (design
// §3). An idempotent replay may name the key's original action (§1.3):
// its caller decides about that one. A field the reply leaves out is not
// a mismatch.
func replyMismatch(envelope []byte, rep PostReply) *Error {
	var sent struct {
		MessageID string `json:"message_id"`
		Body      struct {
			Action struct {
				ID string `json:"id"`
			} `json:"action"`
		} `json:"body"`
	}
	if json.Unmarshal(envelope, &sent) != nil {
		return nil
	}
	mismatch := func(what, got, want string) *Error {
		return &Error{Op: "submit", Message: "aipd's reply is about another " + what + " (" + oneLine(got, 120) + ", not " +
			oneLine(want, 120) + "): it is ignored and says nothing about this submission"}
	}
	id := sent.Body.Action.ID
	switch {
	case rep.InResponseTo != "" && sent.MessageID != "" && rep.InResponseTo != sent.MessageID:
		return mismatch("message", rep.InResponseTo, sent.MessageID)
	case id == "":
	case rep.Ack != nil && rep.Ack.ActionID != "" && rep.Ack.ActionID != id:
		return mismatch("action", rep.Ack.ActionID, id)
	case rep.Result != nil && !rep.Replay && !rep.Result.Of(id) && !refusalOf(*rep.Result, id):
		return mismatch("action", rep.Result.ActionID, id)
	}
	return nil
}

// refusalOf: an idempotency refusal (open point 3) names the key's
// original action and this one as details.current_action_id; it is about
// this submission whichever action_id it carries.
func refusalOf(r model.ActionResult, id string) bool {
	return r.Error != nil && detailString(r.Error.Details, "current_action_id") == id
}

func decodeSubmitReply(data []byte) (PostReply, error) {
	var env struct {
		InResponseTo json.RawMessage `json:"in_response_to"`
		Body         struct {
			Ack          *Ack            `json:"ack"`
			ActionResult json.RawMessage `json:"action_result"`
		} `json:"body"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return PostReply{}, err
	}
	var rep PostReply
	_ = json.Unmarshal(env.InResponseTo, &rep.InResponseTo) // a plain string (untagged MessageReference)
	switch {
	case env.Body.Ack != nil:
		rep.Ack = env.Body.Ack
	case len(env.Body.ActionResult) > 0 && string(env.Body.ActionResult) != "null":
		r, err := model.DecodeResult(env.Body.ActionResult)
		if err != nil {
			return PostReply{}, err
		}
		if r.Status == "" {
			return PostReply{}, errors.New("the action_result has no status")
		}
		rep.Result = &r
		rep.Replay = idempotentReplay(r.Output)
	default:
		return PostReply{}, errors.New("neither ack nor action_result in the body")
	}
	return rep, nil
}

// idempotentReplay reports whether a result's output is marked
// idempotent_replay: true (protocol §1.3). Any other value or shape is not
// a replay.
func idempotentReplay(output json.RawMessage) bool {
	var o struct {
		Replay json.RawMessage `json:"idempotent_replay"`
	}
	return json.Unmarshal(output, &o) == nil && string(o.Replay) == "true"
}

// Exists reports whether aipd knows the action: a status other than
// unknown, or an events page with anything in it (protocol §1.6 step 1: a
// synchronous action has no record while it runs, only chunks).
func (c *Client) Exists(ctx context.Context) (bool, error) {
	defer c.closeIdle()
	st, e := c.status(ctx)
	if e != nil {
		return false, ctxErr(ctx, e)
	}
	if st.State != model.StateUnknown {
		return true, nil
	}
	q := url.Values{"include_chunks": {"true"}, "limit": {"1"}}
	data, e := c.doJSON(ctx, "page", http.MethodGet, c.actionURL("/events", q), nil)
	if e != nil {
		return false, ctxErr(ctx, e)
	}
	var ae struct {
		Events []json.RawMessage `json:"events"`
		Chunks []json.RawMessage `json:"chunks"`
	}
	if err := decodeBody(data, "action_events", func(b []byte) error { return json.Unmarshal(b, &ae) }); err != nil {
		return false, badReply("page", "an events page", err)
	}
	return len(ae.Events)+len(ae.Chunks) > 0, nil
}

// Submission posts one action and follows the same ID at once (design
// §6.3–§6.6). It is a Runner: the TUI and the printers use it as they use
// a Client. Client must be configured for the submitted action ID (with
// Config.Submitting set, so an unknown status is not "no such action").
type Submission struct {
	Client *Client
	// Envelope builds the envelope of POST number try (1, then at most one
	// resend, 2) with a fresh message_id. It is called just before that
	// POST's first byte and must have journalled the try (synced) before it
	// returns; an error stops the submission before anything is sent.
	Envelope func(try int) ([]byte, error)
	Sync     bool // the POST is held open until the stream ends
	// IdempotencyKey is the key every try carries (for the lines that
	// say how to resubmit safely; the envelope holds it already).
	IdempotencyKey string
	// AppearTimeout is how long an uncertain submission may stay unknown
	// before the one resend (0 = 1 minute).
	AppearTimeout time.Duration
	ProbeInterval time.Duration // between existence checks (0 = 1 s)
	// OnReply, when set, sees each POST's outcome (for the journal).
	OnReply func(try int, out PostOutcome)

	busy     atomic.Int32 // POSTs awaiting a reply + uncertain ones being resolved
	posted   atomic.Bool  // a POST was sent
	answered atomic.Bool  // a POST's outcome came before the run was stopped (HeldOpen)
}

// HeldOpen reports whether a held-open POST (sync, streaming) was sent
// and no POST of the submission has been answered: quitting closes it, and
// the run goes on without a reply (protocol §13). It stays true once the
// submission was stopped that way.
func (s *Submission) HeldOpen() bool {
	return s != nil && s.Sync && s.posted.Load() && !s.answered.Load()
}

// InFlight reports whether the submission is not answered yet: a POST
// awaits its reply, or an uncertain one is being resolved. The follow's
// appear timeout waits for it (Config.InFlight).
func (s *Submission) InFlight() bool { return s.busy.Load() > 0 }

// Cancel cancels the submitted action (the same as Client.Cancel).
func (s *Submission) Cancel(ctx context.Context, reason string) CancelMsg {
	return s.Client.Cancel(ctx, reason)
}

type postDone struct {
	try int
	out PostOutcome
}

// Run posts and follows; see Client.Run for what it returns and sends.
// Quitting (ctx ending) sends nothing more and cancels nothing: a sync
// action keeps running in aipd when its POST is closed.
func (s *Submission) Run(ctx context.Context, sink Sink) error {
	ls := &lockedSink{inner: sink}
	id := s.Client.ActionID()
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	postCtx, stopPost := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopPost(); wg.Wait() }()

	// The first POST's envelope (and journal line) comes before anything
	// is sent, the follow included.
	env, err := s.Envelope(1)
	if err != nil {
		e := &Error{Op: "submit", Message: "not sent: " + oneLine(err.Error(), 200)}
		ls.Send(ErrorMsg{Err: e})
		ls.release()
		return e
	}
	followDone := make(chan error, 1)
	go func() { followDone <- s.Client.Run(followCtx, ls) }()
	posts := make(chan postDone, 2)
	post := func(try int, env []byte) {
		s.posted.Store(true)
		s.busy.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			posts <- postDone{try, s.Client.Post(postCtx, env, s.Sync)}
		}()
	}
	post(1, env)

	// end stops the follow and finishes the run with msgs (a verdict the
	// POST decided).
	end := func(ret error, msgs ...Msg) error {
		stopFollow()
		if ferr := <-followDone; ctx.Err() != nil {
			return ferr
		}
		for _, m := range msgs {
			ls.Send(m)
		}
		ls.release()
		return ret
	}
	var resolved chan bool
	appear := s.AppearTimeout
	if appear <= 0 {
		appear = time.Minute
	}
	inFlight := 1
	var followErr error
	followOver := false
	var grace <-chan time.Time
	// fail ends the run on a refusal of the submission: after the follow
	// ended, the error goes out on its own; before, the follow is ended
	// with it.
	fail := func(e *Error) error {
		if followOver {
			ls.Send(ErrorMsg{Err: e})
			ls.release()
			return e
		}
		return end(e, ErrorMsg{Err: e})
	}
	for {
		if followOver && (inFlight == 0 || ctx.Err() != nil) {
			ls.release()
			return followErr
		}
		select {
		case followErr = <-followDone:
			// The follow ended (settled, fatal, or ctx): the POST's reply
			// still counts (an error envelope wins over a settled record
			// that belongs to another request). Give it a little time.
			if ctx.Err() != nil {
				return followErr
			}
			if resolved != nil && followErr == nil {
				ls.Send(SubmitMsg{Note: "aipd knows " + id + ": its run has been read to the end; nothing was resent"})
			}
			followOver, resolved = true, nil
			t := time.NewTimer(postGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			stopPost()
			ls.Send(SubmitMsg{Note: "the follow ended before the submission's reply; stopped waiting for it (nothing was cancelled)"})
			ls.release()
			return followErr
		case ok := <-resolved:
			resolved = nil
			if ok {
				s.busy.Add(-1)
				ls.Send(SubmitMsg{Note: "aipd knows " + id + ": following it; nothing was resent"})
				continue
			}
			ls.Send(SubmitMsg{Note: fmt.Sprintf("%s is still unknown after %s: resending once with the same action ID and idempotency key and a new message_id", id, appear)})
			env, err := s.Envelope(2)
			if err != nil {
				s.busy.Add(-1)
				ls.Send(SubmitMsg{Note: "not resent: " + oneLine(err.Error(), 200)})
				continue
			}
			inFlight++
			post(2, env)
			s.busy.Add(-1) // after the resend counts: never a moment with nothing in flight
		case pd := <-posts:
			inFlight--
			out := pd.out
			if postCtx.Err() == nil {
				s.answered.Store(true) // a reply, a refusal, or none: not closed by quitting
			}
			resolving := out.Uncertain && pd.try == 1 && !followOver && postCtx.Err() == nil
			if !resolving {
				s.busy.Add(-1) // else the count passes to the resolver below
			}
			if s.OnReply != nil {
				s.OnReply(pd.try, pd.out)
			}
			switch {
			case postCtx.Err() != nil:
				// ctx ended: the follow reports it.
			case out.Uncertain:
				if pd.try > 1 {
					ls.Send(SubmitMsg{Note: "the resend got no reply either (" + cause(out.Err) + "): not resending again; still following " + id})
					continue
				}
				ls.Send(SubmitMsg{Note: "no reply to the submission (" + cause(out.Err) + "): not creating a new action; checking " + id + " first"})
				if followOver {
					if followErr == nil {
						ls.Send(SubmitMsg{Note: "aipd knows " + id + ": its run has already been read; nothing was resent"})
					}
					continue
				}
				resolved = make(chan bool, 1)
				wg.Add(1)
				go func(ch chan<- bool) {
					defer wg.Done()
					ch <- s.resolve(postCtx, ls, appear)
				}(resolved)
			case out.Err != nil:
				e := *out.Err
				switch e.Code {
				case CodeIDConflict:
					// Details name both capabilities (open point 6).
					bound := ""
					if c := e.DetailString("existing_capability_id"); c != "" && c != e.DetailString("attempted_capability_id") {
						bound = " (to " + c + ")"
					}
					e.Message += " — " + id + " is bound to another request" + bound + "; nothing is resubmitted"
				case CodeStreamPublication:
					e.Message += " — aipd ran the handler again, but " + id + " had already published a stream (an earlier run), so this run's output was refused and nothing new is stored; submit under a new action ID"
				case CodeReplay:
					e.Message += " — this message_id was already used or sent_at is outside aipd's replay window (check the clock); nothing is resubmitted"
				}
				if adv := e.Advice(); adv != "" { // the fleet's refusals (errors_fleet.go)
					e.Message += " — " + adv
				}
				return fail(&e)
			case out.Reply.Ack != nil:
				ls.Send(SubmitMsg{Note: "aipd accepted " + id + " (ack: " + oneLine(out.Reply.Ack.Status, 40) + "); following it"})
			case out.Reply.Result != nil:
				r := *out.Reply.Result
				code := ""
				if r.Error != nil {
					code = r.Error.Code
				}
				switch {
				case code == CodeIdempotencyRunning:
					ls.Send(SubmitMsg{Note: "aipd says the original submission of " + id + " is still running (" + code + "); following it"})
				case out.Reply.Replay && !r.Of(id):
					// The key's original run was another action (§1.3: the
					// original action_id comes back): this ID was never
					// created, and a result of another action is no
					// evidence for it (design §3).
					e := &Error{Op: "submit", Message: "aipd returned the stored result of another action, " + oneLine(r.ActionID, 120) +
						", under this idempotency key (idempotent replay): " + id + " was not created and nothing ran; follow " +
						oneLine(r.ActionID, 120) + " instead, or submit with a new idempotency key"}
					return fail(e)
				case out.Reply.Replay:
					// The stored result of an earlier run under the same
					// idempotency key: the follow shows that run and its
					// verdict, and this submission ran nothing.
					ls.Send(SubmitMsg{Note: "aipd replied with the stored result of an earlier run of " + id + " (" + oneLine(r.Status, 40) +
						", idempotent replay): this submission ran nothing; the verdict is that run's"})
				case refusedBeforeRun(r) && !ls.sawChunk() && !followOver:
					ls.Send(SubmitMsg{Note: "aipd refused " + id + " before it ran (" + oneLine(code, 80) + ")" + keyOwner(r)})
					return end(nil, ResultMsg{Result: r})
				case refusedBeforeRun(r):
					// A refusal of this POST, not the verdict of the run the
					// follow shows (an earlier run of the same ID).
					ls.Send(SubmitMsg{Note: "aipd refused this submission of " + id + " (" + oneLine(code, 80) + ")" + keyOwner(r) +
						": it ran nothing; the follow shows the earlier run"})
				default:
					ls.Send(SubmitMsg{Note: "aipd replied with the result of " + id + " (" + oneLine(r.Status, 40) + ")"})
				}
			}
		}
	}
}

// postGrace is how long a POST's reply is awaited once the follow ended.
const postGrace = 10 * time.Second

// resolve checks the original ID until aipd knows it (true) or appear has
// passed (false). A chunk seen by the follow counts as known.
func (s *Submission) resolve(ctx context.Context, ls *lockedSink, appear time.Duration) bool {
	every := s.ProbeInterval
	if every <= 0 {
		every = time.Second
	}
	deadline := time.Now().Add(appear)
	for {
		if ls.sawChunk() {
			return true
		}
		if ok, _ := s.Client.Exists(ctx); ok {
			return true
		}
		if ctx.Err() != nil {
			return true // quitting: nothing is resent
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		if !sleep(ctx, min(every, left)) {
			return true
		}
	}
}

// lockedSink serialises the follow's and the submission's messages and
// notes whether a chunk was seen.
type lockedSink struct {
	mu     sync.Mutex
	inner  Sink
	chunks bool
	done   bool // the follow's DoneMsg, held back until the POST is settled
	sent   bool // DoneMsg sent
}

func (l *lockedSink) Send(m Msg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch m := m.(type) {
	case BatchMsg:
		if len(m.Chunks) > 0 {
			l.chunks = true
		}
	case DoneMsg:
		l.done = true
		return
	}
	l.inner.Send(m)
}

// release sends the one DoneMsg of the run.
func (l *lockedSink) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.sent {
		l.sent = true
		l.inner.Send(DoneMsg{})
	}
}

func (l *lockedSink) sawChunk() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.chunks
}

// keyOwner names the action an idempotency refusal says owns the key
// (open point 3: details.original_action_id), or "".
func keyOwner(r model.ActionResult) string {
	if r.Error == nil || (r.Error.Code != CodeIdempotencyConflict && r.Error.Code != CodeInputHashMismatch) {
		return ""
	}
	orig := detailString(r.Error.Details, "original_action_id")
	if orig == "" {
		return ""
	}
	if r.Error.Code == CodeInputHashMismatch {
		return ": the idempotency key was used by " + orig + " with another input"
	}
	return ": the idempotency key is already used by " + orig
}

// refusedBeforeRun: a result the daemon returns before anything is
// persisted (protocol §1.2: the 200 rejections, pending approval). It
// carries no connector output, unlike a run that failed: the follow of
// that one ends on its own, and the follow's view may lag behind the POST.
func refusedBeforeRun(r model.ActionResult) bool {
	out := strings.TrimSpace(string(r.Output))
	noOutput := out == "" || out == "null" || out == "{}"
	if r.Status == model.ResultPendingApproval { // policy.human_approval_required: it waits for a human, not a stream
		return true
	}
	return noOutput && r.Aggregate == nil && r.Status == model.StateFailed
}

package reconcile

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"time"

	"aipwatch/journal"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/submit"
)

// Daemon is where a read goes and how the journal names it.
type Daemon struct {
	Client      *stream.Client
	BaseURL     string        // shown: no credentials
	TokenSource string        // where the token comes from, never the token
	Timeout     time.Duration // the read's bound (0: DefaultReadTimeout)
}

// DefaultReadTimeout bounds the read's POST: it is sync (Post sets no
// timeout of its own), and an unanswered one waited for ever. aipd runs
// response_get for at most 60 s (protocol §3).
const DefaultReadTimeout = 2 * time.Minute

// Read submits the read once (journalled first, with its own ID) and
// interprets the reply. It never retries.
func Read(ctx context.Context, d Daemon, jpath string, p Plan) Result {
	res := Result{Op: p.Op, Capability: p.CapID, Target: p.Target}
	field := "response_id"
	if p.Op == submit.OpSessionGet {
		field = "session_id"
	}
	in, _ := json.Marshal(map[string]string{field: p.Target})
	now := time.Now()
	var err error
	refuse := func(err error) Result {
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
	key := submit.ReconcileKey(p.Of, p.Op)
	// Sync, no mode (response_get is sync only, protocol §3).
	env, err := submit.Envelope(submit.Request{ActionID: res.ActionID, CapabilityID: p.CapID, Input: in, IdempotencyKey: key}, mid, now)
	if err != nil {
		return refuse(err)
	}
	earlier := earlierReads(jpath, p)
	j, err := journal.Open(jpath)
	if err != nil {
		return refuse(err)
	}
	defer j.Close()
	entry := journal.Entry{Kind: journal.KindReconcile, ActionID: res.ActionID, Of: p.Of, CapabilityID: p.CapID,
		IdempotencyKey: key, BaseURL: d.BaseURL, TokenSource: d.TokenSource, MessageID: mid,
		SentAt: now.UTC().Format("2006-01-02T15:04:05.000Z")}
	if err := j.Append(entry); err != nil {
		return refuse(err)
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = DefaultReadTimeout
	}
	readCtx, cancel := context.WithTimeout(ctx, timeout)
	out := d.Client.Post(readCtx, env, true)
	cancel()
	if e := readMismatch(out, res.ActionID, p, earlier); e != nil {
		out = stream.PostOutcome{Err: e}
	}
	res.StoredStatus, res.Meaning, res.Refused = Interpret(p.Op, out)
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
func earlierReads(jpath string, p Plan) map[string]bool {
	ids := map[string]bool{}
	entries, _ := journal.Read(jpath)
	for _, e := range entries {
		if e.Kind == journal.KindReconcile && e.Of == p.Of && e.CapabilityID == p.CapID {
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
func readMismatch(out stream.PostOutcome, readID string, p Plan, earlier map[string]bool) *stream.Error {
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
		if got != "" && got != p.Target {
			// Neither ID is quoted: both are the provider's (masked under
			// --redact).
			return &stream.Error{Op: "reconcile", Message: "aipd's answer is about another " + strings.TrimSuffix(p.Op, "_get") +
				" than the one asked for: no evidence of the stored state"}
		}
	}
	return nil
}

// Package submit holds the rules of design §6 that need no I/O: the
// input checks of the streaming guide (§3, §4, §11), the stable identity of
// one submission (act_ + UUIDv7, idempotency key, message_id), the
// continuity fields the journal keeps, and the AIP envelope
// (docs/protocol.md §1.1). It imports nothing
// of ours and does no I/O: randomness and time come in as arguments.
package submit

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Modes of a submission (design §6.3, §14): streaming is the default of
// the Hermes chat_stream and responses_stream capabilities, async of any
// other.
const (
	ModeAsync     = "async"
	ModeSync      = "sync"
	ModeStreaming = "streaming"
)

// CheckMode is the rule for --mode: one of the three modes aipd takes.
func CheckMode(mode string) error {
	switch mode {
	case ModeAsync, ModeSync, ModeStreaming:
		return nil
	}
	return fmt.Errorf("--mode must be async, sync or streaming, not %q", mode)
}

// Held reports whether a submission's POST is held open until the run
// ends and answers with its result (protocol §1.2, §13): sync, and
// streaming, which takes the same path in aipd. Only async is answered
// with an ack at once.
func Held(mode string) bool { return mode == ModeSync || mode == ModeStreaming }

// ModeChoice is the mode of one submission and why it is that one, for
// the submit line and the journal.
type ModeChoice struct {
	Mode string
	Why  string
}

// ChooseMode decides a submission's mode (design §14): the one --mode
// gives (given is "" when the flag was not set), else streaming for the
// Hermes chat_stream and responses_stream capabilities (their
// expected_completion, and the only mode whose chunks reach the daemon's
// store on the fleet deployment, protocol §13), else async.
func ChooseMode(capabilityID, given string) ModeChoice {
	if given != "" {
		return ModeChoice{given, "--mode"}
	}
	if _, op, ok := Capability(capabilityID); ok && (op == OpChat || op == OpResponses) {
		return ModeChoice{ModeStreaming, op + "'s expected completion; its chunks are recorded on both deployments"}
	}
	return ModeChoice{ModeAsync, "the default: aipd keeps a record at once"}
}

// Operations of the Hermes connector that aipwatch checks or submits.
const (
	OpChat        = "chat_stream"
	OpResponses   = "responses_stream"
	OpResponseGet = "response_get"
	OpSessionGet  = "session_get"
)

// MinMaxEvents is the max_events below which the guide's §11 warning
// applies (a low value is a cutoff, not completion).
const MinMaxEvents = 256

// Severity of a Problem: an Error stops the submission, a Warning does not.
type Severity int

const (
	Error Severity = iota
	Warning
)

// Problem is one finding of Check, one clear line.
type Problem struct {
	Severity Severity
	Text     string
}

func (p Problem) String() string {
	if p.Severity == Warning {
		return "warning: " + p.Text
	}
	return "error: " + p.Text
}

// HasErrors reports whether any problem is an Error.
func HasErrors(ps []Problem) bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// Capability splits cap:hermes_agent:ENDPOINT:OPERATION; ok is false for
// any other capability (those are passed through unchecked).
func Capability(id string) (endpoint, op string, ok bool) {
	rest, found := strings.CutPrefix(id, "cap:hermes_agent:")
	if !found {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// CheckCapability is the shape rule for CAPABILITY_ID: cap:…, no spaces.
func CheckCapability(id string) error {
	if !strings.HasPrefix(id, "cap:") || len(id) == len("cap:") {
		return fmt.Errorf("CAPABILITY_ID must start with cap: (e.g. cap:hermes_agent:ENDPOINT:chat_stream), not %q", id)
	}
	if strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return errors.New("CAPABILITY_ID holds a space or a control character")
	}
	return nil
}

// Check checks an input against the streaming guide before anything is
// sent (design §6.1). The input must be JSON for every capability; the
// Hermes chat_stream and responses_stream inputs get the guide's rules,
// every other capability is passed through unchecked.
func Check(capabilityID string, input []byte) []Problem {
	var ps []Problem
	bad := func(format string, a ...any) { ps = append(ps, Problem{Error, fmt.Sprintf(format, a...)}) }
	warn := func(format string, a ...any) { ps = append(ps, Problem{Warning, fmt.Sprintf(format, a...)}) }
	if !json.Valid(input) {
		bad("the input is not valid JSON")
		return ps
	}
	_, op, hermes := Capability(capabilityID)
	if !hermes || (op != OpChat && op != OpResponses) {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(input, &top) != nil || top == nil {
		bad("a %s input must be a JSON object", op)
		return ps
	}
	checkMaxEvents(top["max_events"], bad, warn)
	switch op {
	case OpChat:
		// The daemon's schema (protocol open point 4): exactly
		// one of prompt, query (non-empty strings) and messages (a
		// non-empty array); anything else it accepts is forwarded.
		var given []string
		for _, k := range []string{"messages", "prompt", "query"} {
			if _, ok := top[k]; ok {
				given = append(given, k)
			}
		}
		switch {
		case len(given) == 0:
			bad("chat_stream input needs a messages array, or a prompt or query string (guide §3)")
		case len(given) > 1:
			bad("chat_stream input has %s: aipd takes exactly one of messages, prompt and query", strings.Join(given, " and "))
		}
		for _, k := range []string{"prompt", "query"} {
			if raw, ok := top[k]; ok {
				if str, isStr := stringField(top, k); !isStr || str == "" || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
					bad("chat_stream input: %s must be a non-empty string", k)
				}
			}
		}
		if raw, ok := top["messages"]; ok {
			var msgs []json.RawMessage
			switch {
			case json.Unmarshal(raw, &msgs) != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
				bad("chat_stream input: messages must be an array of message objects (guide §3)")
			case len(msgs) == 0:
				bad("chat_stream input: messages is empty; it needs at least one message (guide §3)")
			}
			for i, m := range msgs {
				if t := bytes.TrimSpace(m); len(t) == 0 || t[0] != '{' {
					bad("chat_stream input: messages[%d] is not an object (guide §3)", i)
				}
			}
		}
		if _, ok := top["body"]; ok {
			warn("chat_stream input has a body: that is the responses_stream shape (guide §3 vs §4); aipd passes it to Hermes as it is")
		}
		if s, ok := stringField(top, "session_id"); !ok || s == "" {
			warn("no session_id: Hermes then derives one and returns it only in an HTTP header the connector does not keep; give an explicit session_id to be able to inspect the session later (guide §3)")
		}
	case OpResponses:
		// The provider request goes under body (guide §4), or is the input
		// itself: aipd takes either (protocol open point 4,
		// body optional); a body must be an object.
		raw, hasBody := top["body"]
		var body map[string]json.RawMessage
		if hasBody && (json.Unmarshal(raw, &body) != nil || body == nil) {
			bad("responses_stream input: body must be a JSON object (guide §4)")
		}
		request := top // what goes to the provider
		if hasBody {
			request = body
		}
		for _, k := range []string{"max_events", "session_key", "idempotency_key"} {
			if _, in := body[k]; in {
				bad("responses_stream input: %s is a connector control and belongs outside body (guide §4)", k)
			}
		}
		if _, in := top["messages"]; in {
			warn("responses_stream input has messages at the top: that is the chat_stream shape; a Responses request takes input (guide §4)")
		}
		_, convTop := top["conversation"]
		_, convBody := body["conversation"]
		_, prevTop := top["previous_response_id"]
		_, prevBody := body["previous_response_id"]
		if (convTop || convBody) && (prevTop || prevBody) {
			bad("responses_stream input combines conversation with previous_response_id; use one of them (guide §4)")
		}
		if !hasBody || body != nil {
			var store bool
			if raw, ok := request["store"]; !ok || json.Unmarshal(raw, &store) != nil || !store {
				warn("store is not true in the provider request: nothing will be stored to reconcile later with response_get (guide §4, §14)")
			}
		}
	}
	return ps
}

func checkMaxEvents(raw json.RawMessage, bad, warn func(string, ...any)) {
	if raw == nil {
		return
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] == '"' || d.Decode(&n) != nil {
		bad("max_events must be a positive integer")
		return
	}
	v, err := n.Int64()
	switch {
	case err != nil || v <= 0:
		bad("max_events must be a positive integer, not %s", n)
	case v < MinMaxEvents:
		warn("max_events %d is below %d: a low value is a safety cutoff, and a turn that reaches it ends truncated, not completed (guide §11)", v, MinMaxEvents)
	}
}

func stringField(m map[string]json.RawMessage, k string) (string, bool) {
	raw, ok := m[k]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Continuity is the continuity state of a submission (guide §2): what
// chains this turn to others. The journal keeps it; it never holds a
// prompt. Conversation is its ID only (a string, or an object's "id").
type Continuity struct {
	SessionID          string `json:"session_id,omitempty"`
	SessionKey         string `json:"session_key,omitempty"`
	PreviousResponseID string `json:"previous_response_id,omitempty"`
	Conversation       string `json:"conversation,omitempty"`
}

// ContinuityOf reads the continuity fields of an input, at the top level
// or under body (Responses). Anything that is not a string ID is left out.
func ContinuityOf(input []byte) Continuity {
	var top map[string]json.RawMessage
	if json.Unmarshal(input, &top) != nil {
		return Continuity{}
	}
	var body map[string]json.RawMessage
	if raw, ok := top["body"]; ok {
		_ = json.Unmarshal(raw, &body)
	}
	get := func(k string) string {
		for _, m := range []map[string]json.RawMessage{top, body} {
			if s, ok := stringField(m, k); ok {
				return s
			}
			if raw, ok := m[k]; ok && k == "conversation" {
				var o struct {
					ID string `json:"id"`
				}
				if json.Unmarshal(raw, &o) == nil && o.ID != "" {
					return o.ID
				}
			}
		}
		return ""
	}
	return Continuity{SessionID: get("session_id"), SessionKey: get("session_key"),
		PreviousResponseID: get("previous_response_id"), Conversation: get("conversation")}
}

// UUIDv7 is a version-7 UUID (RFC 9562) in lower-case hex without dashes:
// 48 bits of Unix milliseconds, then random bits.
func UUIDv7(now time.Time, rnd io.Reader) (string, error) {
	var u [16]byte
	if _, err := io.ReadFull(rnd, u[6:]); err != nil {
		return "", fmt.Errorf("no randomness for an ID: %w", err)
	}
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // variant 10
	return hex.EncodeToString(u[:]), nil
}

// NewActionID is act_ + a UUIDv7, the daemon's own form (protocol §1.1).
func NewActionID(now time.Time, rnd io.Reader) (string, error) { return prefixed("act_", now, rnd) }

// NewMessageID is msg_ + a UUIDv7: fresh for every POST (protocol §1.1, the
// replay window claims each message_id once).
func NewMessageID(now time.Time, rnd io.Reader) (string, error) { return prefixed("msg_", now, rnd) }

// NewIdempotencyKey is a key for this one request (guide §2).
func NewIdempotencyKey(now time.Time, rnd io.Reader) (string, error) {
	return prefixed("aipwatch-", now, rnd)
}

func prefixed(p string, now time.Time, rnd io.Reader) (string, error) {
	u, err := UUIDv7(now, rnd)
	if err != nil {
		return "", err
	}
	return p + u, nil
}

// ReconcileKey is the idempotency key of the read-only reconcile action of
// an original action: derived from it (protocol §3), so reading twice
// returns the first read instead of creating a second one.
func ReconcileKey(originalID, op string) string { return "aipwatch-reconcile:" + op + ":" + originalID }

// CheckActionID is the rule for a caller-chosen --action-id.
func CheckActionID(id string) error {
	if !strings.HasPrefix(id, "act_") || len(id) == len("act_") {
		return fmt.Errorf("--action-id must start with act_: %q", id)
	}
	if strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '/' }) {
		return errors.New("--action-id holds a space, a slash or a control character")
	}
	return nil
}

// Request is one action to submit.
type Request struct {
	ActionID       string
	CapabilityID   string
	Input          json.RawMessage
	Mode           string // ModeAsync, ModeSync, ModeStreaming, or "" (none: the daemon's sync)
	IdempotencyKey string
}

// From is the sender aipwatch names; on the bearer path the daemon
// overwrites it with the authenticated principal (protocol §1.1).
const From = "agent:aipwatch"

// Envelope is the AIP envelope of one POST of r (protocol §1.1): a fresh
// messageID, sentAt now (inside the daemon's replay window of 300 s past /
// 30 s future), and the action with its idempotency key.
func Envelope(r Request, messageID string, sentAt time.Time) ([]byte, error) {
	type action struct {
		ID             string          `json:"id"`
		CapabilityID   string          `json:"capability_id"`
		Input          json.RawMessage `json:"input"`
		Mode           string          `json:"mode,omitempty"`
		IdempotencyKey string          `json:"idempotency_key,omitempty"`
	}
	type from struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	}
	env := struct {
		AIPVersion  string `json:"aip_version"`
		MessageType string `json:"message_type"`
		MessageID   string `json:"message_id"`
		SentAt      string `json:"sent_at"`
		From        from   `json:"from"`
		Body        struct {
			Action action `json:"action"`
		} `json:"body"`
	}{AIPVersion: "1.0", MessageType: "aip.core.v1.action", MessageID: messageID,
		SentAt: sentAt.UTC().Format("2006-01-02T15:04:05.000Z"), From: from{From, "agent"}}
	in := r.Input
	if len(bytes.TrimSpace(in)) == 0 {
		in = json.RawMessage(`{}`)
	}
	env.Body.Action = action{ID: r.ActionID, CapabilityID: r.CapabilityID, Input: in, Mode: r.Mode, IdempotencyKey: r.IdempotencyKey}
	return json.Marshal(env)
}

package sim

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file is the submission route of the daemon,
// docs/protocol.md §1 (cited below as §1.x),
// and the read-only capabilities behind reconciliation (protocol §3):
// POST /aip/v1/actions and /aip/v1/messages (one handler, handle_envelope),
// the envelope checks, the replay window, the caller-chosen ID and its
// conflicts, idempotency keys, sync replies held open until the end, async
// acks, the rejections that are 200 failed results, and response_get /
// session_get answered from the scenario's stored state.

// SubmitKnobs tune the submission route. The zero value accepts
// submissions of the hosted action while its script runs from Start, as
// before.
type SubmitKnobs struct {
	// Await holds the scripted action back until a submission of it
	// arrives: until then its ID reads unknown (§1.5: following an ID the
	// daemon has not seen does not fail, it waits).
	Await bool
	// ActionID is the hosted action's ID ("" = act_sim_<scenario>_01). A
	// submission must carry it to start the script: the simulator hosts
	// one action, and any other ID gets 503 runtime.handler_failed.
	ActionID string
	// DropFirst accepts the first submission of the hosted action (the
	// script starts, the message_id is claimed), then closes the
	// connection without a reply: an uncertain submission (§1.6).
	DropFirst bool
	// LoseFirst loses the first well-formed POST before the daemon sees
	// it (its message_id is not claimed, nothing starts) and closes the
	// connection: the other kind of uncertain submission (§1.6), where
	// the original ID stays unknown and one resend is right.
	LoseFirst bool
	// StoredStatus is what response_get and session_get read (§3):
	// "" = from the script's outcome (completed, failed, incomplete after
	// a cancel, in_progress while it runs); or completed, failed,
	// incomplete; or missing (the provider's 404), denied (its 401: the
	// daemon's key for Hermes refused), unavailable (its 502).
	StoredStatus string
	// Clock is the daemon's clock for the replay window (nil = time.Now).
	Clock func() time.Time
	// BeforeAccept, when set, is called with the action ID of every
	// well-formed submission before it is accepted; what it returns is kept
	// in the submission log (tests use it to check the client's journal).
	BeforeAccept func(actionID string) error
}

// SubmissionLog is one POST the submission route received.
type SubmissionLog struct {
	Time           time.Time
	ActionID       string
	CapabilityID   string
	Mode           string
	IdempotencyKey string
	MessageID      string
	// Reply is what the simulator answered: "ack", "result:STATUS",
	// "result:failed:CODE", "error:CODE", "dropped".
	Reply string
	// Rerun: the ID had settled and the submission carried no idempotency
	// key, so the handler ran again (§1.3).
	Rerun bool
	// Replay: the original result came back with
	// output.idempotent_replay: true (§1.3).
	Replay bool
	// CheckErr is what SubmitKnobs.BeforeAccept returned.
	CheckErr error
}

// submitState is the daemon's submission-side state.
type submitState struct {
	mu       sync.Mutex
	admitMu  sync.Mutex          // one submission at a time decides between replay, refusal and a re-run
	messages map[string]bool     // claimed message_ids (§1.1 replay window)
	records  map[string]boundRec // action ID → the action contract it is bound to, once it has a record (§1.3)
	keys     map[string]keyRec   // scoped idempotency key → its owner (§1.3)
	begun    bool                // the hosted action was submitted (Await)
	mode     string              // its mode as submitted
	input    map[string]json.RawMessage
	dropped  bool
	lost     bool
	log      []SubmissionLog
	reads    []readRec      // completed reads (reads.go)
	readKeys map[string]int // a read's scoped idempotency key → its index in reads
}

// boundRec is what a queue record binds an action ID to (§1.3,
// validate_queued_action_identity): the whole action and the principal.
type boundRec struct {
	contract   []byte
	capability string
	principal  string
}

// nativePrincipal is the principal every request on the bearer path acts
// as: the daemon's --native-principal, default
// service:getaip:server:http-edge (§1.6); the envelope's from is
// overwritten by it (§1.1), so every submission here binds this one.
const nativePrincipal = "service:getaip:server:http-edge"

type keyRec struct {
	actionID string    // its owner, for idempotency.in_progress
	expires  time.Time // when its reservation ends: the timeout and 60 s (§1.3)
}

// keyReservation is how long a key's reservation lasts: a Hermes stream's
// timeout (300 s) and 60 s (protocol §1.3, acquire_idempotency).
const keyReservation = 300*time.Second + 60*time.Second

// Submissions is a copy of the submission log.
func (s *Server) Submissions() []SubmissionLog {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	return append([]SubmissionLog(nil), s.sub.log...)
}

// submitted reports whether the hosted action exists for the routes that
// read it: always without Await, else once its submission arrived.
func (s *Server) submitted() bool {
	if !s.k.Submit.Await {
		return true
	}
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	return s.sub.begun
}

// SubmittedMode is the mode the hosted action was submitted with ("" when
// it was not submitted, "sync" when the envelope had none).
func (s *Server) SubmittedMode() string {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	return s.sub.mode
}

func (s *Server) now() time.Time {
	if s.k.Submit.Clock != nil {
		return s.k.Submit.Clock()
	}
	return time.Now()
}

func (s *Server) logSubmission(l SubmissionLog) {
	s.sub.mu.Lock()
	s.sub.log = append(s.sub.log, l)
	s.sub.mu.Unlock()
}

// envelopeIn is the part of the request envelope the handler reads.
type envelopeIn struct {
	AIPVersion  *string         `json:"aip_version"`
	MessageType *string         `json:"message_type"`
	MessageID   *string         `json:"message_id"`
	SentAt      *string         `json:"sent_at"`
	From        json.RawMessage `json:"from"`
	SessionID   json.RawMessage `json:"session_id"`
	Correlation json.RawMessage `json:"correlation_id"`
	Body        json.RawMessage `json:"body"`
}

type actionIn struct {
	ID             string          `json:"id"`
	CapabilityID   string          `json:"capability_id"`
	Input          json.RawMessage `json:"input"`
	Mode           *string         `json:"mode"`
	IdempotencyKey string          `json:"idempotency_key"`
}

func submitSource() obj { return o("component", "aip.server.http") }

// handleSubmit is handle_envelope (§1.1, §1.2).
func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request) {
	// axum's Json<Value>: a wrong Content-Type or malformed JSON gets its
	// plain-text 415 / 400 (§1.1 [I]).
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnsupportedMediaType)
		_, _ = io.WriteString(w, "Expected request with `Content-Type: application/json`")
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	if !json.Valid(raw) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "Failed to parse the request body as JSON")
		return
	}
	// The Envelope schema (§1.1): 400 schema.envelope.invalid.
	var env envelopeIn
	schemaErr := func(msg string) {
		s.writeError(w, &protoErr{Code: "schema.envelope.invalid", Message: msg, Category: "permanent", Source: submitSource()})
	}
	if json.Unmarshal(raw, &env) != nil {
		schemaErr("envelope must be a JSON object")
		return
	}
	switch {
	case env.AIPVersion == nil, env.MessageType == nil, env.MessageID == nil, env.SentAt == nil, len(env.Body) == 0:
		schemaErr("envelope is missing a required field (aip_version, message_type, message_id, sent_at, body)")
		return
	}
	// Deserialisation (§1.1): 400 envelope.decode.invalid; IDs are checked
	// only for their prefix (CORE-IDS).
	decodeErr := func(msg string) {
		s.writeError(w, &protoErr{Code: "envelope.decode.invalid", Message: msg, Category: "permanent", Source: submitSource()})
	}
	sentAt, terr := time.Parse(time.RFC3339Nano, *env.SentAt)
	var body struct {
		Action *actionIn `json:"action"`
	}
	switch {
	case !strings.HasPrefix(*env.MessageID, "msg_") || len(*env.MessageID) == 4:
		decodeErr("message_id must start with msg_")
		return
	case terr != nil:
		decodeErr("sent_at is not an RFC 3339 timestamp")
		return
	case json.Unmarshal(env.Body, &body) != nil || body.Action == nil:
		decodeErr("body must hold an action")
		return
	}
	a := body.Action
	mode := "sync"
	if a.Mode != nil {
		mode = *a.Mode
	}
	switch {
	case !strings.HasPrefix(a.ID, "act_") || len(a.ID) == 4:
		decodeErr("action id must start with act_")
		return
	case !strings.HasPrefix(a.CapabilityID, "cap:"):
		decodeErr("capability_id must start with cap:")
		return
	case mode != "sync" && mode != "async" && mode != "streaming":
		decodeErr("unknown execution mode " + strconv.Quote(mode))
		return
	}
	lg := SubmissionLog{Time: time.Now(), ActionID: a.ID, CapabilityID: a.CapabilityID, Mode: mode,
		IdempotencyKey: a.IdempotencyKey, MessageID: *env.MessageID}
	// The log entry is kept before the first byte of the reply, so a test
	// that has the reply sees it.
	var once sync.Once
	commit := func() { once.Do(func() { s.logSubmission(lg) }) }
	defer commit()
	w = &logWriter{ResponseWriter: w, commit: commit}
	fail := func(e *protoErr) {
		lg.Reply = "error:" + e.Code
		s.writeError(w, e)
	}

	s.sub.mu.Lock()
	lose := s.k.Submit.LoseFirst && !s.sub.lost
	s.sub.lost = true
	s.sub.mu.Unlock()
	if lose {
		lg.Reply = "lost"
		panic(http.ErrAbortHandler)
	}

	// The replay window, checked on the authenticated path too (§1.1):
	// sent_at within 300 s past / 30 s future, each message_id claimed
	// once; a violation is 401 replay.message_id.
	now := s.now()
	s.sub.mu.Lock()
	replayed := s.sub.messages[*env.MessageID]
	inWindow := !sentAt.Before(now.Add(-300*time.Second)) && !sentAt.After(now.Add(30*time.Second))
	if !replayed && inWindow {
		if s.sub.messages == nil {
			s.sub.messages = map[string]bool{}
		}
		s.sub.messages[*env.MessageID] = true
	}
	s.sub.mu.Unlock()
	if replayed || !inWindow {
		msg := "message_id was already used"
		if !inWindow {
			msg = "sent_at is outside the replay window"
		}
		fail(&protoErr{Code: "replay.message_id", Message: msg, Category: "auth", Source: o("component", "aip.gateway")})
		return
	}
	if s.k.Submit.BeforeAccept != nil {
		lg.CheckErr = s.k.Submit.BeforeAccept(a.ID)
	}

	// The caller-chosen ID (§1.3): a record bound to another contract
	// (the whole action) or principal is 400 action.id_conflict, with
	// details {action_id, existing_capability_id, attempted_capability_id,
	// existing_principal_id, attempted_principal_id}
	// (protocol open point 6).
	bound := boundRec{contract: actionContract(a, mode), capability: a.CapabilityID, principal: nativePrincipal}
	s.sub.mu.Lock()
	prev, recorded := s.sub.records[a.ID]
	s.sub.mu.Unlock()
	if recorded && (!bytes.Equal(prev.contract, bound.contract) || prev.principal != bound.principal) {
		fail(&protoErr{Code: "action.id_conflict", Message: "action id `" + a.ID + "` is already bound to a different immutable action contract",
			Category: "permanent", Details: o("action_id", a.ID, "existing_capability_id", prev.capability, "attempted_capability_id", bound.capability,
				"existing_principal_id", prev.principal, "attempted_principal_id", bound.principal),
			Source: o("component", "aip-runtime.action-queue")}) // action_id_conflict_error (docs/protocol.md §11 item 6)
		return
	}

	op, hosted := strings.CutPrefix(a.CapabilityID, "cap:hermes_agent:"+simEndpoint+":")
	if !hosted {
		op = ""
	}
	switch op {
	case "response_get", "session_get":
		s.handleRead(w, &env, a, op, mode, &lg)
		return
	case s.sc.operation:
	default:
		// An unknown capability (RT capability_for_id…): 400 resource.not_found.
		fail(&protoErr{Code: "resource.not_found", Message: a.CapabilityID, Category: "permanent", Source: runtimeSource()})
		return
	}

	// The runtime's input schema check (protocol open point 4):
	// a sync submission that fails it is the 200 failed
	// action.input_schema_invalid, before anything is persisted (§1.2); an
	// async one skips it, is acked, and fails in the worker (below).
	inputErr := checkStreamInput(op, a.Input)
	if inputErr != nil && mode != "async" {
		s.replyFailed(w, &env, a.ID, inputErr, &lg)
		return
	}
	// Replay, refusal or re-run: decided and started by one submission at
	// a time, so two re-sends at once cannot both start a run.
	s.sub.admitMu.Lock()
	handled := func() bool {
		if a.IdempotencyKey != "" && s.keyedReply(w, &env, a, &lg) {
			return true
		}
		if a.ID != s.actionID {
			fail(&protoErr{Code: "runtime.handler_failed", Message: "the simulator hosts one action (" + s.actionID + ")",
				Category: "temporary", Source: runtimeSource()})
			return true
		}
		// Without a key, or with one never seen (which binds nothing yet):
		// the keyless rules (§1.2, §1.3).
		if s.SubmittedMode() == "" {
			return false
		}
		if !s.isSettled() {
			// A second run of an in-flight action without a key would run
			// the model again (§1.3 [I]); the simulator cannot host two
			// runs at once.
			fail(&protoErr{Code: "runtime.handler_failed", Message: "the simulator cannot run " + a.ID + " twice at once",
				Category: "temporary", Source: runtimeSource()})
			return true
		}
		lg.Rerun = true
		s.mu.Lock()
		published := len(s.chunks) > 0
		s.mu.Unlock()
		if !published {
			// The same ID and contract, settled with no chunk, and no key
			// (§1.3, [C code, I consequence]): nothing short-circuits, the
			// handler runs again; async: the in-memory queue replaces the
			// settled record with a new queued one.
			s.rerun(mode)
			return false
		}
		// protocol open point 1: Hermes is called again, but
		// the re-run's chunks restart at sequence 0 and the chunk store
		// refuses them. Sync: 502 connector.hermes_agent.stream_publication,
		// the old record, result and chunks kept. Async: acked, the old
		// result read until the worker fails, then dead_lettered with the
		// old result overwritten (republish.go).
		if mode == "async" {
			s.sub.mu.Lock()
			if s.sub.records == nil {
				s.sub.records = map[string]boundRec{}
			}
			s.sub.records[a.ID] = bound
			s.sub.mode = mode
			s.sub.mu.Unlock()
			s.republishAsync()
			lg.Reply = "ack"
			s.writeReply(w, &env, o("ack", o("action_id", a.ID, "status", "queued",
				"reason", "accepted for asynchronous execution", "queue", o("scheduler", "aip-runtime"))))
			return true
		}
		fail(publicationErr())
		return true
	}()
	s.sub.admitMu.Unlock()
	if handled {
		return
	}

	// Accepted. An async action has a queue record at once; a sync one only
	// when it settles (§1.2, protocol §6.1).
	s.sub.mu.Lock()
	first := !s.sub.begun
	if first && s.k.Submit.Await {
		// The submission decides the execution mode (§1.2); written before
		// begun, which the routes check first. An async input the schema
		// refuses fails in the worker (open point 4).
		s.mu.Lock()
		s.mode, s.streaming = ModeSync, mode == ModeStreaming
		if mode == "async" {
			s.mode = ModeAsync
			s.workerRefusal = inputErr
		}
		s.mu.Unlock()
	}
	s.sub.begun = true
	if first {
		s.sub.mode = mode
		_ = json.Unmarshal(a.Input, &s.sub.input)
	}
	if mode == "async" {
		if s.sub.records == nil {
			s.sub.records = map[string]boundRec{}
		}
		s.sub.records[a.ID] = bound
	}
	drop := s.k.Submit.DropFirst && !s.sub.dropped
	s.sub.dropped = true
	s.sub.mu.Unlock()
	if first && s.k.Submit.Await {
		s.begin()
	}
	settled := s.settledCh() // this run's (a re-run has its own)
	if mode != "async" {
		go s.recordAtSettle(a.ID, bound, settled)
	}
	if drop {
		// The daemon keeps running the action in tokio::spawn after the
		// client's connection is gone (§1.6 [I]): the reply is lost.
		lg.Reply = "dropped"
		panic(http.ErrAbortHandler)
	}
	if mode == "async" {
		lg.Reply = "ack"
		s.writeReply(w, &env, o("ack", o("action_id", a.ID, "status", "queued",
			"reason", "accepted for asynchronous execution", "queue", o("scheduler", "aip-runtime"))))
		return
	}
	// Sync (and streaming, treated the same on both topologies: RT
	// submit_action branches only on async): the reply is the final
	// ActionResult once the whole stream has ended (§1.2).
	select {
	case <-settled:
	case <-r.Context().Done():
		lg.Reply = "closed by the client"
		return
	case <-s.ctx.Done():
		return
	}
	s.mu.Lock()
	failed := s.handlerFailed
	s.mu.Unlock()
	if failed {
		// A Hermes handler error in synchronous mode: the error goes back to
		// the submitter, nothing is persisted (§1.2 "HTTP errors", A3). On
		// the fleet, a refusal of the host or of the central admission is
		// such an error too (Knobs.FleetError, topology.go).
		fail(s.failErr())
		return
	}
	s.replyResult(w, &env, &lg, false)
}

// keyedReply answers a submission whose idempotency key was seen before
// (§1.3; Hermes streams: scope Capability, ReturnOriginalResult) and
// reports whether it did. A key never seen binds nothing yet: it is bound
// to the hosted action here, and the submission goes on as one without a
// key.
func (s *Server) keyedReply(w http.ResponseWriter, env *envelopeIn, a *actionIn, lg *SubmissionLog) bool {
	scoped := "Capability:" + a.CapabilityID + ":" + a.IdempotencyKey
	s.sub.mu.Lock()
	k, seen := s.sub.keys[scoped]
	bind := func() {
		if a.ID == s.actionID { // another ID gets the simulator's 503 and binds nothing
			if s.sub.keys == nil {
				s.sub.keys = map[string]keyRec{}
			}
			s.sub.keys[scoped] = keyRec{a.ID, time.Now().Add(keyReservation)}
		}
	}
	if !seen {
		bind()
	}
	s.sub.mu.Unlock()
	if !seen {
		return false
	}
	s.mu.Lock()
	released := s.handlerFailed // set with settled, in one locked step
	noResult := s.storedLocked() == nil
	s.mu.Unlock()
	switch {
	case released:
		// A sync handler error releases the key before the error goes
		// back, and nothing is persisted (§1.2 "HTTP errors": "release
		// idempotency, return Err" [C]): the key is free again.
		s.sub.mu.Lock()
		bind()
		s.sub.mu.Unlock()
		return false
	case !s.isSettled():
		// protocol §1.3 (acquire_idempotency): retry_after_ms is the time
		// left on the owner's reservation (up to 360,000 ms), and the
		// details name the scoped key and when the reservation ends.
		left := max(time.Until(k.expires).Milliseconds(), 1)
		s.replyFailed(w, env, a.ID, &protoErr{Code: "idempotency.in_progress", Message: "another execution owns this idempotency key",
			Category: "temporary", Retryable: true, RetryAfterMs: int(left),
			Details: o("key", scoped, "owner_action_id", k.actionID, "reservation_expires_at", k.expires.UTC().Format(time.RFC3339Nano)),
			Source:  runtimeSource()}, lg)
		return true
	case noResult:
		// The key's async run was cancelled and never got a result
		// (A1): what the key then gets is not in the spec.
		s.writeError(w, &protoErr{Code: "runtime.handler_failed", Message: "not modelled: an idempotency key whose async action was cancelled without a result",
			Category: "temporary", Source: runtimeSource()})
		lg.Reply = "error:runtime.handler_failed"
		return true
	}
	// ReturnOriginalResult (protocol open points 2 and 3): the
	// original result, with output.idempotent_replay: true and the
	// original action_id, whatever this submission's input or action ID;
	// nothing runs again. A Hermes stream never answers
	// idempotency.conflict (a used key under "reject") or
	// idempotency.input_hash_mismatch (other input under "revalidate").
	lg.Replay = true
	s.replyResult(w, env, lg, true)
	return true
}

// recordAtSettle gives a sync action its record when it settles (§1.2).
func (s *Server) recordAtSettle(id string, bound boundRec, settled <-chan struct{}) {
	select {
	case <-settled:
	case <-s.ctx.Done():
		return
	}
	s.mu.Lock()
	failed := s.handlerFailed
	s.mu.Unlock()
	if failed {
		return // never settled: no record (A3)
	}
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	if s.sub.records == nil {
		s.sub.records = map[string]boundRec{}
	}
	if _, ok := s.sub.records[id]; !ok {
		s.sub.records[id] = bound
	}
}

func (s *Server) isSettled() bool {
	select {
	case <-s.settledCh():
		return true
	default:
		return false
	}
}

// actionContract is what validate_queued_action_identity compares (§1.3):
// the whole action. Inputs are compared as parsed JSON.
func actionContract(a *actionIn, mode string) []byte {
	var in any
	_ = json.Unmarshal(a.Input, &in)
	b, _ := json.Marshal(struct {
		C, M, K string
		I       any
	}{a.CapabilityID, mode, a.IdempotencyKey, in})
	return b
}

// checkStreamInput is the capability's input schema for the two streams
// (protocol open point 4): a miss is
// action.input_schema_invalid. chat_stream takes exactly one of prompt,
// query (non-empty strings) and messages (a non-empty array);
// responses_stream takes its provider request at the top or under an
// optional body, which must then be an object. Both must be objects.
// schemaInvalid is the runtime's input schema refusal (protocol §11 item 4,
// validate_capability_value): permanent, the capability and the
// violations in its details, the schema checker as its source. The
// violations' own shape is not recorded: each is the simulator's sentence.
func schemaInvalid(capability, violation string) *protoErr {
	return &protoErr{Code: "action.input_schema_invalid", Message: "action input does not satisfy the capability input schema",
		Category: "permanent", Details: o("capability_id", capability, "violations", []any{violation}),
		Source: o("component", "aip-runtime.schema")}
}

func checkStreamInput(op string, input json.RawMessage) *protoErr {
	var top map[string]json.RawMessage
	bad := func(msg string) *protoErr { return schemaInvalid("cap:hermes_agent:"+simEndpoint+":"+op, msg) }
	if json.Unmarshal(input, &top) != nil || top == nil {
		return bad("input must be an object")
	}
	switch op {
	case "chat_stream":
		given := 0
		for _, k := range []string{"prompt", "query", "messages"} {
			raw, ok := top[k]
			if !ok {
				continue
			}
			given++
			var str string
			var msgs []json.RawMessage
			switch {
			case k == "messages" && (json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 || bytes.HasPrefix(bytes.TrimSpace(raw), []byte("null"))):
				return bad("messages must be a non-empty array")
			case k != "messages" && (json.Unmarshal(raw, &str) != nil || str == "" || bytes.HasPrefix(bytes.TrimSpace(raw), []byte("null"))):
				return bad(k + " must be a non-empty string")
			}
		}
		if given != 1 {
			return bad("exactly one of prompt, query and messages is required")
		}
	case "responses_stream":
		if raw, ok := top["body"]; ok {
			var body map[string]json.RawMessage
			if json.Unmarshal(raw, &body) != nil || body == nil {
				return bad("body must be an object")
			}
		}
	}
	return nil
}

// writeReply writes a 200 reply envelope (§1.2): in_response_to the
// request's message_id, to its from, session and correlation echoed.
// The bearer path overwrites from with the authenticated principal
// (§1.1); whether to is then that principal, and its shape, the spec does
// not say, so to echoes the from that was sent (no client reads it).
func (s *Server) writeReply(w http.ResponseWriter, req *envelopeIn, body obj) {
	id := "msg_" + fakeHex(s.actionID+"/reply/"+strconv.FormatInt(s.messageSerial.Add(1), 10), 32)
	env := o("aip_version", "1.0", "message_type", "aip.core.v1.action_result", "message_id", id,
		"sent_at", time.Now().UTC().Format(time.RFC3339Nano), "in_response_to", *req.MessageID)
	if len(req.From) > 0 {
		env = append(env, kv{"to", rawJSON(compactRaw(req.From))})
	}
	if len(req.SessionID) > 0 {
		env = append(env, kv{"session_id", rawJSON(compactRaw(req.SessionID))})
	}
	if len(req.Correlation) > 0 {
		env = append(env, kv{"correlation_id", rawJSON(compactRaw(req.Correlation))})
	}
	env = append(env, kv{"body", body})
	writeJSON(w, http.StatusOK, compact(env))
}

func compactRaw(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return []byte("null")
	}
	return b.Bytes()
}

// replyFailed is a 200 reply with a failed ActionResult (§1.2).
func (s *Server) replyFailed(w http.ResponseWriter, req *envelopeIn, id string, e *protoErr, lg *SubmissionLog) {
	lg.Reply = "result:failed:" + e.Code
	s.writeReply(w, req, o("action_result", o("action_id", id, "status", "failed", "error", rawJSON(e.json()))))
}

// replyResult is a 200 reply with the hosted action's stored result;
// replay marks it as an idempotent replay of the original (§1.3:
// output.idempotent_replay: true, the original action_id).
func (s *Server) replyResult(w http.ResponseWriter, req *envelopeIn, lg *SubmissionLog, replay bool) {
	s.mu.Lock()
	res := s.storedLocked()
	s.mu.Unlock()
	if res == nil {
		return
	}
	lg.Reply = "result:" + res.status
	if replay {
		res = res.replayed()
	}
	var b bytes.Buffer
	s.writeResult(&b, res)
	s.writeReply(w, req, o("action_result", rawJSON(b.Bytes())))
}

var storedRespIDRE = regexp.MustCompile(`"id":"(resp_[0-9a-f]+)"`)

// storedStatus is the provider's stored state of the hosted turn (guide
// §14): from the knob, else from how the script ended.
func (s *Server) storedStatus() string {
	if st := s.k.Submit.StoredStatus; st != "" {
		return st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.storedLocked()
	switch {
	case res == nil:
		return "in_progress"
	case res.status == "completed":
		return "completed"
	case res.status == "cancelled":
		return "incomplete"
	}
	return "failed"
}

// handleRead answers response_get and session_get (protocol §3): read-only,
// sync only: async is refused with the 200 failed
// execution.mode_unsupported (protocol open point 7: async is
// accepted only by run_start, run_events, operator, chat_stream and
// responses_stream; neither read supports streaming either, so the
// simulator refuses every mode but sync). Provider errors
// (hermes_failure_with_retry_safety, open point 8): a 404 is HTTP 400
// connector.hermes_agent.remote_rejected (§3's 502 is wrong); a 401/403 is
// connector.hermes_agent.authentication, category auth, so HTTP 401 (not
// aipwatch's token); a 429/5xx is connector.hermes_agent.remote_temporary,
// HTTP 503. A successful read is an action of its own, listed once it
// settles (open point 5, reads.go).
func (s *Server) handleRead(w http.ResponseWriter, req *envelopeIn, a *actionIn, op, mode string, lg *SubmissionLog) {
	if mode != "sync" {
		// The runtime's contract check (protocol §11 item 7, contract_violation):
		// a policy error naming the capability, the mode asked and
		// what the contract's execution supports (its other fields left out).
		s.replyFailed(w, req, a.ID, &protoErr{Code: "execution.mode_unsupported", Message: "capability does not support the requested action mode",
			Category: "policy", Details: o("capability_id", a.CapabilityID, "requested_mode", mode,
				"execution", o("supports_sync", true, "supports_async", false, "supports_streaming", false)),
			Source: runtimeSource()}, lg)
		return
	}
	field := "response_id"
	if op == "session_get" {
		field = "session_id"
	}
	var in map[string]json.RawMessage
	_ = json.Unmarshal(a.Input, &in)
	var want string
	if json.Unmarshal(in[field], &want) != nil || want == "" || len(want) > 512 {
		s.replyFailed(w, req, a.ID, schemaInvalid(a.CapabilityID, field+" must be a non-empty string of at most 512 bytes"), lg)
		return
	}
	scopedKey := ""
	if a.IdempotencyKey != "" {
		scopedKey = "Capability:" + a.CapabilityID + ":" + a.IdempotencyKey
	}
	if s.replayRead(w, req, scopedKey, lg) {
		return
	}
	status := s.storedStatus()
	var have string
	if op == "response_get" {
		// The provider's frames, whichever store keeps their chunks (on
		// the fleet the connector host's, topology.go): the provider
		// stored the response all the same. Every chunk is one of them
		// (connector.ingest), so they are read alone on both deployments.
		s.mu.Lock()
		for _, e := range s.conn.events {
			if m := storedRespIDRE.FindSubmatch(e); m != nil {
				have = string(m[1])
				break
			}
		}
		s.mu.Unlock()
	} else {
		s.sub.mu.Lock()
		_ = json.Unmarshal(s.sub.input["session_id"], &have)
		s.sub.mu.Unlock()
	}
	providerErr := func(code, category string, status int) {
		lg.Reply = "error:" + code
		// A provider 429 or 5xx is remote_temporary, retryable (protocol
		// §8.3: "429/5xx, retryable"); the others are not.
		s.writeError(w, &protoErr{Code: code, Message: "Hermes endpoint `" + simEndpoint + "` returned HTTP " + strconv.Itoa(status),
			Category: category, Retryable: code == "connector.hermes_agent.remote_temporary", Source: o("connector", "hermes-agent")}) // protocol §8.3
	}
	switch {
	case status == "denied":
		providerErr("connector.hermes_agent.authentication", "auth", http.StatusUnauthorized)
		return
	case status == "unavailable":
		providerErr("connector.hermes_agent.remote_temporary", "temporary", http.StatusBadGateway)
		return
	case status == "missing" || have == "" || want != have:
		providerErr("connector.hermes_agent.remote_rejected", "permanent", http.StatusNotFound)
		return
	}
	var output obj
	if op == "response_get" {
		output = o("id", have, "object", "response", "status", status, "model", hermesModel)
	} else {
		output = o("id", have, "source", "api", "message_count", 2, "status", status)
	}
	s.keepRead(a.ID, a.CapabilityID, scopedKey, output)
	lg.Reply = "result:completed"
	s.writeReply(w, req, o("action_result", o("action_id", a.ID, "status", "completed", "output", output)))
}

// Operation is the connector operation of a scenario (chat_stream or
// responses_stream), "" for an unknown one: the capability a submission
// of it must name is cap:hermes_agent:sim:OPERATION.
func Operation(scenario string) string {
	if sc := lookup(scenario); sc != nil {
		return sc.operation
	}
	return ""
}

// logWriter commits the submission log entry before the reply's first byte.
type logWriter struct {
	http.ResponseWriter
	commit func()
}

func (l *logWriter) WriteHeader(code int) { l.commit(); l.ResponseWriter.WriteHeader(code) }

func (l *logWriter) Write(b []byte) (int, error) { l.commit(); return l.ResponseWriter.Write(b) }

// replayed is the result as an idempotent replay returns it
// (protocol open point 2): the original, with
// output.idempotent_replay: true added to its output object; an output
// that is not an object (here: none) is replaced by
// {"idempotent_replay":true}.
func (r *resultRec) replayed() *resultRec {
	c := *r
	switch {
	case c.literal != nil:
		c.literal = withReplayFlag(c.literal)
	case c.prefix == nil:
		c.literal = []byte(`{"idempotent_replay":true}`)
	default:
		c.suffix = withReplayFlag(c.suffix)
	}
	return &c
}

// withReplayFlag adds "idempotent_replay":true as the last member of the
// JSON object that obj ends; anything else is replaced by
// {"idempotent_replay":true}.
func withReplayFlag(obj []byte) []byte {
	body := bytes.TrimRight(obj, " \n")
	if len(body) == 0 || body[len(body)-1] != '}' {
		return []byte(`{"idempotent_replay":true}`)
	}
	body = body[:len(body)-1] // the closing brace
	out := append([]byte(nil), body...)
	if t := bytes.TrimRight(body, " \n"); len(t) > 0 && t[len(t)-1] != '{' {
		out = append(out, ',')
	}
	return append(out, `"idempotent_replay":true}`...)
}

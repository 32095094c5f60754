package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var msgSerial atomic.Int64

// envelope builds a submission envelope (protocol §1.1) with a fresh
// message_id unless one is given.
func envelope(id, capID, input, mode, key string, mid ...string) string {
	m := fmt.Sprintf("msg_test_%d", msgSerial.Add(1))
	if len(mid) > 0 {
		m = mid[0]
	}
	action := fmt.Sprintf(`{"id":%q,"capability_id":%q,"input":%s`, id, capID, input)
	if mode != "" {
		action += fmt.Sprintf(`,"mode":%q`, mode)
	}
	if key != "" {
		action += fmt.Sprintf(`,"idempotency_key":%q`, key)
	}
	return fmt.Sprintf(`{"aip_version":"1.0","message_type":"aip.core.v1.action","message_id":%q,"sent_at":%q,"from":{"id":"agent:t","kind":"agent"},"body":{"action":%s}}}`,
		m, time.Now().UTC().Format(time.RFC3339Nano), action)
}

const chatIn = `{"messages":[{"role":"user","content":"hi"}],"session_id":"sess-1"}`

type replyEnv struct {
	InResponseTo string          `json:"in_response_to"`
	To           json.RawMessage `json:"to"`
	Body         struct {
		Ack *struct {
			ActionID string `json:"action_id"`
			Status   string `json:"status"`
		} `json:"ack"`
		ActionResult *struct {
			ActionID string          `json:"action_id"`
			Status   string          `json:"status"`
			Output   json.RawMessage `json:"output"`
			Error    *protocolError  `json:"error"`
		} `json:"action_result"`
	} `json:"body"`
}

func postT(t *testing.T, u, body string) (reply, replyEnv) {
	t.Helper()
	r := do(t, http.MethodPost, u+"/aip/v1/actions", body)
	var env replyEnv
	if r.status == http.StatusOK {
		mustJSON(t, r.body, &env)
	}
	return r, env
}

// §1.1: the body must be JSON (axum) and an Envelope (schema, decode).
func TestSubmitEnvelopeChecks(t *testing.T) {
	t.Parallel()
	_, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	if r := do(t, http.MethodPost, u+"/aip/v1/actions", "", "Content-Type", "text/plain"); r.status != http.StatusUnsupportedMediaType {
		t.Fatalf("no JSON content type: %d", r.status)
	}
	if r := do(t, http.MethodPost, u+"/aip/v1/actions", "{nope"); r.status != http.StatusBadRequest || strings.Contains(string(r.body), "aip_version") {
		t.Fatalf("malformed JSON: %d %s", r.status, r.body)
	}
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", `{"body":{}}`), 400); pe.Code != "schema.envelope.invalid" {
		t.Fatalf("%+v", pe)
	}
	bad := strings.Replace(envelope("act_x", "cap:hermes_agent:sim:chat_stream", chatIn, "", ""), `"id":"act_x"`, `"id":"run_x"`, 1)
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", bad), 400); pe.Code != "envelope.decode.invalid" {
		t.Fatalf("%+v", pe)
	}
	bad = envelope("act_x", "cap:hermes_agent:sim:chat_stream", chatIn, "later", "")
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/messages", bad), 400); pe.Code != "envelope.decode.invalid" {
		t.Fatalf("/messages, unknown mode: %+v", pe)
	}
}

// §1.1: the replay window; §1.2: an async ack, and the action exists at
// once; §1.3: the same ID with another contract is action.id_conflict.
func TestSubmitAsyncReplayConflict(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	if st := statusT(t, u, id); st["state"] != "unknown" {
		t.Fatalf("before the submission: %v", st["state"])
	}
	body := envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "key-1", "msg_once")
	r, env := postT(t, u, body)
	if r.status != 200 || env.Body.Ack == nil || env.Body.Ack.Status != "queued" || env.Body.Ack.ActionID != id ||
		env.InResponseTo != "msg_once" || !strings.Contains(string(env.To), "agent:t") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	waitSettled(t, s)
	if st := statusT(t, u, id); st["state"] != "completed" {
		t.Fatalf("after: %v", st["state"])
	}
	// The same envelope again: 401 replay.message_id.
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", body), 401); pe.Code != "replay.message_id" || pe.Category != "auth" {
		t.Fatalf("%+v", pe)
	}
	// sent_at too old.
	old := strings.Replace(envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "key-1"), time.Now().UTC().Format("2006-01-02"), "2001-01-01", 1)
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", old), 401); pe.Code != "replay.message_id" {
		t.Fatalf("old sent_at: %+v", pe)
	}
	// Another input under the same ID.
	other := envelope(id, "cap:hermes_agent:sim:chat_stream", `{"messages":[{"role":"user","content":"other"}]}`, "async", "key-1")
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", other), 400); pe.Code != "action.id_conflict" {
		t.Fatalf("%+v", pe)
	}
	// The same contract with a new message_id: the original result (§1.3).
	r, env = postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "key-1"))
	if r.status != 200 || env.Body.ActionResult == nil || env.Body.ActionResult.Status != "completed" {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	log := s.Submissions()
	if len(log) != 5 || log[0].Reply != "ack" || log[2].Reply != "error:replay.message_id" || log[3].Reply != "error:action.id_conflict" || log[4].Reply != "result:completed" {
		t.Fatalf("%+v", log)
	}
}

// §1.2: a sync POST is held open until the stream ends; its reply is the
// result. A resend of the same key while it runs is idempotency.in_progress.
func TestSubmitSyncHeldOpen(t *testing.T) {
	t.Parallel()
	// The run is held in flight after its first chunk (Knobs.Hold) until
	// the resend has its answer; then it plays out at once.
	hold := make(chan struct{})
	s, u := start(t, "chat-tools", Knobs{Hold: hold, Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	done := make(chan replyEnv, 1)
	go func() {
		_, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "k"))
		done <- env
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Submissions()) == 0 && s.SubmittedMode() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "k"))
	if r.status != 200 || env.Body.ActionResult == nil || env.Body.ActionResult.Error == nil ||
		env.Body.ActionResult.Error.Code != "idempotency.in_progress" || !env.Body.ActionResult.Error.Retryable {
		t.Fatalf("in progress: %d %s", r.status, r.body)
	}
	select {
	case <-done:
		t.Fatal("the sync POST answered while its run was in flight")
	default:
	}
	close(hold)
	select {
	case env := <-done:
		if env.Body.ActionResult == nil || env.Body.ActionResult.Status != "completed" || len(env.Body.ActionResult.Output) == 0 {
			t.Fatalf("sync reply: %+v", env.Body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the sync POST never answered")
	}
	if !s.isSettled() || s.SubmittedMode() != "sync" {
		t.Fatal("replied before the end")
	}
}

// §1.2: the rejections that are 200 failed results; an unknown capability
// is 400 resource.not_found; none starts the script.
func TestSubmitRejections(t *testing.T) {
	t.Parallel()
	s, u := start(t, "responses-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	cases := []struct{ capID, input, mode, code string }{
		{"cap:hermes_agent:sim:responses_stream", `{"body":"not an object"}`, "", "action.input_schema_invalid"},
		{"cap:hermes_agent:sim:response_get", `{"response_id":"resp_1"}`, "async", "execution.mode_unsupported"},
		{"cap:hermes_agent:sim:response_get", `{"response_id":""}`, "", "action.input_schema_invalid"},
	}
	for _, c := range cases {
		r, env := postT(t, u, envelope(id, c.capID, c.input, c.mode, ""))
		if r.status != 200 || env.Body.ActionResult == nil || env.Body.ActionResult.Status != "failed" || env.Body.ActionResult.Error.Code != c.code {
			t.Fatalf("%s: %d %s", c.code, r.status, r.body)
		}
	}
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope(id, "cap:hermes_agent:other:responses_stream", `{"body":{}}`, "", "")), 400); pe.Code != "resource.not_found" {
		t.Fatalf("%+v", pe)
	}
	if st := statusT(t, u, id); st["state"] != "unknown" {
		t.Fatalf("a rejection started the action: %v", st["state"])
	}
}

// Part A §3: response_get reads the stored state; a 404 is HTTP 400
// connector.hermes_agent.remote_rejected.
func TestSubmitResponseGet(t *testing.T) {
	t.Parallel()
	s, u := start(t, "responses-failed", Knobs{})
	waitSettled(t, s)
	var respID string
	for _, c := range everything(t, s, u).Chunks {
		if m := storedRespIDRE.FindSubmatch(c.Data); m != nil {
			respID = string(m[1])
			break
		}
	}
	if respID == "" {
		t.Fatal("no response id in the stream")
	}
	r, env := postT(t, u, envelope("act_read_1", "cap:hermes_agent:sim:response_get", fmt.Sprintf(`{"response_id":%q}`, respID), "", "rk"))
	if r.status != 200 || env.Body.ActionResult == nil || !strings.Contains(string(env.Body.ActionResult.Output), `"status":"failed"`) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope("act_read_2", "cap:hermes_agent:sim:response_get", `{"response_id":"resp_other"}`, "", "")), 400)
	if pe.Code != "connector.hermes_agent.remote_rejected" {
		t.Fatalf("%+v", pe)
	}
}

// §1.3: a different contract under a recorded ID is 400 action.id_conflict
// whose details name the action, both capabilities and both principals
// (RT ~142k [C]); on the bearer path both principals are the daemon's
// native principal (§1.1, §1.6).
func TestSubmitIDConflictDetails(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	if r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "k")); r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope(id, "cap:hermes_agent:sim:responses_stream", `{"body":{}}`, "async", "k")), 400)
	want := map[string]any{"action_id": id, "existing_capability_id": "cap:hermes_agent:sim:chat_stream",
		"attempted_capability_id": "cap:hermes_agent:sim:responses_stream",
		"existing_principal_id":   "service:getaip:server:http-edge", "attempted_principal_id": "service:getaip:server:http-edge"}
	if pe.Code != "action.id_conflict" || pe.Category != "permanent" || len(pe.Details) != len(want) {
		t.Fatalf("%+v", pe)
	}
	for k, v := range want {
		if pe.Details[k] != v {
			t.Errorf("details.%s = %v, want %v", k, pe.Details[k], v)
		}
	}
}

// §1.3 [C]: with an idempotency key, the same ID and contract after the
// run settled gets the original result back, marked
// output.idempotent_replay: true, with the original action_id; nothing
// runs again. /result keeps the stored result without the mark.
func TestSubmitIdempotentReplay(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"async", ""} {
		t.Run("mode="+mode, func(t *testing.T) {
			s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
			id := s.ActionID()
			r, first := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, mode, "key-r"))
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			waitSettled(t, s)
			chunks := len(everything(t, s, u).Chunks)
			r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, mode, "key-r"))
			res := env.Body.ActionResult
			if r.status != 200 || res == nil || res.Status != "completed" || res.ActionID != id {
				t.Fatalf("%d %s", r.status, truncate(r.body))
			}
			var out map[string]json.RawMessage
			mustJSON(t, res.Output, &out)
			if string(out["idempotent_replay"]) != "true" || string(out["terminal"]) != "true" || len(out["events"]) < 100 {
				t.Fatalf("replayed output: %s", truncate(res.Output))
			}
			if mode == "" { // the sync original's own reply was not a replay
				var orig map[string]json.RawMessage
				mustJSON(t, first.Body.ActionResult.Output, &orig)
				if _, ok := orig["idempotent_replay"]; ok || len(orig) == 0 {
					t.Fatal("the original reply is marked as a replay")
				}
			}
			if b := do(t, http.MethodGet, u+"/aip/v1/actions/"+id+"/result", "").body; strings.Contains(string(b), "idempotent_replay") {
				t.Fatalf("/result carries the replay mark: %s", truncate(b))
			}
			log := s.Submissions()
			if len(log) != 2 || !log[1].Replay || log[1].Rerun || log[1].Reply != "result:completed" {
				t.Fatalf("%+v", log)
			}
			if n := len(everything(t, s, u).Chunks); n != chunks {
				t.Fatalf("the replay ran the handler again: %d chunks, had %d", n, chunks)
			}
		})
	}
}

// The replay mark goes last into whatever output object the result has.
func TestWithReplayFlag(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{}`:                   `{"idempotent_replay":true}`,
		`{"cancelled":true}`:   `{"cancelled":true,"idempotent_replay":true}`,
		`],"truncated":false}`: `],"truncated":false,"idempotent_replay":true}`,
		`null`:                 `{"idempotent_replay":true}`, // open point 2: a non-object output is replaced
		`"text"`:               `{"idempotent_replay":true}`,
	} {
		if got := string(withReplayFlag([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// protocol open point 1, async: a keyless resend of a settled
// ID runs the handler again, but its chunks restart at sequence 0 and the
// store refuses them: acked, the old result read while it is queued, then
// dead_lettered with the old result overwritten by the failed publication;
// the old chunks kept, and no second aip.action.result event.
func TestSubmitKeylessResendAsyncDeadLetters(t *testing.T) {
	t.Parallel()
	// chat-error: a short completed turn (about 190 ms at Speed 8); Speed 8
	// keeps the re-run 31 ms in the queue.
	s, u := start(t, "chat-error", Knobs{Speed: 8, Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	body := func() string { return envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "") }
	if r, env := postT(t, u, body()); r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	waitSettled(t, s)
	firstChunks := len(everything(t, s, u).Chunks)
	firstSettled := s.Settled()
	r, env := postT(t, u, body())
	if r.status != 200 || env.Body.Ack == nil || env.Body.Ack.Status != "queued" || env.Body.ActionResult != nil {
		t.Fatalf("resend reply: %d %s", r.status, truncate(r.body))
	}
	if s.Settled() == firstSettled {
		t.Fatal("the resend has no run of its own")
	}
	select {
	case <-s.Settled():
		t.Log("the worker failed it before it could be observed (a loaded machine)")
	default:
		st := statusT(t, u, id)
		if st["state"] != "completed" || st["queued_state"] != "queued" || st["result_status"] != "completed" {
			t.Fatalf("while queued, the old result is not what it reads: %v", st)
		}
	}
	waitSettled(t, s)
	st := statusT(t, u, id)
	if st["state"] != "dead_lettered" || st["result_status"] != "failed" {
		t.Fatalf("after the worker: %v", st)
	}
	if res := resultT(t, s, u); res.Status != "failed" || res.Error == nil || res.Error.Code != "connector.hermes_agent.stream_publication" {
		t.Fatalf("the old result was not overwritten: %+v", res)
	}
	all := everything(t, s, u)
	results := 0
	for _, e := range all.Events {
		if e.Kind == "aip.action.result" {
			results++
		}
	}
	log := s.Submissions()
	if len(all.Chunks) != firstChunks || firstChunks == 0 || results != 1 || len(log) != 2 || !log[1].Rerun || log[1].Reply != "ack" {
		t.Fatalf("%d chunks, %d results, %+v", len(all.Chunks), results, log)
	}
}

// protocol open point 1, sync: the resend's publication is
// refused, its POST gets 502 connector.hermes_agent.stream_publication, and
// the old record, result and chunks stay as they were.
func TestSubmitKeylessResendSyncPublicationRefused(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	body := func() string { return envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "") }
	if r, env := postT(t, u, body()); r.status != 200 || env.Body.ActionResult == nil {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	before := everything(t, s, u)
	pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", body()), 502)
	if pe.Code != "connector.hermes_agent.stream_publication" || pe.Category != "connector" {
		t.Fatalf("%+v", pe)
	}
	if st := statusT(t, u, id); st["state"] != "completed" {
		t.Fatalf("the old record changed: %v", st)
	}
	if res := resultT(t, s, u); res.Status != "completed" {
		t.Fatalf("the old result changed: %+v", res)
	}
	if after := everything(t, s, u); len(after.Chunks) != len(before.Chunks) || len(after.Events) != len(before.Events) {
		t.Fatalf("chunks %d → %d, events %d → %d", len(before.Chunks), len(after.Chunks), len(before.Events), len(after.Events))
	}
	if log := s.Submissions(); len(log) != 2 || !log[1].Rerun || log[1].Reply != "error:connector.hermes_agent.stream_publication" {
		t.Fatalf("%+v", log)
	}
}

// §1.2 "HTTP errors" [C]: a sync handler error releases the idempotency
// key and persists nothing, so the same submission again runs again,
// rather than getting a stored result that does not exist; the first
// run's chunks are there, so the second's publication is refused (open
// point 1). A sync transport error is HTTP 503 (open point 8).
func TestSubmitKeyReleasedBySyncHandlerError(t *testing.T) {
	t.Parallel()
	s, u := start(t, "sync-handler-failed", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	body := func() string { return envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "key-f") }
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", body()), 503); pe.Code != "connector.hermes_agent.transport" || pe.Category != "transport" {
		t.Fatalf("try 1: %+v", pe)
	}
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", body()), 502); pe.Code != "connector.hermes_agent.stream_publication" {
		t.Fatalf("try 2: %+v", pe)
	}
	log := s.Submissions()
	if len(log) != 2 || log[0].Rerun || !log[1].Rerun || log[1].Replay || log[1].Reply != "error:connector.hermes_agent.stream_publication" {
		t.Fatalf("%+v", log)
	}
	if st := statusT(t, u, id); st["state"] != "unknown" {
		t.Fatalf("a failed sync run got a record: %v", st)
	}
}

// §1.3: re-sends of a settled ID that arrive at once are decided one at a
// time: one re-runs, the others find it in flight (the simulator's 503);
// two runs never share one connector.
func TestSubmitResendsAtOnceStartOneRerun(t *testing.T) {
	t.Parallel()
	// chat-error: a short completed turn (about 190 ms at Speed 8); Speed 8
	// keeps the re-run 31 ms in the queue.
	s, u := start(t, "chat-error", Knobs{Speed: 8, Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	body := func() string { return envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "") }
	if r, env := postT(t, u, body()); r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	waitSettled(t, s)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(u+"/aip/v1/actions", "application/json", strings.NewReader(body()))
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	waitSettled(t, s)
	reruns := 0
	for _, l := range s.Submissions() {
		if l.Rerun {
			reruns++
		}
	}
	if reruns != 1 {
		t.Fatalf("%d re-runs: %+v", reruns, s.Submissions())
	}
	if st := statusT(t, u, id); st["state"] != "dead_lettered" { // open point 1
		t.Fatalf("after the re-run: %v", st)
	}
}

// §1.2, §1.3: a key never seen binds nothing: after a sync handler failure
// (nothing persisted) a submission with a new key runs the handler again,
// and a re-run takes its own submission's mode (async: a queue record at
// once, §1.2).
func TestSubmitAfterSyncFailureRunsAgainInItsMode(t *testing.T) {
	t.Parallel()
	s, u := start(t, "sync-handler-failed", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "")), 503)
	pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "key-new")), 502)
	if log := s.Submissions(); pe.Code != "connector.hermes_agent.stream_publication" || len(log) != 2 || !log[1].Rerun {
		t.Fatalf("%+v %+v", pe, log)
	}
	r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", ""))
	if r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("async re-run: %d %s", r.status, truncate(r.body))
	}
	if st := statusT(t, u, id); st["state"] == "unknown" {
		t.Fatalf("the async re-run has no queue record: %v", st)
	}
	if s.Mode() != ModeAsync {
		t.Fatalf("the re-run runs %s", s.Mode())
	}
	waitSettled(t, s)
	if st := statusT(t, u, id); st["state"] != "dead_lettered" { // its publication refused (open point 1)
		t.Fatalf("after the async re-run: %v", st)
	}
}

// protocol open point 4: chat_stream takes exactly one of
// prompt, query and messages; responses_stream needs no body. A sync
// submission that breaks the schema is the 200 failed
// action.input_schema_invalid.
func TestSubmitStreamInputSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scenario, op, input string
		ok                  bool
	}{
		{"chat-tools", "chat_stream", `{"prompt":"hi"}`, true},
		{"chat-tools", "chat_stream", `{"query":"hi","session_id":"s"}`, true},
		{"chat-tools", "chat_stream", chatIn, true},
		{"chat-tools", "chat_stream", `{"prompt":"hi","messages":[{"role":"user","content":"hi"}]}`, false},
		{"chat-tools", "chat_stream", `{"session_id":"s"}`, false},
		{"chat-tools", "chat_stream", `{"prompt":""}`, false},
		{"chat-tools", "chat_stream", `{"messages":[]}`, false},
		{"responses-tools", "responses_stream", `{"input":"hi","model":"m"}`, true},
		{"responses-tools", "responses_stream", `{"body":{"input":"hi"}}`, true},
		{"responses-tools", "responses_stream", `{"body":[]}`, false},
	} {
		s, u := start(t, c.scenario, Knobs{Submit: SubmitKnobs{Await: true}})
		r, env := postT(t, u, envelope(s.ActionID(), "cap:hermes_agent:sim:"+c.op, c.input, "", ""))
		res := env.Body.ActionResult
		if r.status != 200 || res == nil {
			t.Fatalf("%s: %d %s", c.input, r.status, truncate(r.body))
		}
		refused := res.Error != nil && res.Error.Code == "action.input_schema_invalid"
		if refused == c.ok || (c.ok && res.Status != "completed") {
			t.Errorf("%s %s: %s %+v", c.op, c.input, res.Status, res.Error)
		}
	}
}

// protocol open point 4: an async submission skips the schema
// check: acked, then the worker fails it, dead-lettered with the failed
// result, and nothing streamed.
func TestSubmitAsyncSkipsInputCheck(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", `{"prompt":"a","query":"b"}`, "async", "k"))
	if r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	waitSettled(t, s)
	if st := statusT(t, u, id); st["state"] != "dead_lettered" || st["result_status"] != "failed" {
		t.Fatalf("%v", st)
	}
	if res := resultT(t, s, u); res.Error == nil || res.Error.Code != "action.input_schema_invalid" {
		t.Fatalf("%+v", res)
	}
	if n := len(everything(t, s, u).Chunks); n != 0 {
		t.Fatalf("%d chunks streamed", n)
	}
}

// protocol open point 3: Hermes streams return the original
// result (ReturnOriginalResult) for a used key whatever the input or the
// action ID, marked as a replay with the original action_id; neither
// idempotency.conflict nor idempotency.input_hash_mismatch occurs.
func TestSubmitKeyReusedReturnsOriginalResult(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	if r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "", "key-o")); r.status != 200 || env.Body.ActionResult == nil {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	for _, other := range []struct{ id, input string }{
		{"act_another", chatIn},
		{"act_another", `{"prompt":"something else"}`},
	} {
		r, env := postT(t, u, envelope(other.id, "cap:hermes_agent:sim:chat_stream", other.input, "", "key-o"))
		res := env.Body.ActionResult
		if r.status != 200 || res == nil || res.ActionID != id || res.Status != "completed" || !strings.Contains(string(res.Output), `"idempotent_replay":true`) {
			t.Fatalf("%s %s: %d %s", other.id, other.input, r.status, truncate(r.body))
		}
	}
	for _, l := range s.Submissions()[1:] {
		if !l.Replay || l.Rerun {
			t.Fatalf("%+v", l)
		}
	}
}

// Open point 8: a provider 401 on a read is HTTP 401 with
// connector.hermes_agent.authentication (category auth: the daemon's key
// for Hermes, not the caller's token); a provider 5xx is 503.
func TestSubmitReadProviderErrors(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]struct {
		http int
		code string
	}{
		"denied":      {401, "connector.hermes_agent.authentication"},
		"unavailable": {503, "connector.hermes_agent.remote_temporary"},
		"missing":     {400, "connector.hermes_agent.remote_rejected"},
	} {
		s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{StoredStatus: status}})
		waitSettled(t, s)
		pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope("act_read", "cap:hermes_agent:sim:session_get", `{"session_id":"sess-1"}`, "", "")), want.http)
		if pe.Code != want.code || !strings.Contains(pe.Message, "returned HTTP") {
			t.Errorf("%s: %+v", status, pe)
		}
	}
}

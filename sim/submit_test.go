package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var msgSerial atomic.Int64

// envelope builds a submission envelope (part A §1.1) with a fresh
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
	s, u := start(t, "chat-tools", Knobs{Speed: 4, Submit: SubmitKnobs{Await: true}})
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
	s, u := start(t, "responses-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	cases := []struct{ capID, input, mode, code string }{
		{"cap:hermes_agent:sim:responses_stream", `{"input":"no body"}`, "async", "action.input_schema_invalid"},
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

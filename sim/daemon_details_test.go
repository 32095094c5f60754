package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// protocol §1.3 (acquire_idempotency): a resend of a key whose run is in
// flight is idempotency.in_progress, retryable after the time left on the
// owner's reservation (the 300 s timeout and 60 s: at most 360,000 ms),
// with the scoped key, the owner and when the reservation ends.
func TestInProgressDetails(t *testing.T) {
	t.Parallel()
	// The run is held in flight after its first chunk until the test has
	// resent (Knobs.Hold), then plays out at once.
	hold := make(chan struct{})
	s, u := start(t, "chat-tools", Knobs{Hold: hold, Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	if r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "k-ip")); env.Body.Ack == nil {
		t.Fatalf("first submission: %d %s", r.status, truncate(r.body))
	}
	r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "k-ip"))
	res := env.Body.ActionResult
	if r.status != 200 || res == nil || res.Error == nil || res.Error.Code != "idempotency.in_progress" {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	e := res.Error
	if !e.Retryable || e.Category != "temporary" || e.RetryAfterMs <= 300_000 || e.RetryAfterMs > 360_000 {
		t.Fatalf("retry: %+v", e)
	}
	at, err := time.Parse(time.RFC3339Nano, e.Details["reservation_expires_at"].(string))
	if err != nil || e.Details["owner_action_id"] != id || e.Details["key"] != "Capability:cap:hermes_agent:sim:chat_stream:k-ip" ||
		time.Until(at) > 360*time.Second || e.Source["component"] != "aip-runtime" {
		t.Fatalf("details: %v %+v", err, e)
	}
	close(hold)
	waitSettled(t, s)
}

// protocol §11 items 4 and 7: a refused input is permanent with the
// capability and the violations, from the schema checker; a refused mode
// is a policy error naming the capability, the mode and what the contract
// supports.
func TestRefusalDetails(t *testing.T) {
	t.Parallel()
	s, u := start(t, "responses-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	_, env := postT(t, u, envelope(s.ActionID(), "cap:hermes_agent:sim:response_get", `{"response_id":""}`, "", ""))
	e := env.Body.ActionResult.Error
	if e.Code != "action.input_schema_invalid" || e.Category != "permanent" || e.Retryable || e.Source["component"] != "aip-runtime.schema" ||
		e.Details["capability_id"] != "cap:hermes_agent:sim:response_get" || len(e.Details["violations"].([]any)) != 1 {
		t.Fatalf("schema: %+v", e)
	}
	_, env = postT(t, u, envelope(s.ActionID(), "cap:hermes_agent:sim:session_get", `{"session_id":"s"}`, "async", ""))
	e = env.Body.ActionResult.Error
	exec, _ := e.Details["execution"].(map[string]any)
	if e.Code != "execution.mode_unsupported" || e.Category != "policy" || e.Retryable || e.Details["requested_mode"] != "async" ||
		e.Details["capability_id"] != "cap:hermes_agent:sim:session_get" || exec["supports_async"] != false || exec["supports_sync"] != true {
		t.Fatalf("mode: %+v", e)
	}
}

// protocol §8.3: a provider 429/5xx on a read is remote_temporary,
// retryable; a 404 is not. Either is the connector's, which names itself
// hermes-agent in the source.
func TestReadProviderTemporaryIsRetryable(t *testing.T) {
	t.Parallel()
	for status, retryable := range map[string]bool{"unavailable": true, "missing": false} {
		s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{StoredStatus: status}})
		waitSettled(t, s)
		r := do(t, http.MethodPost, u+"/aip/v1/actions", envelope("act_read", "cap:hermes_agent:sim:response_get", `{"response_id":"resp_x"}`, "", ""))
		want := map[bool]int{true: 503, false: 400}[retryable]
		if pe := envelopeError(t, r, want); pe.Retryable != retryable || pe.Source["connector"] != "hermes-agent" {
			t.Errorf("%s: %+v", status, pe)
		}
	}
}

// protocol §2.2: an async action's settle is followed by the worker's
// aip.action.worker_result {action_id, status, worker_id}; a sync one has
// none.
func TestAsyncSettleHasWorkerResult(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]bool{ModeAsync: true, ModeSync: false} {
		s, u := start(t, "chat-tools", Knobs{Finished: true, Mode: mode})
		var kinds []string
		for _, e := range everything(t, s, u).Events {
			kinds = append(kinds, e.Kind)
		}
		got := strings.Join(kinds, " ")
		if strings.Contains(got, "aip.action.result aip.action.worker_result") != want || strings.Count(got, "worker_result") > 1 {
			t.Fatalf("%s: %s", mode, got)
		}
	}
}

// protocol §1.3: an async resend of the same ID and key after the run
// settled returns the original result, marked idempotent_replay.
func TestAsyncResendReturnsMarkedResult(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Submit: SubmitKnobs{Await: true}})
	id := s.ActionID()
	if r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "k-re")); r.status != 200 || env.Body.Ack == nil {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
	waitSettled(t, s)
	r, env := postT(t, u, envelope(id, "cap:hermes_agent:sim:chat_stream", chatIn, "async", "k-re"))
	res := env.Body.ActionResult
	if r.status != 200 || res == nil || res.ActionID != id || res.Status != "completed" || !strings.Contains(string(res.Output), `"idempotent_replay":true`) {
		t.Fatalf("%d %s", r.status, truncate(r.body))
	}
}

// protocol §2.1: the filters session_id, principal_id and tenant_id are
// honoured (no row here has an AIP session or a verified tenant; all are
// the native principal's), and a tie of updated_at is broken by action ID.
func TestListOwnerFiltersAndTies(t *testing.T) {
	t.Parallel()
	_, u := startFleet(t, FleetKnobs{History: History{Actions: 5}},
		Member{"chat-tools", Knobs{Finished: true, ActionID: "act_done_chat"}})
	all := listT(t, u, "").L.Total
	for q, want := range map[string]int{
		"principal_id=" + nativePrincipal: all, "principal_id=user:other": 0,
		"session_id=sess_1": 0, "tenant_id=t1": 0,
	} {
		if l := listT(t, u, q); l.L.Total != want || len(l.L.Actions) != want {
			t.Errorf("%s: %d rows, want %d", q, l.L.Total, want)
		}
	}
	at := time.Now()
	rows := []listRow{{id: "act_b", updated: at}, {id: "act_c", updated: at.Add(-time.Second)}, {id: "act_a", updated: at}}
	sortListRows(rows)
	if rows[0].id != "act_c" || rows[1].id != "act_a" || rows[2].id != "act_b" {
		t.Fatalf("%v", rows)
	}
}

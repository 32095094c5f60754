package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

// The conformance rows of the spec's open points (the submit route, points
// 1 to 8; the global log's cursor, point 9, is the console's): each runs
// the real client against the simulator in the mode the daemon's answer
// describes. Points 2 and 3 are in TestSubmitReplyForms (the idempotent
// replays), 6 there too (action.id_conflict's details), 7 in
// TestReconcileInterpret (a read refused as execution.mode_unsupported).

// rawSubmit posts an envelope as another client would (one aipwatch never
// sends: no idempotency key, or an input its pre-check refuses) and
// returns the HTTP status.
func rawSubmit(t *testing.T, srv *sim.Server, id, capID, input, mode string) int {
	t.Helper()
	env := fmt.Sprintf(`{"aip_version":"1.0","message_type":"aip.core.v1.action","message_id":"msg_raw_%d","sent_at":%q,`+
		`"body":{"action":{"id":%q,"capability_id":%q,"input":%s,"mode":%q}}}`,
		time.Now().UnixNano(), time.Now().UTC().Format(time.RFC3339Nano), id, capID, input, mode)
	resp, err := http.Post(srv.URL()+"/aip/v1/actions", "application/json", strings.NewReader(env))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// Open point 1: a settled action submitted again without an idempotency
// key (async, by another client) is acked, runs Hermes again, has its
// chunks refused, and ends dead_lettered with its old result overwritten.
// A review then ends failed on the code that says why, not on the first
// run's verdict. (aipwatch always sends a key, and the key is part of the
// action's contract: its own resend under a new key is action.id_conflict,
// TestSubmitReplyForms.)
func TestOpenPoint1KeylessResendOverwritesTheResult(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_conf_resend_01"
	srv := awaitSim(t, "chat-tools", id, jpath)
	for try := 1; try <= 2; try++ {
		if st := rawSubmit(t, srv, id, "cap:hermes_agent:sim:chat_stream", chatInput, "async"); st != 200 {
			t.Fatalf("keyless submission %d: HTTP %d", try, st)
		}
		<-srv.Settled()
	}
	code, out, errOut := runWith(getenv, "--url", srv.URL(), "--output", "jsonl", id)
	wantExit(t, code, 4, out, errOut)
	if v := lastJSON(t, out); v["verdict"] != "failed" || v["error_code"] != "connector.hermes_agent.stream_publication" {
		t.Fatalf("%v", v)
	}
}

// Open point 4: chat_stream takes a prompt (or a query) instead of
// messages: aipwatch's pre-check lets it through and the run verifies.
func TestOpenPoint4PromptInsteadOfMessages(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_conf_prompt_01"
	srv := awaitSim(t, "chat-tools", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--mode", "async",
		"cap:hermes_agent:sim:chat_stream", "--input", `{"prompt":"summarise the notes","session_id":"sess-1"}`)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "verdict: verified")
	if subs := srv.Submissions(); len(subs) != 1 || subs[0].Reply != "ack" {
		t.Fatalf("%+v", subs)
	}
}

// Open point 4: an async submission skips the schema check, is acked, and
// fails in the worker: the follow ends failed on action.input_schema_invalid
// (dead_lettered with its failed result), with nothing streamed.
func TestOpenPoint4AsyncSkipsTheInputCheck(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_conf_schema_01"
	srv := awaitSim(t, "chat-tools", id, jpath)
	if st := rawSubmit(t, srv, id, "cap:hermes_agent:sim:chat_stream", `{"prompt":"a","query":"b"}`, "async"); st != 200 {
		t.Fatalf("HTTP %d", st)
	}
	code, out, errOut := runWith(getenv, "--url", srv.URL(), "--output", "jsonl", id)
	wantExit(t, code, 4, out, errOut)
	if v := lastJSON(t, out); v["verdict"] != "failed" || v["error_code"] != "action.input_schema_invalid" {
		t.Fatalf("%v", v)
	}
}

// Open point 8: a provider 401 on a read arrives as HTTP 401 with
// connector.hermes_agent.authentication. reconcile says Hermes refused
// aipd's own key, and never that aipd refused the operator's token.
func TestOpenPoint8ProviderAuthIsNotTheToken(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: "denied"}})
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", srv.ActionID())
	wantExit(t, code, 1, out, errOut)
	wantLine(t, out, "Hermes refused aipd's own key")
	if strings.Contains(out+errOut, "refused the credentials") {
		t.Fatalf("blamed the token:\n%s\n%s", out, errOut)
	}
}

// Open point 8: a provider 5xx on a read is HTTP 503: a refusal to try
// again later, not "not stored".
func TestOpenPoint8ProviderUnavailableIsNotNotStored(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: "unavailable"}})
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", srv.ActionID())
	wantExit(t, code, 1, out, errOut)
	wantLine(t, out, "reconcile again later")
	if strings.Contains(out, "not_found") {
		t.Fatalf("read as not stored:\n%s", out)
	}
	// The error is retryable (protocol §8.3), but a read is sent once:
	// the operator decides when to ask again.
	if n := len(srv.Submissions()); n != 1 {
		t.Fatalf("%d reads sent for one reconcile", n)
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/safe"
	"aipwatch/sim"
)

const (
	chatInput = `{"messages":[{"role":"user","content":"SECRET-PROMPT summarise the notes"}],"session_id":"sess-ops-1","session_key":"support:ops","max_events":4096}`
	respInput = `{"body":{"model":"hermes-agent","input":"SECRET-PROMPT summarise","store":true},"session_key":"support:ops","max_events":4096}`
)

// stateEnv is an environment whose journal lives in a fresh directory.
func stateEnv(t *testing.T) (func(string) string, string) {
	t.Helper()
	dir := t.TempDir()
	return func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}, filepath.Join(dir, "aipwatch", journal.FileName)
}

func runWith(getenv func(string) string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(""), &out, &errb, getenv, testKeys())
	return code, out.String(), errb.String()
}

// journalHas is a BeforeAccept check: the journal must already hold a
// synced submit line for the ID the simulator is about to accept.
func journalHas(path string) func(string) error {
	return func(id string) error {
		entries, err := journal.Read(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.ActionID == id && (e.Kind == journal.KindSubmit || e.Kind == journal.KindResend) && e.IdempotencyKey != "" && e.MessageID != "" {
				return nil
			}
		}
		return fmt.Errorf("journal has no submit line for %s", id)
	}
}

func awaitSim(t *testing.T, scenario, id string, path string, mut ...func(*sim.SubmitKnobs)) *sim.Server {
	t.Helper()
	k := sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(path)}
	for _, m := range mut {
		m(&k)
	}
	return startSim(t, scenario, sim.Knobs{Submit: k})
}

// Contract §6.2: the journal holds the ID (synced) before the simulator
// receives the POST; one POST, an ack, the follow of the same ID, the
// verdict; the journal keeps IDs and continuity, never the prompt.
func TestSubmitJournalBeforePostAsync(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_submit_async_01"
	srv := awaitSim(t, "chat-tools", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--mode", "async",
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	if len(subs) != 1 || subs[0].ActionID != id || subs[0].Mode != "async" || subs[0].Reply != "ack" {
		t.Fatalf("submissions: %+v", subs)
	}
	if subs[0].CheckErr != nil {
		t.Fatalf("the POST arrived before the journal held the ID: %v", subs[0].CheckErr)
	}
	for _, want := range []string{"submitting " + id, "follow it with: ", " --url http", "submit: aipd accepted " + id} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	fi, err := os.Stat(jpath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal mode: %v %v", fi, err)
	}
	raw, _ := os.ReadFile(jpath)
	if bytes.Contains(raw, []byte("SECRET-PROMPT")) || bytes.Contains(raw, []byte("messages")) {
		t.Fatalf("the journal holds the input:\n%s", raw)
	}
	entries, _ := journal.Read(jpath)
	kinds := []string{}
	for _, e := range entries {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "submit,reply,cursor,verdict" {
		t.Fatalf("journal kinds %v", kinds)
	}
	s := entries[0]
	if s.CapabilityID != "cap:hermes_agent:sim:chat_stream" || s.Mode != "async" || s.SessionID != "sess-ops-1" ||
		s.SessionKey != "support:ops" || s.MessageID != subs[0].MessageID || s.IdempotencyKey != subs[0].IdempotencyKey ||
		s.BaseURL != srv.URL() || s.TokenSource != "none" || s.SentAt == "" {
		t.Fatalf("submit line: %+v (sim saw %+v)", s, subs[0])
	}
	if entries[3].Verdict != "verified" || entries[1].Reply != "ack:queued" {
		t.Fatalf("reply/verdict lines: %+v", entries)
	}
}

// --mode sync: the POST is held open until the end and its reply is the
// result; the follow ran at once beside it.
func TestSubmitSyncReplyIsResult(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_submit_sync_01"
	srv := awaitSim(t, "responses-failed", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "jsonl", "--action-id", id, "--mode", "sync",
		"cap:hermes_agent:sim:responses_stream", "--input", respInput)
	if code != 4 || !strings.Contains(out, `"verdict":"failed"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	if len(subs) != 1 || subs[0].Mode != "sync" || subs[0].Reply != "result:failed" || subs[0].CheckErr != nil {
		t.Fatalf("submissions: %+v", subs)
	}
	if !strings.Contains(out, `"type":"submit"`) || !strings.Contains(out, "replied with the result of "+id+" (failed)") {
		t.Fatalf("jsonl lacks the submit lines:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "{") {
			t.Fatalf("a jsonl line is not JSON: %q", l)
		}
	}
	entries, _ := journal.Read(jpath)
	if entries[1].Kind != journal.KindReply || entries[1].Reply != "result:failed" || entries[1].Code != "connector.hermes_agent.stream_failed" {
		t.Fatalf("reply line: %+v", entries[1])
	}
}

// An uncertain submission the daemon had accepted (reply lost): the
// original ID is found, nothing is resent, one action ID in all.
func TestSubmitUncertainAcceptedIsNotResent(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_uncertain_acc_01"
	srv := awaitSim(t, "chat-tools", id, jpath, func(k *sim.SubmitKnobs) { k.DropFirst = true })
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"--appear-timeout", "30s", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	if len(subs) != 1 || subs[0].Reply != "dropped" {
		t.Fatalf("want one dropped POST, got %+v", subs)
	}
	if !strings.Contains(out, "no reply to the submission") || !strings.Contains(out, "aipd knows "+id) {
		t.Fatalf("the uncertain submission is not explained:\n%s", out)
	}
	entries, _ := journal.Read(jpath)
	for _, e := range entries {
		if e.ActionID != id || e.Kind == journal.KindResend {
			t.Fatalf("journal: %+v", entries)
		}
	}
}

// An uncertain submission the daemon never saw: after --appear-timeout of
// unknown, exactly one resend with the same action ID and key and a new
// message_id, journalled before it is sent; never a second action ID.
func TestSubmitUncertainLostResendsOnceSameID(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_uncertain_lost_01"
	srv := awaitSim(t, "chat-tools", id, jpath, func(k *sim.SubmitKnobs) { k.LoseFirst = true })
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"--appear-timeout", "300ms", "--mode", "async", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	if len(subs) != 2 || subs[0].Reply != "lost" || subs[1].Reply != "ack" {
		t.Fatalf("submissions: %+v", subs)
	}
	if subs[0].ActionID != id || subs[1].ActionID != id || subs[0].IdempotencyKey != subs[1].IdempotencyKey ||
		subs[0].MessageID == subs[1].MessageID || subs[1].CheckErr != nil {
		t.Fatalf("the resend is not the same action with a new message_id: %+v", subs)
	}
	if !strings.Contains(out, "resending once with the same action ID and idempotency key and a new message_id") {
		t.Fatalf("the resend is not said:\n%s", out)
	}
	entries, _ := journal.Read(jpath)
	var resend *journal.Entry
	for i, e := range entries {
		if e.ActionID != id {
			t.Fatalf("a second action ID in the journal: %+v", e)
		}
		if e.Kind == journal.KindResend {
			resend = &entries[i]
		}
	}
	if resend == nil || resend.MessageID != subs[1].MessageID || resend.IdempotencyKey != subs[0].IdempotencyKey {
		t.Fatalf("resend line: %+v", resend)
	}
}

// Each reply form that ends the submission (design §6.5).
func TestSubmitReplyForms(t *testing.T) {
	t.Parallel()
	t.Run("failed result before any chunk", func(t *testing.T) {
		getenv, jpath := stateEnv(t)
		id := "act_test_refused_01"
		srv := awaitSim(t, "responses-tools", id, jpath)
		// response_get is sync only: async is refused as a 200 failed result.
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "jsonl", "--action-id", id,
			"cap:hermes_agent:sim:response_get", "--input", `{"response_id":"resp_x"}`)
		if code != 4 || !strings.Contains(out, `"verdict":"failed"`) || !strings.Contains(out, "execution.mode_unsupported") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("action.id_conflict", func(t *testing.T) {
		getenv, jpath := stateEnv(t)
		id := "act_test_conflict_01"
		srv := awaitSim(t, "chat-tools", id, jpath)
		if code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput); code != 0 {
			t.Fatalf("first: exit %d\n%s\n%s", code, out, errOut)
		}
		other := strings.Replace(chatInput, "summarise", "list", 1)
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:sim:chat_stream", "--input", other)
		if code != 1 || !strings.Contains(out+errOut, "action.id_conflict") || !strings.Contains(out+errOut, "nothing is resubmitted") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		if n := len(srv.Submissions()); n != 2 {
			t.Fatalf("%d POSTs, want 2 (no resubmission)", n)
		}
	})
	t.Run("action.id_conflict names the bound capability", func(t *testing.T) {
		// protocol open point 6: the details name both
		// capabilities; the line says which one the ID is bound to.
		getenv, jpath := stateEnv(t)
		id := "act_test_conflict_cap_01"
		srv := awaitSim(t, "chat-tools", id, jpath)
		if code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput); code != 0 {
			t.Fatalf("first: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:sim:responses_stream", "--input", `{"body":{"input":"x","store":true}}`)
		if code != 1 || !strings.Contains(out+errOut, "bound to another request (to cap:hermes_agent:sim:chat_stream)") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("stream publication refused", func(t *testing.T) {
		// protocol open point 1: a sync run whose handler
		// failed left chunks and no record; the same ID submitted again
		// runs the handler again, and the chunk store refuses its output
		// (502 connector.hermes_agent.stream_publication). The line says
		// what happened and what to do.
		getenv, jpath := stateEnv(t)
		id := "act_test_republish_01"
		srv := awaitSim(t, "sync-handler-failed", id, jpath)
		args := []string{"submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--mode", "sync",
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput}
		if code, out, errOut := runWith(getenv, args...); code != 1 {
			t.Fatalf("first: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut := runWith(getenv, args...)
		if code != 1 || !strings.Contains(out+errOut, "connector.hermes_agent.stream_publication (HTTP 502)") ||
			!strings.Contains(out+errOut, "had already published a stream") || !strings.Contains(out+errOut, "new action ID") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("idempotent replay", func(t *testing.T) {
		// The same ID, input and idempotency key after the run settled:
		// aipd returns the original result with output.idempotent_replay
		// (protocol §1.3); the operator is told that nothing
		// ran for this submission and the verdict is the earlier run's.
		getenv, jpath := stateEnv(t)
		id := "act_test_idem_replay_01"
		srv := awaitSim(t, "chat-tools", id, jpath)
		args := []string{"submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--idempotency-key", "idem-1",
			"--mode", "sync", "cap:hermes_agent:sim:chat_stream", "--input", chatInput}
		if code, out, errOut := runWith(getenv, args...); code != 0 || strings.Contains(out, "idempotent replay") {
			t.Fatalf("first: exit %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut := runWith(getenv, args...)
		if code != 0 || !strings.Contains(out, "verdict: verified") ||
			!strings.Contains(out, "stored result of an earlier run of "+id+" (completed, idempotent replay): this submission ran nothing") {
			t.Fatalf("second: exit %d\n%s\n%s", code, out, errOut)
		}
		subs := srv.Submissions()
		if len(subs) != 2 || !subs[1].Replay || subs[1].Rerun {
			t.Fatalf("submissions: %+v", subs)
		}
		entries, _ := journal.Read(jpath)
		var replies []string
		for _, e := range entries {
			if e.Kind == journal.KindReply {
				replies = append(replies, e.Reply)
			}
		}
		if strings.Join(replies, ",") != "result:completed,replay:completed" {
			t.Fatalf("journalled replies %v", replies)
		}
	})
	t.Run("idempotent replay of another action", func(t *testing.T) {
		// The key's original run was another action ID: aipd answers its
		// result, with the original action_id (§1.3). The submitted ID
		// was never created; that result is no evidence for it (design
		// §3): exit 1 naming the other action, and no hang on the ID.
		getenv, _ := stateEnv(t)
		id := "act_test_idem_new_01"
		s, err := sim.New("chat-tools", sim.Knobs{PollInterval: 5 * time.Millisecond, Submit: sim.SubmitKnobs{Await: true, ActionID: id}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		h := s.Handler()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != "/aip/v1/actions" {
				h.ServeHTTP(w, r)
				return
			}
			_, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"aip_version":"1.0","message_type":"aip.core.v1.action_result","message_id":"msg_r","sent_at":"2030-01-01T00:00:00Z",`+
				`"body":{"action_result":{"action_id":"act_test_orig_01","status":"completed","output":{"events":[],"terminal":true,"idempotent_replay":true}}}}`)
		}))
		t.Cleanup(srv.Close)
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL, "--output", "plain", "--action-id", id, "--idempotency-key", "idem-1",
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
		if code != 1 || !strings.Contains(out+errOut, "stored result of another action, act_test_orig_01") ||
			!strings.Contains(out+errOut, id+" was not created") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("replay.message_id", func(t *testing.T) {
		getenv, jpath := stateEnv(t)
		id := "act_test_replay_01"
		srv := awaitSim(t, "chat-tools", id, jpath, func(k *sim.SubmitKnobs) {
			k.Clock = func() time.Time { return time.Now().Add(10 * time.Minute) } // the daemon's clock is ahead
		})
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
		if code != 1 || !strings.Contains(out+errOut, "replay.message_id") || !strings.Contains(out+errOut, "check the clock") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("unknown capability", func(t *testing.T) {
		getenv, jpath := stateEnv(t)
		id := "act_test_nocap_01"
		srv := awaitSim(t, "chat-tools", id, jpath)
		code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
			"cap:hermes_agent:elsewhere:chat_stream", "--input", chatInput)
		if code != 1 || !strings.Contains(out+errOut, "resource.not_found") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
}

// Input problems stop everything before the journal or the network.
func TestSubmitInputErrorsSendNothing(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	srv := awaitSim(t, "chat-tools", "act_never_01", jpath)
	code, _, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain",
		"cap:hermes_agent:sim:chat_stream", "--input", `{"messages":[]}`)
	if code != 2 || !strings.Contains(errOut, "messages is empty") || !strings.Contains(errOut, "nothing was sent") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if len(srv.Submissions()) != 0 {
		t.Fatal("a POST was sent")
	}
	if _, err := os.Stat(jpath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the journal was written: %v", err)
	}
}

// --dry-run prints the envelope and sends nothing; --redact masks the input.
func TestSubmitDryRun(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	code, out, errOut := runWith(getenv, "submit", "--dry-run", "--action-id", "act_dry_01", "--idempotency-key", "k1",
		"cap:hermes_agent:ep:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, `"id":"act_dry_01"`) || !strings.Contains(out, `"idempotency_key":"k1"`) ||
		!strings.Contains(out, `"mode":"streaming"`) || !strings.Contains(out, "SECRET-PROMPT") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = runWith(getenv, "submit", "--dry-run", "--redact", "cap:hermes_agent:ep:chat_stream", "--input", chatInput)
	if strings.Contains(out, "SECRET-PROMPT") || !strings.Contains(out, `"input":"`+safe.Masked+`"`) || strings.Contains(out, "sess-ops-1") {
		t.Fatalf("--redact dry run shows the input:\n%s", out)
	}
	// jsonl: one object with a type, the envelope inside.
	_, out, _ = runWith(getenv, "submit", "--dry-run", "--output", "jsonl", "--action-id", "act_dry_02", "cap:hermes_agent:ep:chat_stream", "--input", chatInput)
	var line struct {
		Type     string          `json:"type"`
		Envelope json.RawMessage `json:"envelope"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line); err != nil || line.Type != "dry_run" || !strings.Contains(string(line.Envelope), `"id":"act_dry_02"`) {
		t.Fatalf("jsonl dry run (%v):\n%s", err, out)
	}
	if _, err := os.Stat(jpath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--dry-run wrote the journal: %v", err)
	}
}

// --redact: the plain output of a submission shows no prompt and no model
// text; the journal is the same as without it (IDs and continuity only).
func TestSubmitRedact(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_redact_01"
	srv := awaitSim(t, "chat-tools", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--redact", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "SECRET-PROMPT") || strings.Contains(out, "project layout") {
		t.Fatalf("--redact output shows the prompt or the text:\n%s", out)
	}
	raw, _ := os.ReadFile(jpath)
	if bytes.Contains(raw, []byte("SECRET-PROMPT")) || !bytes.Contains(raw, []byte(`"session_id":"sess-ops-1"`)) {
		t.Fatalf("journal:\n%s", raw)
	}
}

// --demo submits to the built-in simulator and follows, in one command.
func TestSubmitDemoUsage(t *testing.T) {
	t.Parallel()
	code, out, _ := runWith(noEnv, "submit", "--help")
	if code != 0 || !strings.Contains(out, "--demo") || !strings.Contains(out, "submissions.jsonl") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, _, errOut := runWith(noEnv, "submit", "--mode", "later", "cap:x")
	if code != 2 || !strings.Contains(errOut, "--mode must be async, sync or streaming") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

// --record wraps the submission, not the bare follow: the POST is sent and
// the recording replays to the same verdict.
func TestSubmitRecord(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_record_01"
	srv := awaitSim(t, "chat-error", id, jpath)
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	code, out, errOut := runWith(getenv, "submit", "--record", rec, "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 4 || len(srv.Submissions()) != 1 {
		t.Fatalf("exit %d, %d POSTs\n%s\n%s", code, len(srv.Submissions()), out, errOut)
	}
	code, out, errOut = runWith(getenv, "--replay", rec, "--output", "plain")
	if code != 4 || !strings.Contains(out, "verdict: failed") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A sync run whose handler fails mid-stream (protocol §1.2 "HTTP errors",
// A3): the POST answers 503 with the connector code (a transport error,
// protocol open point 8) and the action never gets a record;
// aipwatch exits 1 naming the code instead of following an action that
// never settles.
func TestSubmitSyncHandlerFailed(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_handler_failed_01"
	srv := awaitSim(t, "sync-handler-failed", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--mode", "sync",
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 1 || !strings.Contains(out+errOut, "connector.hermes_agent.transport (HTTP 503)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if subs := srv.Submissions(); len(subs) != 1 || subs[0].Reply != "error:connector.hermes_agent.transport" {
		t.Fatalf("%+v", subs)
	}
}

// submit --demo names no command to follow the action later: the demo's
// simulator stops with aipwatch.
func TestSubmitDemoAnnouncesNoFollowCommand(t *testing.T) {
	t.Parallel()
	so := &submitOptions{actionID: "act_demo_01", capability: "cap:hermes_agent:sim:chat_stream", mode: "async"}
	for _, mode := range []string{"plain", "jsonl"} {
		var out, errb bytes.Buffer
		announce(&watch{conn: conn{url: "http://127.0.0.1:9"}, g: globalFlags{output: mode}, r: runFlags{demo: "chat-tools"},
			e: &runEnv{stdout: &out, stderr: &errb}}, so, "/j")
		if s := out.String(); strings.Contains(s, "follow it with") || strings.Contains(s, "--url") || !strings.Contains(s, "act_demo_01") {
			t.Errorf("%s: %s", mode, s)
		}
	}
	var out bytes.Buffer
	announce(&watch{conn: conn{url: "http://127.0.0.1:9"}, g: globalFlags{output: "plain"}, e: &runEnv{stdout: &out, stderr: &out}}, so, "/j")
	if !strings.Contains(out.String(), "follow it with: ") {
		t.Errorf("a real submission lost its follow command: %s", out.String())
	}
}

// A reply to the submission's POST that names another action (or answers
// another message) decided the verdict: a sync refusal of act_other
// ended the run "failed". It is an error (exit 1), never evidence.
func TestSubmitReplyAboutAnotherActionIsAnError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, mode, reply string }{
		{"sync result", "sync", `{"in_response_to":%q,"body":{"action_result":{"action_id":"act_test_someone_else_01","status":"failed",` +
			`"error":{"code":"action.input_schema_invalid","message":"bad","category":"permanent"}}}}`},
		{"async ack", "async", `{"in_response_to":%q,"body":{"ack":{"action_id":"act_test_someone_else_01","status":"queued"}}}`},
		{"another message", "sync", `{"in_response_to":"msg_not_yours_%s","body":{"action_result":{"status":"failed",` +
			`"error":{"code":"action.input_schema_invalid","message":"bad","category":"permanent"}}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv, _ := stateEnv(t)
			id := "act_test_mismatch_01"
			s, err := sim.New("chat-tools", sim.Knobs{PollInterval: 5 * time.Millisecond, Submit: sim.SubmitKnobs{Await: true, ActionID: id}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			h := s.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					h.ServeHTTP(w, r)
					return
				}
				var env struct {
					MessageID string `json:"message_id"`
				}
				_ = json.NewDecoder(r.Body).Decode(&env)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, c.reply, env.MessageID)
			}))
			t.Cleanup(srv.Close)
			code, out, errOut := runWith(getenv, "submit", "--url", srv.URL, "--output", "plain", "--action-id", id, "--mode", c.mode,
				"--appear-timeout", "2s", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
			if code != 1 || !strings.Contains(out+errOut, "reply is about another") || strings.Contains(out, "verdict: failed") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// Server text reached submissions.jsonl raw: the whole bearer token and
// C1/bidi controls, through an ack's status and a sync result's error
// code. The journal is written like a record: token scrubbed, controls
// escaped (the data reads back exact).
func TestSubmitJournalIsScrubbedAndEscaped(t *testing.T) {
	t.Parallel()
	const token = "tok-journal-echo-0123456789abcdef"
	hostile := token + " \u0085\u202e\u009b2J"
	for _, c := range []struct{ name, mode, reply string }{
		{"ack status", "async", `{"in_response_to":%q,"body":{"ack":{"action_id":"act_test_jscrub_01","status":%q}}}`},
		{"result code", "sync", `{"in_response_to":%q,"body":{"action_result":{"action_id":"act_test_jscrub_01","status":"failed",` +
			`"error":{"code":%q,"message":"m","category":"permanent"}}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			state, jpath := stateEnv(t)
			getenv := func(k string) string {
				if k == "AIP_TOKEN" {
					return token
				}
				return state(k)
			}
			id := "act_test_jscrub_01"
			s, err := sim.New("chat-tools", sim.Knobs{PollInterval: 5 * time.Millisecond, Submit: sim.SubmitKnobs{Await: true, ActionID: id}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			h := s.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					h.ServeHTTP(w, r)
					return
				}
				var env struct {
					MessageID string `json:"message_id"`
				}
				_ = json.NewDecoder(r.Body).Decode(&env)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, c.reply, env.MessageID, hostile)
			}))
			t.Cleanup(srv.Close)
			runWith(getenv, "submit", "--url", srv.URL, "--output", "plain", "--action-id", id, "--mode", c.mode,
				"--appear-timeout", "1s", "--stall-timeout", "1s", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
			raw, err := os.ReadFile(jpath)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), token[:12]) || strings.ContainsAny(string(raw), "\u0085\u202e\u009b") {
				t.Fatalf("server text raw in the journal:\n%q", raw)
			}
			if !strings.Contains(string(raw), `[token] \u0085\u202e\u009b2J`) {
				t.Fatalf("the reply is not journalled escaped:\n%s", raw)
			}
		})
	}
}

// design §14: a chat_stream or responses_stream submission is streaming
// unless --mode says otherwise, another capability async; the submit line
// says the mode and why, the envelope and the journal carry it.
func TestSubmitModeDefaultAndWhy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args     []string
		mode     string
		why      string
		envelope string
	}{
		{[]string{"cap:hermes_agent:ep:chat_stream"}, "streaming", "chat_stream's expected completion", `"mode":"streaming"`},
		{[]string{"cap:hermes_agent:ep:responses_stream", "--input", respInput}, "streaming", "responses_stream's expected completion", `"mode":"streaming"`},
		{[]string{"--mode", "async", "cap:hermes_agent:ep:chat_stream"}, "async", "--mode", `"mode":"async"`},
		{[]string{"cap:other:thing"}, "async", "the default", `"mode":"async"`},
	}
	for _, c := range cases {
		getenv, _ := stateEnv(t)
		args := append([]string{"submit", "--dry-run", "--input", chatInput}, c.args...)
		code, out, errOut := runWith(getenv, args...)
		if code != 0 || !strings.Contains(out, c.envelope) {
			t.Errorf("%v: exit %d, want %s in the envelope\n%s\n%s", c.args, code, c.envelope, out, errOut)
		}
		so := &submitOptions{actionID: "act_mode_01", capability: "cap:x", mode: c.mode, modeWhy: c.why}
		var line bytes.Buffer
		announce(&watch{conn: conn{url: "http://127.0.0.1:9"}, g: globalFlags{output: "plain"}, e: &runEnv{stdout: &line, stderr: &line}}, so, "/j")
		if !strings.Contains(line.String(), "(mode "+c.mode+": "+c.why) {
			t.Errorf("%v: the submit line does not say the mode and why: %s", c.args, line.String())
		}
	}
	// The journal records the mode the submission was sent with.
	getenv, jpath := stateEnv(t)
	id := "act_test_mode_journal"
	srv := awaitSim(t, "chat-tools", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "(mode streaming: chat_stream's expected completion") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := srv.SubmittedMode(); got != "streaming" {
		t.Errorf("the simulator got mode %q, want streaming", got)
	}
	b, err := os.ReadFile(jpath)
	if err != nil || !strings.Contains(string(b), `"mode":"streaming"`) {
		t.Errorf("the journal does not record the mode: %v\n%s", err, b)
	}
}

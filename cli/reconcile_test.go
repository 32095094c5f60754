package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/submit"
)

// Contract §8: response_get once for a Responses turn with a captured
// response.id; the stored status beside the verdict, which it never
// changes; the reconcile action's own ID in the journal.
func TestReconcileEachStoredStatus(t *testing.T) {
	t.Parallel()
	cases := []struct{ knob, want, meaning string }{
		{"", "failed", "retained failure state"}, // from the script's outcome
		{"completed", "completed", "terminal provider object"},
		{"incomplete", "incomplete", "do not submit a replacement"},
		{"missing", "not_found", "not stored (store false), was evicted or deleted, or the request reached another response store"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			getenv, jpath := stateEnv(t)
			srv := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: c.knob}})
			exportPath := filepath.Join(t.TempDir(), "out.md")
			code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", "--export", exportPath, srv.ActionID())
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			if !strings.Contains(out, "verdict: failed") || !strings.Contains(out, "stored: "+c.want+" (response_get of resp_") ||
				!strings.Contains(out, c.meaning) {
				t.Fatalf("output:\n%s", out)
			}
			subs := srv.Submissions()
			if len(subs) != 1 || subs[0].CapabilityID != "cap:hermes_agent:sim:response_get" || subs[0].Mode != "sync" ||
				subs[0].IdempotencyKey != submit.ReconcileKey(srv.ActionID(), submit.OpResponseGet) || subs[0].ActionID == srv.ActionID() {
				t.Fatalf("submissions: %+v", subs)
			}
			entries, err := journal.Read(jpath)
			if err != nil || len(entries) != 2 {
				t.Fatalf("journal: %v %+v", err, entries)
			}
			for _, e := range entries {
				if e.Kind != journal.KindReconcile || e.ActionID != subs[0].ActionID || e.Of != srv.ActionID() {
					t.Fatalf("journal line: %+v", e)
				}
			}
			if entries[1].StoredStatus != c.want {
				t.Fatalf("journalled stored status %q", entries[1].StoredStatus)
			}
			md, _ := os.ReadFile(exportPath)
			if !strings.Contains(string(md), "## Reconciled") || !strings.Contains(string(md), "stored status: **"+c.want+"**") {
				t.Fatalf("export lacks the stored status:\n%s", md)
			}
		})
	}
}

// Chat: the session read of the session_id the journal kept from the
// submitted input (the sim's finish chunks carry none).
func TestReconcileChatSession(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_reconcile_chat_01"
	srv := awaitSim(t, "chat-error", id, jpath)
	if code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput); code != 4 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "jsonl", id)
	if code != 0 || !strings.Contains(out, `"operation":"session_get"`) || !strings.Contains(out, `"stored_status":"stored"`) ||
		!strings.Contains(out, `"target":"sess-ops-1"`) || !strings.Contains(out, `"verdict":"failed"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	if last := subs[len(subs)-1]; last.CapabilityID != "cap:hermes_agent:sim:session_get" {
		t.Fatalf("submissions: %+v", subs)
	}
	// --redact masks the provider ID.
	_, out, _ = runWith(getenv, "reconcile", "--redact", "--url", srv.URL(), "--output", "plain", id)
	if strings.Contains(out, "sess-ops-1") || !strings.Contains(out, "stored: stored (session_get of "+safe.Masked) {
		t.Fatalf("--redact output:\n%s", out)
	}
}

// Nothing captured: nothing is submitted, and the verdict is said.
func TestReconcileNothingToRead(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "chat-length", sim.Knobs{})
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", srv.ActionID())
	if code != 1 || !strings.Contains(errOut, "nothing to reconcile") || !strings.Contains(errOut, "verdict: partial") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if len(srv.Submissions()) != 0 {
		t.Fatal("a read was submitted")
	}
}

// The journal's session of the same action ID on another daemon is not
// this action's: reconcile reads nothing rather than the wrong session.
func TestReconcileIgnoresAnotherDaemonsJournal(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	srv := startSim(t, "chat-error", sim.Knobs{Finished: true})
	if err := os.MkdirAll(filepath.Dir(jpath), 0o700); err != nil {
		t.Fatal(err)
	}
	other := `{"kind":"submit","action_id":"` + srv.ActionID() + `","capability_id":"cap:hermes_agent:sim:chat_stream",` +
		`"session_id":"sess-OTHER-DAEMON","base_url":"https://other-aipd.example:8443"}` + "\n"
	if err := os.WriteFile(jpath, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", srv.ActionID())
	if code != 1 || strings.Contains(out+errOut, "sess-OTHER-DAEMON") || !strings.Contains(errOut, "nothing to reconcile") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if len(srv.Submissions()) != 0 {
		t.Fatal("a read was submitted")
	}
}

// reconcile reviews the action with the run's --stall-timeout: a
// synchronous run whose handler failed settles incomplete within it (it
// waited for ever before), and the operator is told it is followed.
func TestReconcileHonoursTheStallTimeout(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "sync-handler-failed", sim.Knobs{})
	start := time.Now()
	code, out, errOut := runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", "--stall-timeout", "300ms", srv.ActionID())
	if code != 1 || !strings.Contains(errOut, "nothing to reconcile") || !strings.Contains(errOut, "verdict: incomplete") {
		t.Fatalf("exit %d after %s\n%s\n%s", code, time.Since(start), out, errOut)
	}
	if !strings.Contains(errOut, "has not settled; following it") {
		t.Fatalf("not told the action is followed:\n%s", errOut)
	}
}

// reconcile stopped while it waits for the action to settle submits
// nothing, says so, exits 8, and in jsonl still ends on the verdict
// object (pending), as a stopped follow does.
func TestReconcileStoppedBeforeSettle(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "long", sim.Knobs{Speed: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	getenv, _ := stateEnv(t)
	o := &watch{conn: conn{url: srv.URL()}, g: globalFlags{output: "jsonl"}, r: runFlags{appearTimeout: time.Minute, stallTimeout: time.Minute},
		e: &runEnv{stdout: &out, stderr: &errb, getenv: getenv}}
	code := runReconcile(ctx, o, srv.ActionID(), time.Minute)
	var v map[string]any
	if code != model.ExitPending || json.Unmarshal(out.Bytes(), &v) != nil || v["verdict"] != "pending" ||
		!strings.Contains(errb.String(), "nothing was submitted") || len(srv.Submissions()) != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// A read's answer about another action or another response was taken as
// the stored state ("stored: completed", exit 0). A mismatch is an error
// (exit 1), never a stored status; the matching answer still reads.
func TestReconcileChecksTheAnswersIDs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		action func(sentAction, sentResp string) (string, string)
		ok     bool
	}{
		{"matching", func(a, r string) (string, string) { return a, r }, true},
		{"another action", func(_, r string) (string, string) { return "act_forged_elsewhere_01", r }, false},
		{"another response", func(a, _ string) (string, string) { return a, "resp_0ther0000" }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv, _ := stateEnv(t)
			s := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: "completed"}})
			h := s.Handler()
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					h.ServeHTTP(w, r)
					return
				}
				var env struct {
					MessageID string `json:"message_id"`
					Body      struct {
						Action struct {
							ID    string `json:"id"`
							Input struct {
								ResponseID string `json:"response_id"`
							} `json:"input"`
						} `json:"action"`
					} `json:"body"`
				}
				_ = json.NewDecoder(r.Body).Decode(&env)
				act, resp := c.action(env.Body.Action.ID, env.Body.Action.Input.ResponseID)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"aip_version":"1.0","in_response_to":%q,"body":{"action_result":{"action_id":%q,"status":"completed",`+
					`"output":{"id":%q,"object":"response","status":"completed"}}}}`, env.MessageID, act, resp)
			}))
			t.Cleanup(front.Close)
			code, out, errOut := runWith(getenv, "reconcile", "--url", front.URL, "--output", "plain", s.ActionID())
			if c.ok {
				if code != 0 || !strings.Contains(out, "stored: completed") {
					t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
				return
			}
			if code != 1 || strings.Contains(out, "stored: completed") || !strings.Contains(out, "about another") {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// The read's POST is sync and had no timeout: an answer that never came
// was waited for ever. --read-timeout bounds it; the read is reported
// unanswered (exit 1) and not retried.
func TestReconcileReadTimesOut(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	s := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: "completed"}})
	h := s.Handler()
	release := make(chan struct{})
	posts := make(chan struct{}, 4)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		posts <- struct{}{}
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(front.Close)
	t.Cleanup(func() { close(release) })
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runWith(getenv, "reconcile", "--url", front.URL, "--output", "plain", "--read-timeout", "200ms", s.ActionID())
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.out, "no reply to the read") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("reconcile waited for the read's answer for ever")
	}
	if len(posts) != 1 {
		t.Fatalf("%d POSTs: the read is not retried", len(posts))
	}
}

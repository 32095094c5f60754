package reconcile

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/submit"
)

// What a refused or unanswered read means (design §8: a 404 or a
// refused capability reported as what it means).
func TestReconcileInterpret(t *testing.T) {
	res := func(status, out string, code string) stream.PostOutcome {
		r := model.ActionResult{Status: status, Output: []byte(out)}
		if code != "" {
			r.Error = &model.ProtocolError{Code: code}
		}
		return stream.PostOutcome{Reply: stream.PostReply{Result: &r}}
	}
	replayed := func(o stream.PostOutcome) stream.PostOutcome { o.Reply.Replay = true; return o }
	cases := []struct {
		name    string
		op      string
		out     stream.PostOutcome
		status  string
		refused bool
		says    string
	}{
		{"404", submit.OpResponseGet, stream.PostOutcome{Err: &stream.Error{Code: stream.CodeRemoteRejected, HTTPStatus: 400}}, "not_found", false, "evicted"},
		{"session 404", submit.OpSessionGet, stream.PostOutcome{Err: &stream.Error{Code: stream.CodeRemoteRejected, HTTPStatus: 400}}, "not_found", false, "no such session"},
		{"unknown capability", submit.OpResponseGet, stream.PostOutcome{Err: &stream.Error{Code: "resource.not_found", HTTPStatus: 400}}, "", true, "does not know this capability"},
		{"not authorized", submit.OpResponseGet, stream.PostOutcome{Err: &stream.Error{Code: "auth.not_authorized", HTTPStatus: 401}}, "", true, "auth.not_authorized"},
		{"no reply", submit.OpResponseGet, stream.PostOutcome{Err: &stream.Error{Message: "connection reset"}, Uncertain: true}, "", true, "not retried"},
		{"failed read", submit.OpResponseGet, res("failed", "", "execution.mode_unsupported"), "", true, "execution.mode_unsupported"},
		{"completed", submit.OpResponseGet, res("completed", `{"id":"resp_1","status":"completed"}`, ""), "completed", false, "terminal provider object"},
		{"incomplete", submit.OpResponseGet, res("completed", `{"id":"resp_1","status":"incomplete"}`, ""), "incomplete", false, "partial output"},
		{"session", submit.OpSessionGet, res("completed", `{"id":"s"}`, ""), "stored", false, "inspect it"},
		{"replayed read", submit.OpResponseGet, replayed(res("completed", `{"id":"resp_1","status":"in_progress","idempotent_replay":true}`, "")), "in_progress", false, "an earlier read's answer, replayed"},
	}
	for _, c := range cases {
		st, meaning, refused := Interpret(c.op, c.out)
		if st != c.status || refused != c.refused || !strings.Contains(meaning, c.says) {
			t.Errorf("%s: %q %v %q", c.name, st, refused, meaning)
		}
	}
}

// The spec contradicts itself on the provider's 404 of a read
// (protocol §10: the table says HTTP 400
// connector.hermes_agent.remote_rejected, protocol §3 says 502 with a
// connector.hermes_agent.* code). The simulator follows the table;
// reconcile reads either as "not stored", and a 502 that is not a 404
// (Hermes' 429) stays a refusal. Through Post, so the error envelope is
// decoded as aipd sends it.
func TestReconcileProviderNotFoundEitherStatus(t *testing.T) {
	cases := []struct {
		name   string
		status int
		code   string
		msg    string
		stored string
		says   string // in the meaning
	}{
		{"table: 400 remote_rejected", 400, "connector.hermes_agent.remote_rejected", "Hermes returned HTTP 404", "not_found", "404"},
		{"the daemon's message", 400, "connector.hermes_agent.remote_rejected", "Hermes endpoint `ep` returned HTTP 404", "not_found", "404"},
		{"§3: 502 remote_rejected", 502, "connector.hermes_agent.remote_rejected", "not found", "not_found", "404"},
		{"§3: 502 another connector code", 502, "connector.hermes_agent.http_error", "Hermes returned HTTP 404", "not_found", "404"},
		{"502 that is no 404", 502, "connector.hermes_agent.remote_temporary", "Hermes returned HTTP 429", "", "not retried"},
		// protocol open point 8: remote_rejected is every
		// provider 4xx but 401/403/429; only a 404 means "not stored".
		{"remote_rejected of a 422", 400, "connector.hermes_agent.remote_rejected", "Hermes endpoint `ep` returned HTTP 422", "", "HTTP 422"},
		// A provider 401/403 arrives as HTTP 401: Hermes refused aipd's key.
		{"provider 401", 401, "connector.hermes_agent.authentication", "Hermes endpoint `ep` returned HTTP 401", "", "not your token"},
		{"provider 503", 503, "connector.hermes_agent.remote_temporary", "Hermes endpoint `ep` returned HTTP 503", "", "not retried"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				fmt.Fprintf(w, `{"aip_version":"1.0","message_type":"aip.core.v1.error","body":{"error":{"error":{"code":%q,"message":%q,"category":"connector"}}}}`, c.code, c.msg)
			}))
			defer srv.Close()
			cl, err := stream.New(stream.Config{BaseURL: srv.URL, ActionID: "act_read_1"})
			if err != nil {
				t.Fatal(err)
			}
			out := cl.Post(context.Background(), []byte(`{}`), true)
			if out.Uncertain || out.Err == nil || out.Err.HTTPStatus != c.status {
				t.Fatalf("%+v %+v", out, out.Err)
			}
			st, meaning, refused := Interpret(submit.OpResponseGet, out)
			if st != c.stored || refused != (c.stored == "") || !strings.Contains(meaning, c.says) {
				t.Fatalf("%q %v %q", st, refused, meaning)
			}
		})
	}
}

package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// wireCodes are the codes of protocol §7.4 with their category, then the
// others that section names as seen in the gateway and server.
var wireCodes = []struct {
	code, category string
	follow         endKind // what an aip.error frame with this code does to a follow
}{
	{"auth.native_http_unauthorized", "auth", endFatal},
	{"auth.not_authorized", "auth", endFatal},
	{"auth.tenant_required", "auth", endFatal},
	{"auth.tenant_mismatch", "auth", endFatal},
	{"auth.actor_mismatch", "auth", endFatal},
	{"auth.unverified_actor", "auth", endFatal},
	{"auth.session_mismatch", "auth", endFatal},
	{"query.invalid", "permanent", endFatal},
	{"query.invalid_cursor", "permanent", endRestart},
	{"stream.cursor_expired", "permanent", endRestart},
	{"stream.event_too_large", "permanent", endFatal}, // §8.2: category not checked
	{"stream.encode_failed", "transport", endRetry},
	{"action.not_found", "permanent", endFatal},
	{"action.result_not_ready", "temporary", endRetry},
	{"action.gone", "permanent", endFatal},
	{"action.dead_lettered", "permanent", endFatal},
	{"resource.not_found", "permanent", endFatal},
	{"runtime.handler_failed", "temporary", endRetry},
	{"storage.unavailable", "temporary", endRetry},
	{"gateway.error", "permanent", endFatal},
	// Others seen (§8.2, last paragraph); their categories are not given.
	{"replay.message_id", "permanent", endFatal},
	{"auth.signature.invalid", "auth", endFatal},
	{"capability.unsupported", "policy", endFatal},
	{"manifest.admission_failed", "policy", endFatal},
	{"schema.envelope.invalid", "permanent", endFatal},
	{"envelope.decode.invalid", "permanent", endFatal},
	{"connector_event.not_configured", "connector", endFatal},
}

// wireError is the ProtocolError the server sends for code: its message
// and details echo the bearer token, as a careless server might.
func wireError(code, category string) map[string]any {
	pe := map[string]any{
		"code": code, "message": "refused: Bearer " + testToken + " for act_1", "category": category,
		"details": map[string]any{"authorization": "Bearer " + testToken, "cursor": "aev_cursor_1_0"},
		"source":  map[string]any{"component": "aip.server.native_http"},
	}
	if category == "temporary" || category == "transport" {
		pe["retryable"] = true
		pe["retry_after_ms"] = 5
	}
	return pe
}

func envelopeOf(pe map[string]any) string {
	b, _ := json.Marshal(map[string]any{"aip_version": "1.0", "message_type": "aip.core.v1.error", "message_id": "msg_1",
		"sent_at": "2025-01-01T00:00:00Z", "body": map[string]any{"error": map[string]any{"error": pe}}})
	return string(b)
}

// oneClearLine: the line names the code, is one line, is no Go value dump
// and never holds the token.
func oneClearLine(t *testing.T, what, line, code string) {
	t.Helper()
	switch {
	case !strings.Contains(line, code):
		t.Errorf("%s: %q does not name %s", what, line, code)
	case strings.ContainsAny(line, "\n\r"):
		t.Errorf("%s: %q is not one line", what, line)
	case strings.Contains(line, "&{") || strings.Contains(line, "map[") || strings.Contains(line, "%!"):
		t.Errorf("%s: %q is a Go value dump", what, line)
	case strings.Contains(line, testToken) || strings.Contains(line, testToken[:8]):
		t.Errorf("%s: %q holds the token", what, line)
	}
}

// Every error code of protocol §7.4, as an HTTP error envelope with its
// category's status and as an aip.error frame, gives one clear line
// naming it, in the error itself and in every message that shows it.
func TestErrorCodesOneLine(t *testing.T) {
	t.Parallel()
	for _, tc := range wireCodes {
		t.Run(tc.code, func(t *testing.T) {
			status := statusFor(tc.category)
			pe := wireError(tc.code, tc.category)
			env := envelopeOf(pe)

			// The HTTP envelope on a plain request.
			f := newFake(t)
			f.result = func(int) (int, string) { return status, env }
			c, _ := New(testConfig(f))
			_, err := c.Result(context.Background())
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code || e.HTTPStatus != status {
				t.Fatalf("result: %v", err)
			}
			want := fmt.Sprintf("result: %s (HTTP %d): refused: Bearer [redacted] for act_1", tc.code, status)
			if e.Error() != want {
				t.Errorf("result: %q, want %q", e.Error(), want)
			}
			oneClearLine(t, "result", e.Error(), tc.code)

			// The same ProtocolError as an aip.error frame: the Error the
			// follow acts on, and how it ends the connection.
			frame, _ := json.Marshal(map[string]any{"error": pe})
			r := newRunner(c, SinkFunc(func(Msg) {}))
			end, done := r.handle(&Frame{Event: evError, Data: frame})
			r.batchTimer.Stop()
			if !done || end.kind != tc.follow || end.err == nil || end.err.Code != tc.code {
				t.Fatalf("frame: done=%v end %+v", done, end)
			}
			want = fmt.Sprintf("follow: %s: refused: Bearer [redacted] for act_1", tc.code)
			if end.err.Error() != want {
				t.Errorf("frame: %q, want %q", end.err.Error(), want)
			}
			oneClearLine(t, "frame", end.err.Error(), tc.code)

			// Both on a whole run: the first follow answers with the HTTP
			// envelope, the second with the frame, the rest with the canned
			// stream. Whatever message carries the error shows one clear line.
			f = newFake(t)
			f.follow = func(w http.ResponseWriter, req *http.Request, n int) {
				switch n {
				case 0:
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					w.Write([]byte(env))
				case 1:
					sseOK(w)
					write(w, "event: aip.error\ndata: "+string(frame)+"\n\n")
				default:
					stream(canned)(w, req, n)
				}
			}
			msgs, err := runWith(t, testConfig(f))
			var lines []string
			for _, m := range msgs {
				switch m := m.(type) {
				case ErrorMsg:
					lines = append(lines, m.Err.Error())
				case ReconnectingMsg:
					lines = append(lines, m.Cause)
				case RestartMsg:
					lines = append(lines, m.Code)
				}
			}
			if err != nil {
				lines = append(lines, err.Error())
			}
			if len(lines) == 0 {
				t.Fatalf("no message shows %s: %s", tc.code, summary(msgs))
			}
			for _, l := range lines {
				oneClearLine(t, "run", l, tc.code)
			}
			if s := summary(msgs); strings.Contains(s, testToken) {
				t.Errorf("token in the run's messages: %s", s)
			}
		})
	}
}

// protocol open point 8: a provider 401/403 arrives as HTTP 401
// with a connector code; it is not aipd refusing the caller's token, and
// neither is a replayed message_id (401 replay.message_id). An auth.* code,
// or a 401/403 with no AIP code (a proxy), is.
func TestDeniedReadsTheCode(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want bool
	}{
		{&Error{HTTPStatus: 401, Code: "auth.native_http_unauthorized"}, true},
		{&Error{HTTPStatus: 401, Code: "auth.not_authorized"}, true},
		{&Error{HTTPStatus: 401}, true},
		{&Error{HTTPStatus: 403}, true},
		{&Error{Code: "auth.not_authorized"}, true},
		{&Error{HTTPStatus: 401, Code: "connector.hermes_agent.authentication"}, false},
		{&Error{HTTPStatus: 401, Code: "connector.hermes_agent.missing_credential"}, false},
		{&Error{HTTPStatus: 401, Code: "replay.message_id"}, false},
		{&Error{HTTPStatus: 500}, false},
		{nil, false},
	} {
		if got := c.e.Denied(); got != c.want {
			t.Errorf("%v: Denied %v, want %v", c.e, got, c.want)
		}
	}
}

// design §14: each fleet error says what happened and what to do, in one
// line; retry_after_ms is read from the error or its details; any other
// error has no advice.
func TestFleetAdvice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code, msg string
		after     time.Duration
		details   string
		want      []string
	}{
		{model.CodeHostNotReady, "connector host is draining", 10 * time.Second, "", []string{"draining", "nothing ran", "after 10s"}},
		{model.CodeHostCapacity, "", 0, "", []string{"as many actions as it may", "in a moment"}},
		{model.CodeSchedulerOverloaded, "remote action queue is full", 0, `{"retry_after_ms":2500}`, []string{"admission queue is full", "after 2.5s"}},
		{model.CodeAdmissionCapacity, "", 0, `"tenant"`, []string{"admission limit of the fleet is exhausted (tenant)", "raise the limit"}},
		{"auth.not_authorized", "authorization failed: remote connector execution requires a verified tenant", 0, "", []string{"verified tenant", "--native-tenant-id"}},
	}
	for _, c := range cases {
		got := FleetAdvice(c.code, c.msg, c.after, json.RawMessage(c.details))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not say %q", c.code, got, w)
			}
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("%s: not one line: %q", c.code, got)
		}
	}
	for _, code := range []string{"", "auth.not_authorized", "connector.hermes_agent.transport", "action.id_conflict"} {
		if got := FleetAdvice(code, "bad token", 0, nil); got != "" {
			t.Errorf("%s: advice %q for an error that is not the fleet's", code, got)
		}
	}
}

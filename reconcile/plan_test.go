package reconcile

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/submit"
)

// chatAction is a Chat turn read from its chunks only (no result yet, so
// no final verdict): content, then a finish whose hermes object carries
// session (none when ""), then [DONE].
func chatAction(t *testing.T, id, session string) *model.Action {
	t.Helper()
	hermes := ""
	if session != "" {
		hermes = `,"hermes":{"completed":true,"session_id":"` + session + `"}`
	}
	frame := func(seq int, data string) string {
		return `{"action_id":"` + id + `","sequence":` + strconv.Itoa(seq) + `,"kind":"data","data":{"hermes_sse":{"data":` + data + `,"terminal":false}}}`
	}
	chunks := []string{
		frame(0, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}`),
		frame(1, `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]`+hermes+`}`),
		`{"action_id":"` + id + `","sequence":2,"kind":"done","data":{"hermes_sse":{"data":"[DONE]","raw_data":"[DONE]","terminal":true}}}`,
	}
	a := model.NewAction(id)
	for _, raw := range chunks {
		c, err := model.DecodeChunk([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.IngestChunk(c, time.Unix(0, 0)); got != model.Applied {
			t.Fatalf("chunk %d: %v", c.Sequence, got)
		}
	}
	if a.Operation() != submit.OpChat {
		t.Fatalf("the fixture reads as %q, not Chat", a.Operation())
	}
	return a
}

// What a read reads (design §8): a Chat turn's session from its finish
// chunk, at the endpoint its status names, also when the turn has no final
// verdict yet (so the model offers no reconciliation of its own); else
// the journal's session, at the journal's capability's endpoint.
func TestPlanFromChatSessionAndEndpoint(t *testing.T) {
	a := chatAction(t, "act_p1", "sess_finish")
	a.SetStatus(model.ActionStatus{ActionID: "act_p1", CapabilityID: "cap:hermes_agent:ep_status:" + submit.OpChat})
	p, err := PlanFrom("act_p1", a, journal.Entry{})
	want := Plan{Of: "act_p1", Op: submit.OpSessionGet, Target: "sess_finish", CapID: "cap:hermes_agent:ep_status:" + submit.OpSessionGet}
	if err != nil || p != want {
		t.Fatalf("plan %+v (%v), want %+v", p, err, want)
	}

	// No session in the stream, no status: the journal's session and
	// capability.
	b := chatAction(t, "act_p2", "")
	orig := journal.Entry{ActionID: "act_p2", CapabilityID: "cap:hermes_agent:ep_journal:" + submit.OpChat, SessionID: "sess_journal"}
	p, err = PlanFrom("act_p2", b, orig)
	want = Plan{Of: "act_p2", Op: submit.OpSessionGet, Target: "sess_journal", CapID: "cap:hermes_agent:ep_journal:" + submit.OpSessionGet}
	if err != nil || p != want {
		t.Fatalf("plan %+v (%v), want %+v", p, err, want)
	}
}

// Nothing to read: the error says which part is missing, and the verdict.
func TestPlanFromSaysWhatIsMissing(t *testing.T) {
	cases := []struct {
		name string
		a    *model.Action
		says string
	}{
		{"a session but no endpoint", chatAction(t, "act_m1", "sess_1"), "the endpoint of the original action is unknown"},
		{"a Chat turn without a session", chatAction(t, "act_m2", ""), "no Hermes session_id was captured"},
		{"nothing known of the action", model.NewAction("act_m3"), "neither is known"},
	}
	for _, c := range cases {
		_, err := PlanFrom(c.a.ID, c.a, journal.Entry{})
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "nothing to reconcile for "+c.a.ID) {
			t.Errorf("%s: %v, want it to say %q", c.name, err, c.says)
		}
	}
	// A Responses capability in the journal, no response.id captured.
	_, err := PlanFrom("act_m4", model.NewAction("act_m4"), journal.Entry{CapabilityID: "cap:hermes_agent:ep:" + submit.OpResponses})
	if err == nil || !strings.Contains(err.Error(), "no response.id was captured") {
		t.Errorf("a Responses turn without its response.id: %v", err)
	}
}

// The outcome's line names the read's own action when there is one.
func TestResultLineNamesTheRead(t *testing.T) {
	r := Result{Op: submit.OpResponseGet, Target: "resp_1", StoredStatus: "completed", Meaning: "m", ActionID: "act_read"}
	if got, want := r.Line(false), "stored: completed (response_get of resp_1 by act_read; the verdict is unchanged): m"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	r.ActionID, r.StoredStatus = "", ""
	if got, want := r.Line(true), "stored: no answer (response_get of "; !strings.HasPrefix(got, want) || strings.Contains(got, " by ") || strings.Contains(got, "resp_1") {
		t.Errorf("line %q, want it to start %q, name no read and mask the target", got, want)
	}
}

// A refused read is journalled twice: the read before its POST, then its
// outcome, "refused" with aipd's code (design §8: the journal holds what
// every read did).
func TestReadJournalsTheRefusalsCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"aip_version":"1.0","message_type":"aip.core.v1.error","body":{"error":{"error":{"code":"auth.not_authorized","message":"no","category":"auth"}}}}`)
	}))
	defer srv.Close()
	cl, err := stream.NewDaemon(stream.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(t.TempDir(), "journal.jsonl")
	p := Plan{Of: "act_of", Op: submit.OpResponseGet, Target: "resp_1", CapID: "cap:hermes_agent:ep:" + submit.OpResponseGet}
	res := Read(context.Background(), Daemon{Client: cl, BaseURL: srv.URL}, jpath, p)
	if !res.Refused {
		t.Fatalf("a 401 read was not refused: %+v", res)
	}
	entries, err := journal.Read(jpath)
	if err != nil || len(entries) != 2 {
		t.Fatalf("journal: %+v (%v), want the read and its outcome", entries, err)
	}
	if last := entries[1]; last.Kind != journal.KindReconcile || last.Reply != "refused" || last.Code != "auth.not_authorized" || last.ActionID != res.ActionID {
		t.Fatalf("the outcome's line %+v", last)
	}
}

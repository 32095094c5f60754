package submit

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

const (
	chatCap = "cap:hermes_agent:ep:chat_stream"
	respCap = "cap:hermes_agent:ep:responses_stream"
)

func lines(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// Each input rule of the guide (§3, §4, §11), as design §6.1 lists them:
// one line per problem, errors and warnings apart.
func TestCheckRules(t *testing.T) {
	cases := []struct {
		name, capID, input string
		errs               int
		warns              int
		says               string
	}{
		{"chat ok", chatCap, `{"messages":[{"role":"user","content":"hi"}],"session_id":"s","max_events":512}`, 0, 0, ""},
		{"chat no messages", chatCap, `{"session_id":"s"}`, 1, 0, "needs a messages array, or a prompt or query"},
		// protocol open point 4: aipd takes exactly one of
		// messages, prompt and query.
		{"chat prompt", chatCap, `{"prompt":"hi","session_id":"s"}`, 0, 0, ""},
		{"chat query", chatCap, `{"query":"hi","session_id":"s"}`, 0, 0, ""},
		{"chat prompt and messages", chatCap, `{"prompt":"hi","messages":[{}],"session_id":"s"}`, 1, 0, "exactly one of"},
		{"chat empty prompt", chatCap, `{"prompt":"","session_id":"s"}`, 1, 0, "prompt must be a non-empty string"},
		{"chat query not string", chatCap, `{"query":7,"session_id":"s"}`, 1, 0, "query must be a non-empty string"},
		{"chat empty messages", chatCap, `{"messages":[],"session_id":"s"}`, 1, 0, "messages is empty"},
		{"chat messages not array", chatCap, `{"messages":"hi","session_id":"s"}`, 1, 0, "must be an array"},
		{"chat message not object", chatCap, `{"messages":["hi"],"session_id":"s"}`, 1, 0, "messages[0] is not an object"},
		{"chat no session_id", chatCap, `{"messages":[{"role":"user","content":"hi"}]}`, 0, 1, "no session_id"},
		{"chat body", chatCap, `{"messages":[{}],"session_id":"s","body":{}}`, 0, 1, "responses_stream shape"},
		{"low max_events", chatCap, `{"messages":[{}],"session_id":"s","max_events":255}`, 0, 1, "below 256"},
		{"max_events 256 fine", chatCap, `{"messages":[{}],"session_id":"s","max_events":256}`, 0, 0, ""},
		{"bad max_events", chatCap, `{"messages":[{}],"session_id":"s","max_events":0}`, 1, 0, "positive integer"},
		{"max_events string", chatCap, `{"messages":[{}],"session_id":"s","max_events":"9"}`, 1, 0, "positive integer"},
		{"not an object", chatCap, `[1]`, 1, 0, "must be a JSON object"},
		{"not JSON", chatCap, `{"messages":`, 1, 0, "not valid JSON"},
		{"responses ok", respCap, `{"body":{"input":"x","store":true},"session_key":"k","max_events":512}`, 0, 0, ""},
		{"responses no body", respCap, `{"input":"x","store":true}`, 0, 0, ""}, // open point 4: body optional
		{"responses no body, no store", respCap, `{"input":"x"}`, 0, 1, "store is not true"},
		{"responses body not object", respCap, `{"body":"x"}`, 1, 0, "body must be a JSON object"},
		{"responses max_events in body", respCap, `{"body":{"input":"x","store":true,"max_events":512}}`, 1, 0, "max_events is a connector control"},
		{"responses session_key in body", respCap, `{"body":{"input":"x","store":true,"session_key":"k"}}`, 1, 0, "session_key is a connector control"},
		{"responses messages at top", respCap, `{"body":{"input":"x","store":true},"messages":[]}`, 0, 1, "chat_stream shape"},
		{"conversation + previous_response_id", respCap, `{"body":{"input":"x","store":true,"conversation":"c","previous_response_id":"r"}}`, 1, 0, "combines conversation"},
		{"conversation top + previous body", respCap, `{"body":{"input":"x","store":true,"previous_response_id":"r"},"conversation":"c"}`, 1, 0, "combines conversation"},
		{"store missing", respCap, `{"body":{"input":"x"}}`, 0, 1, "store is not true"},
		{"store false", respCap, `{"body":{"input":"x","store":false}}`, 0, 1, "nothing will be stored"},
		{"other capability unchecked", "cap:other:thing", `{"anything":1}`, 0, 0, ""},
		{"hermes non-stream unchecked", "cap:hermes_agent:ep:response_get", `{"response_id":"r"}`, 0, 0, ""},
		{"other capability still JSON", "cap:other:thing", `nope`, 1, 0, "not valid JSON"},
	}
	for _, c := range cases {
		ps := Check(c.capID, []byte(c.input))
		errs, warns := 0, 0
		for _, p := range ps {
			if p.Severity == Error {
				errs++
			} else {
				warns++
			}
			if strings.ContainsAny(p.Text, "\n\r") {
				t.Errorf("%s: a problem spans lines: %q", c.name, p.Text)
			}
		}
		if errs != c.errs || warns != c.warns || (c.says != "" && !strings.Contains(lines(ps), c.says)) {
			t.Errorf("%s: %d errors %d warnings, want %d/%d with %q:\n%s", c.name, errs, warns, c.errs, c.warns, c.says, lines(ps))
		}
		if HasErrors(ps) != (c.errs > 0) {
			t.Errorf("%s: HasErrors wrong", c.name)
		}
	}
}

func TestContinuityOf(t *testing.T) {
	c := ContinuityOf([]byte(`{"messages":[{"role":"user","content":"SECRET"}],"session_id":"s1","session_key":"k1"}`))
	if c != (Continuity{SessionID: "s1", SessionKey: "k1"}) {
		t.Fatalf("%+v", c)
	}
	c = ContinuityOf([]byte(`{"body":{"input":"SECRET","previous_response_id":"resp_1","conversation":{"id":"conv_1","items":["SECRET"]}},"session_key":"k"}`))
	if c != (Continuity{SessionKey: "k", PreviousResponseID: "resp_1", Conversation: "conv_1"}) {
		t.Fatalf("%+v", c)
	}
	b, _ := json.Marshal(c)
	if bytes.Contains(b, []byte("SECRET")) {
		t.Fatal("continuity holds input text")
	}
}

func TestUUIDv7(t *testing.T) {
	now := time.UnixMilli(0x0123456789ab)
	u, err := UUIDv7(now, bytes.NewReader(bytes.Repeat([]byte{0xff}, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if len(u) != 32 || u[:12] != "0123456789ab" || u[12] != '7' || !strings.ContainsRune("89ab", rune(u[16])) {
		t.Fatalf("%s", u)
	}
	id, err := NewActionID(time.Now(), rand.Reader)
	if err != nil || !strings.HasPrefix(id, "act_") || len(id) != 36 {
		t.Fatalf("%q %v", id, err)
	}
	id2, _ := NewActionID(time.Now(), rand.Reader)
	if id == id2 {
		t.Fatal("two equal IDs")
	}
	if _, err := UUIDv7(now, bytes.NewReader(nil)); err == nil {
		t.Fatal("no error without randomness")
	}
}

// The envelope of protocol §1.1: required fields, the action with its ID,
// capability, input, mode and idempotency key.
func TestEnvelope(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	b, err := Envelope(Request{ActionID: "act_1", CapabilityID: chatCap, Input: json.RawMessage(`{"messages":[{}]}`),
		Mode: ModeAsync, IdempotencyKey: "k"}, "msg_1", at)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"aip_version":"1.0","message_type":"aip.core.v1.action","message_id":"msg_1","sent_at":"2030-01-02T03:04:05.006Z",` +
		`"from":{"id":"agent:aipwatch","kind":"agent"},"body":{"action":{"id":"act_1","capability_id":"cap:hermes_agent:ep:chat_stream",` +
		`"input":{"messages":[{}]},"mode":"async","idempotency_key":"k"}}}`
	if string(b) != want {
		t.Fatalf("\n got %s\nwant %s", b, want)
	}
	b, _ = Envelope(Request{ActionID: "act_2", CapabilityID: "cap:x"}, "msg_2", at)
	if !bytes.Contains(b, []byte(`"input":{}`)) || bytes.Contains(b, []byte(`"mode"`)) || bytes.Contains(b, []byte("idempotency_key")) {
		t.Fatalf("%s", b)
	}
}

func TestIDRules(t *testing.T) {
	for _, bad := range []string{"act_", "run_1", "act_a b", "act_a/b"} {
		if CheckActionID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if CheckActionID("act_ok_1") != nil {
		t.Error("act_ok_1 refused")
	}
	for _, bad := range []string{"cap:", "chat_stream", "cap:a b"} {
		if CheckCapability(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	ep, op, ok := Capability("cap:hermes_agent:my:ep:responses_stream")
	if !ok || ep != "my:ep" || op != OpResponses {
		t.Fatalf("%q %q %v", ep, op, ok)
	}
	if ReconcileKey("act_1", OpResponseGet) == ReconcileKey("act_2", OpResponseGet) {
		t.Fatal("reconcile keys of two actions are equal")
	}
}

// design §14: streaming is the default of the Hermes stream capabilities
// (their expected_completion), async of any other; --mode wins; every
// choice says why.
func TestChooseMode(t *testing.T) {
	cases := []struct {
		capID, given, want, why string
	}{
		{chatCap, "", ModeStreaming, "chat_stream's expected completion"},
		{respCap, "", ModeStreaming, "responses_stream's expected completion"},
		{"cap:hermes_agent:ep:response_get", "", ModeAsync, "the default"},
		{"cap:other:thing", "", ModeAsync, "the default"},
		{chatCap, "async", ModeAsync, "--mode"},
		{chatCap, "sync", ModeSync, "--mode"},
		{"cap:other:thing", "streaming", ModeStreaming, "--mode"},
	}
	for _, c := range cases {
		got := ChooseMode(c.capID, c.given)
		if got.Mode != c.want || !strings.Contains(got.Why, c.why) {
			t.Errorf("ChooseMode(%s, %q) = %+v, want %s (%s)", c.capID, c.given, got, c.want, c.why)
		}
	}
}

func TestCheckModeAndHeld(t *testing.T) {
	for _, m := range []string{"async", "sync", "streaming"} {
		if err := CheckMode(m); err != nil {
			t.Errorf("CheckMode(%q) = %v", m, err)
		}
	}
	for _, m := range []string{"", "Streaming", "stream", "batch"} {
		if err := CheckMode(m); err == nil || !strings.Contains(err.Error(), "async, sync or streaming") {
			t.Errorf("CheckMode(%q) = %v, want a refusal naming the three modes", m, err)
		}
	}
	// A streaming POST is held open like a sync one (protocol §1.2).
	if !Held("sync") || !Held("streaming") || Held("async") || Held("") {
		t.Error("Held: want sync and streaming held open, async and none not")
	}
}

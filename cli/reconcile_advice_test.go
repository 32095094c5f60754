package cli

import (
	"strings"
	"testing"
)

// A failed Chat turn whose finish carries no session: the session_id of
// the submitted input (the journal keeps it) is the one to read (design
// §8), in the closing lines of the submit and of a later follow.
func TestChatAdviceNamesTheSubmittedSession(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_advice_chat_01"
	srv := awaitSim(t, "chat-error", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 4 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, run := range []string{out, followPlain(t, getenv, srv.URL(), id)} {
		if !strings.Contains(run, "reconcile: Hermes session sess-ops-1") || !strings.Contains(run, "inspect the Hermes session") {
			t.Fatalf("the advice does not name the submitted session:\n%s", run)
		}
	}
}

func followPlain(t *testing.T, getenv func(string) string, url, id string) string {
	t.Helper()
	code, out, errOut := runWith(getenv, "--url", url, "--output", "plain", id)
	if code != 4 {
		t.Fatalf("follow: exit %d\n%s\n%s", code, out, errOut)
	}
	return out
}

// With no session anywhere, a failed Chat turn never advises a reconcile
// that aipwatch reconcile would refuse, and the refusal says what Chat
// lacks (not Responses' body.store).
func TestChatAdviceWithoutSession(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	id := "act_test_advice_chat_02"
	srv := awaitSim(t, "chat-error", id, jpath)
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id,
		"cap:hermes_agent:sim:chat_stream", "--input", `{"messages":[{"role":"user","content":"hi"}]}`)
	if code != 4 {
		t.Fatalf("submit: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "reconcile: no Hermes session_id was captured or submitted, so the session cannot be read back") ||
		strings.Contains(out, "reconcile the original action") {
		t.Fatalf("advice:\n%s", out)
	}
	code, out, errOut = runWith(getenv, "reconcile", "--url", srv.URL(), "--output", "plain", id)
	if code != 1 || !strings.Contains(errOut, "no Hermes session_id was captured") || strings.Contains(errOut, "body.store") {
		t.Fatalf("reconcile: exit %d\n%s\n%s", code, out, errOut)
	}
}

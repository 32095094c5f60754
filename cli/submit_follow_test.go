package cli

import (
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"aipwatch/journal"
	"aipwatch/safe"
	"aipwatch/sim"
)

// caFile writes a CA certificate to a file (any certificate will do where
// no TLS is spoken: --cacert is still read and must be valid).
func caFile(t *testing.T) string {
	t.Helper()
	ts := httptest.NewTLSServer(nil)
	ts.Close()
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The follow command submit prints before it sends (design §6.2) keeps
// what the run needs to reach aipd and to stay private: --token-file,
// --cacert, --redact. Pasted into a shell it follows the same action: the
// daemon refuses a follow without the token.
func TestSubmitFollowCommandKeepsTheRunsFlags(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := caFile(t)
	id := "act_test_submit_follow_01"
	srv := startSim(t, "chat-tools", sim.Knobs{Token: "s3cret-token", Submit: sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(jpath)}})
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--token-file", tok, "--cacert", ca, "--redact",
		"--output", "jsonl", "--action-id", id, "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var first struct{ Type, Follow string }
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first); err != nil || first.Type != "submit" {
		t.Fatalf("the first line is not the submit object (%v):\n%s", err, out)
	}
	words := shellWords(t, first.Follow)
	for _, want := range [][]string{{"--token-file", tok}, {"--cacert", ca}, {"--redact"}, {"--output", "jsonl"}} {
		i := slices.Index(words, want[0])
		if i < 0 || (len(want) == 2 && (i+1 >= len(words) || words[i+1] != want[1])) {
			t.Errorf("the follow command lacks %q: %q", want, words)
		}
	}
	if words[len(words)-1] != id {
		t.Fatalf("the follow command does not end on the action ID: %q", words)
	}
	// Run as printed (its argv[0] is the binary's): it reaches the action.
	code, out, errOut = runWith(getenv, words[1:]...)
	if code != 0 || !strings.Contains(out, `"verdict":"verified"`) {
		t.Fatalf("the printed follow command: exit %d\n%s\n%s", code, out, errOut)
	}
	if entries, _ := journal.Read(jpath); len(entries) == 0 || entries[0].TokenSource != "file:"+tok {
		t.Fatalf("journal: %+v", entries)
	}
}

// --dry-run --redact prints the envelope with its input masked, in plain
// and in jsonl alike: the prompt never reaches the output.
func TestSubmitDryRunRedactsTheInputInEveryOutput(t *testing.T) {
	t.Parallel()
	getenv, jpath := stateEnv(t)
	for _, mode := range []string{"plain", "jsonl"} {
		code, out, errOut := runWith(getenv, "submit", "--dry-run", "--redact", "--output", mode, "--url", "http://127.0.0.1:1",
			"cap:hermes_agent:sim:chat_stream", "--input", chatInput)
		if code != 0 || strings.Contains(out+errOut, "SECRET-PROMPT") || !strings.Contains(out, `"input":"`+safe.Masked+`"`) {
			t.Errorf("%s: exit %d\n%s\n%s", mode, code, out, errOut)
		}
		if mode == "jsonl" && !strings.HasPrefix(out, `{"type":"dry_run",`) {
			t.Errorf("jsonl: %s", out)
		}
	}
	if _, err := os.Stat(jpath); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote the journal")
	}
}

// --mode sync holds the POST open until the stream ends, with no bound:
// with the async bound shortened far below the run's length, the sync
// POST still gets its result (an async bound on it would cut it off and
// leave the submission uncertain). The run lasts about 30 times the bound
// (Speed 10: 0.6 s; a loaded machine only makes it longer).
func TestSubmitSyncPostIsNotBoundedLikeAsync(t *testing.T) {
	saved := asyncPostTimeout
	asyncPostTimeout = 20 * time.Millisecond
	t.Cleanup(func() { asyncPostTimeout = saved })
	getenv, jpath := stateEnv(t)
	id := "act_test_submit_sync_long_01"
	srv := startSim(t, "chat-tools", sim.Knobs{Speed: 10, PollInterval: 5 * time.Millisecond,
		Submit: sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(jpath)}})
	code, out, errOut := runWith(getenv, "submit", "--url", srv.URL(), "--output", "plain", "--action-id", id, "--mode", "sync",
		"--appear-timeout", "5s", "cap:hermes_agent:sim:chat_stream", "--input", chatInput)
	if code != 0 || !strings.Contains(out, "verdict: verified") || strings.Contains(out, "no reply to the submission") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	subs := srv.Submissions()
	entries, _ := journal.Read(jpath)
	if len(subs) != 1 || subs[0].Mode != "sync" || subs[0].Reply != "result:completed" ||
		len(entries) < 2 || entries[1].Kind != journal.KindReply || entries[1].Reply != "result:completed" {
		t.Fatalf("the sync POST did not get its result:\nsubmissions %+v\njournal %+v", subs, entries)
	}
}

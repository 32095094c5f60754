package cli

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/sim"
)

// The token rule is by value (design §5): no 12 characters of any token
// aipwatch knows of are written, whatever field carries them. Each test
// has tokens of its own: safe.Protect holds a token for the life of the
// process, so a token another test loaded would hide a leak here.

// A token in the URL's query (or beside a user:password@) is not printed
// in the "carries credentials" error, nor in submit's follow command,
// both written before any request.
func TestTokenInTheURLIsNotWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(tok string) string {
		p := filepath.Join(dir, tok[:8])
		if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const creds = "tokU-31f9a0c2b7e4d8651a" // beside a user:password@
	code, out, errOut := runCLI(t, "--url", "https://ops:pw@127.0.0.1:1/?k="+creds, "--token-file", write(creds), "--output", "plain", "act_1")
	if sub, leaked := leak12(out+errOut, creds); leaked || code != 2 || !strings.Contains(errOut, "carries credentials") {
		t.Errorf("user:password@ error: exit %d, %q of the token in %q", code, sub, out+errOut)
	}
	const query = "tokQ-8e2d5c4b1a09f7e3c6" // in the query of a URL submit prints
	getenv, _ := stateEnv(t)
	code, out, errOut = runWith(getenv, "submit", "--url", "http://127.0.0.1:1/?k="+query, "--token-file", write(query), "--output", "plain",
		"--action-id", "act_byvalue_1", "cap:hermes_agent:ep:chat_stream", "--input", chatInput)
	if sub, leaked := leak12(out+errOut, query); leaked || !strings.Contains(out, "follow it with:") {
		t.Errorf("submit: exit %d, %q of the token in\n%s%s", code, sub, out, errOut)
	}
}

// A URL that carries credentials shows none of its query's values in the
// error, though no token file was given (nothing Protected): the token in
// user:password@ is often in the query too, under any name.
func TestTokenInTheURLIsNotWrittenWithoutATokenFile(t *testing.T) {
	t.Parallel()
	tok := fmt.Sprintf("tokN-%016x", rand.Uint64())
	for _, url := range []string{
		"http://u:" + tok + "@127.0.0.1:1/?k=" + tok,
		"http://" + tok + "@127.0.0.1:1/?k=" + tok,
		"http://127.0.0.1:1/?access_token=" + tok + "&k=" + tok,
	} {
		code, out, errOut := runCLI(t, "ls", "--url", url)
		if sub, leaked := leak12(out+errOut, tok); leaked || code != 2 || !strings.Contains(errOut, "carries") {
			t.Errorf("%s: exit %d, %q of the token in %q", url, code, sub, out+errOut)
		}
	}
}

// --replay reads no daemon, but a token given (--token-file, a context)
// is scrubbed from what the recording holds, as in a live run.
func TestReplayScrubsTheTokenGiven(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"--token-file", "--context"} {
		// The recording must hold the echo, so no earlier run may have
		// protected a 12-character piece of the token: each run of the
		// test (-count) has tokens of its own.
		tok := fmt.Sprintf("tokR-%016x%08x", rand.Uint64(), rand.Uint32())
		srv := startSim(t, "chat-tools", sim.Knobs{EchoToken: tok})
		f := newContextFixture(t, "")
		rec := filepath.Join(f.dir, "run.jsonl")
		// The run that records knows no token: the echo lands in the file.
		if code, out, errOut := f.run("--url", srv.URL(), "--output", "jsonl", "--record", rec, srv.ActionID()); code != 0 {
			t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
		}
		if b, _ := os.ReadFile(rec); !strings.Contains(string(b), tok) {
			t.Fatalf("the recording holds no echo of the token")
		}
		tokFile := f.write(t, "tok", tok+"\n")
		f.write(t, "aipwatch/config.toml", fmt.Sprintf("[contexts.rec]\nurl = %q\ntoken_file = %q\n", srv.URL(), tokFile))
		args := []string{"--replay", rec, "--output", "jsonl", "--token-file", tokFile}
		if via == "--context" {
			args = []string{"--replay", rec, "--output", "jsonl", "--context", "rec"}
		}
		code, out, errOut := f.run(args...)
		if sub, leaked := leak12(out+errOut, tok); leaked || code != 0 || !strings.Contains(out, "[token]") {
			t.Errorf("%s: exit %d, %q of the token written:\n%s%s", via, code, sub, out, errOut)
		}
	}
}

// ls --context a scrubs every token the config file names, not only a's:
// daemon a may echo b's.
func TestListScrubsEveryContextsToken(t *testing.T) {
	t.Parallel()
	const tokA, tokB = "tokA-6d3f0b9e2c1a84-ls", "tokB-e97a2c5d10f3b8-ls"
	a := newAuthLog(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"actions":[{"action_id":"act_echo_1","capability_id":"cap:hermes_agent:%s:chat_stream","state":"completed",`+
			`"result_status":"completed","updated_at":"2026-01-02T03:04:05Z"}],"total_size":1,"cursor":""}`, tokB)
	})
	f := newContextFixture(t, "")
	f.write(t, "a.token", tokA+"\n")
	f.write(t, "b.token", tokB+"\n")
	f.write(t, "aipwatch/config.toml", fmt.Sprintf(`[contexts.a]
url = %q
token_file = "~/a.token"
[contexts.b]
url = "http://127.0.0.1:1"
token_file = "~/b.token"
`, a.srv.URL))
	for _, mode := range []string{"plain", "jsonl"} {
		code, out, errOut := f.run("ls", "--context", "a", "--output", mode)
		if sub, leaked := leak12(out+errOut, tokB); leaked || code != 0 || !strings.Contains(out, "act_echo_1") {
			t.Errorf("%s: exit %d, %q of b's token written:\n%s%s", mode, code, sub, out, errOut)
		}
	}
}

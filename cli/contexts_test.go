package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// contextFixture is a config home with a config file and token files.
type contextFixture struct {
	dir string
	env map[string]string
}

func newContextFixture(t *testing.T, config string) *contextFixture {
	t.Helper()
	dir := t.TempDir()
	f := &contextFixture{dir: dir, env: map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir, "XDG_STATE_HOME": dir}}
	if err := os.MkdirAll(filepath.Join(dir, "aipwatch"), 0o700); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		f.write(t, "aipwatch/config.toml", config)
	}
	return f
}

func (f *contextFixture) write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *contextFixture) getenv(k string) string { return f.env[k] }

// run runs aipwatch with the fixture's environment.
func (f *contextFixture) run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(""), &out, &errb, f.getenv, testKeys())
	return code, out.String(), errb.String()
}

const twoContexts = `current = "prod"
[contexts.prod]
url = "https://aipd.prod.example:8443"
token_file = "~/prod.token"
cacert = "~/prod-ca.pem"
[contexts.staging]
url = "http://127.0.0.1:8080"
token_file = "staging.token"
`

// Flags and the AIP_* variables win over the context, field by field; the
// context fills the rest; no file is the behaviour without contexts.
func TestContextPrecedence(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, twoContexts)
	cases := []struct {
		name                   string
		args                   []string
		env                    map[string]string
		url, tokenFile, cacert string
		ctx                    string
	}{
		{"current", nil, nil, "https://aipd.prod.example:8443", f.dir + "/prod.token", f.dir + "/prod-ca.pem", "prod"},
		{"--context", []string{"--context", "staging"}, nil, "http://127.0.0.1:8080", f.dir + "/aipwatch/staging.token", "", "staging"},
		{"$AIPWATCH_CONTEXT", nil, map[string]string{"AIPWATCH_CONTEXT": "staging"}, "http://127.0.0.1:8080", f.dir + "/aipwatch/staging.token", "", "staging"},
		{"--context wins over $AIPWATCH_CONTEXT", []string{"--context", "prod"}, map[string]string{"AIPWATCH_CONTEXT": "staging"}, "https://aipd.prod.example:8443", f.dir + "/prod.token", f.dir + "/prod-ca.pem", "prod"},
		// A URL that names another daemon takes none of the context's
		// credentials: its token is for its own URL.
		{"--url of another daemon: no context", []string{"--url", "https://other.example"}, nil, "https://other.example", "", "", ""},
		{"$AIP_URL of another daemon: no context", nil, map[string]string{"AIP_URL": "https://env.example"}, "https://env.example", "", "", ""},
		{"--url of the context's daemon", []string{"--url", "https://aipd.prod.example:8443/"}, nil, "https://aipd.prod.example:8443/", f.dir + "/prod.token", f.dir + "/prod-ca.pem", "prod"},
		{"$AIP_TOKEN_FILE wins", nil, map[string]string{"AIP_TOKEN_FILE": "/env/tok"}, "https://aipd.prod.example:8443", "/env/tok", f.dir + "/prod-ca.pem", "prod"},
		{"--token-file and --cacert win", []string{"--token-file", "/f/tok", "--cacert", "/f/ca"}, nil, "https://aipd.prod.example:8443", "/f/tok", "/f/ca", "prod"},
		{"$AIP_TOKEN wins over the context's file", nil, map[string]string{"AIP_TOKEN": "t"}, "https://aipd.prod.example:8443", "", f.dir + "/prod-ca.pem", "prod"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := func(k string) string {
				if v, ok := c.env[k]; ok {
					return v
				}
				return f.getenv(k)
			}
			o, _, err := parse(append(c.args, "act_1"), io.Discard, env)
			if err != nil {
				t.Fatal(err)
			}
			if o.w.conn.ctx.Err != nil {
				t.Fatal(o.w.conn.ctx.Err)
			}
			if o.w.conn.url != c.url || o.w.conn.tokenFile != c.tokenFile || o.w.conn.cacert != c.cacert || o.w.conn.ctx.Name != c.ctx {
				t.Errorf("got url %q token %q cacert %q context %q\nwant url %q token %q cacert %q context %q",
					o.w.conn.url, o.w.conn.tokenFile, o.w.conn.cacert, o.w.conn.ctx.Name, c.url, c.tokenFile, c.cacert, c.ctx)
			}
		})
	}
	t.Run("no file", func(t *testing.T) {
		none := newContextFixture(t, "")
		o, _, err := parse([]string{"act_1"}, io.Discard, none.getenv)
		if err != nil || o.w.conn.ctx.Err != nil || o.w.conn.ctx.Name != "" || o.w.conn.url != "http://127.0.0.1:8080" || o.w.conn.tokenFile != "" {
			t.Fatalf("%v %+v", err, o)
		}
	})
}

// A context that cannot be used stops every command that talks to aipd,
// with an error that names the context and the key.
func TestContextErrorsNameContextAndKey(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, `[contexts.prod]
url = "http://127.0.0.1:1"
token_file = "missing.token"
[contexts.ca]
url = "https://127.0.0.1:1"
cacert = "/nonexistent/ca.pem"
`)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--context", "prod", "--output", "plain", "act_1"}, []string{"context prod: token_file:", "missing.token"}},
		{[]string{"--context", "ca", "--output", "plain", "act_1"}, []string{"context ca: cacert:", "/nonexistent/ca.pem"}},
		{[]string{"ls", "--context", "prod"}, []string{"context prod: token_file:"}},
		{[]string{"reconcile", "--context", "prod", "act_1"}, []string{"context prod: token_file:"}},
	}
	for _, c := range cases {
		code, out, errOut := f.run(c.args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s%s", c.args, code, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%v: %q lacks %q", c.args, out+errOut, w)
			}
		}
	}
	// A context the file does not have is a usage error (exit 2), as in
	// `contexts use`: named by --context, by CONTEXT/act_…, for any command.
	for _, args := range [][]string{{"--context", "nope", "--output", "plain", "act_1"}, {"--output", "plain", "nope/act_1"},
		{"--output", "plain", "act_1", "nope/act_2"}, {"ls", "--context", "nope"}, {"reconcile", "--context", "nope", "act_1"}} {
		code, out, errOut := f.run(args...)
		if code != 2 || !strings.Contains(errOut, `no such context "nope"`) || !strings.Contains(errOut, "ca, prod") {
			t.Errorf("%v: exit %d, want 2 naming the contexts\n%s%s", args, code, out, errOut)
		}
	}
	// --context with no config file at all.
	none := newContextFixture(t, "")
	if code, _, errOut := none.run("--context", "prod", "--output", "plain", "act_1"); code != 1 || !strings.Contains(errOut, "there is no config file") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// The resume command names the context and repeats none of what it gives.
func TestResumeCommandNamesTheContext(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, twoContexts)
	o, _, err := parse([]string{"--context", "staging", "act_1"}, io.Discard, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	cmd := resumeCommand(o, "aev_cursor_3_2")
	if !strings.Contains(cmd, "--context staging") || strings.Contains(cmd, "--url") || strings.Contains(cmd, "--token-file") {
		t.Fatalf("resume command %q", cmd)
	}
	o, _, _ = parse([]string{"--context", "staging", "--token-file", "/f/tok", "act_1"}, io.Discard, f.getenv)
	if cmd := resumeCommand(o, ""); !strings.Contains(cmd, "--context staging") || !strings.Contains(cmd, "--token-file /f/tok") || strings.Contains(cmd, "--url") {
		t.Fatalf("a flag that won over the context is kept: %q", cmd)
	}
}

// authLog is a daemon that records the Authorization header of each
// request and answers the list route with an empty list.
type authLog struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
}

func newAuthLog(t *testing.T, h http.HandlerFunc) *authLog {
	l := &authLog{}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Get("Authorization"))
		l.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"actions":[],"total_size":0,"cursor":""}`)
	}))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *authLog) auths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

const (
	tokenA = "tokA-5b7f19e2c4d08a6f3e21"
	tokenB = "tokB-90c3e6a1f47b2d58c1e0"
)

// aipwatch contexts probes each daemon with its own token only, follows
// no redirect to another daemon with it, marks the current one, shows a
// daemon that is down as one row with its error, and writes no piece of
// any token.
func TestContextsCommandTokensStayWithTheirDaemon(t *testing.T) {
	t.Parallel()
	a := newAuthLog(t, nil)
	b := newAuthLog(t, nil)
	// c redirects every request to b: b must never see c's token.
	c := newAuthLog(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.srv.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
	f := newContextFixture(t, "")
	f.write(t, "a.token", tokenA+"\n")
	f.write(t, "b.token", tokenB+"\n")
	f.write(t, "c.token", "tokC-77aa0f3b5c1d9e2468ff\n")
	f.write(t, "aipwatch/config.toml", fmt.Sprintf(`current = "a"
[contexts.a]
url = %q
token_file = "~/a.token"
[contexts.b]
url = %q
token_file = "~/b.token"
[contexts.c]
url = %q
token_file = "~/c.token"
[contexts.down]
url = "http://127.0.0.1:1"
`, a.srv.URL, b.srv.URL, c.srv.URL))
	for _, mode := range []string{"plain", "jsonl"} {
		code, out, errOut := f.run("contexts", "--output", mode)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", mode, code, out, errOut)
		}
		for _, tok := range []string{tokenA, tokenB, "tokC-77aa0f3b5c1d9e2468ff"} {
			if sub, leaked := leak12(out+errOut, tok); leaked {
				t.Errorf("%s: %q of a token written", mode, sub)
			}
		}
		if mode == "plain" {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 5 || !strings.HasPrefix(lines[1], "* a ") || !strings.Contains(lines[1], " ok") ||
				!strings.Contains(lines[4], "down") || !strings.Contains(lines[4], "connection refused") {
				t.Errorf("table:\n%s", out)
			}
		} else if !strings.Contains(out, `"name":"a","current":true`) || !strings.Contains(out, `"name":"down","current":false,"url":"http://127.0.0.1:1","token_file":"","cacert":"","reachable":false`) {
			t.Errorf("jsonl:\n%s", out)
		}
	}
	for _, got := range a.auths() {
		if got != "Bearer "+tokenA {
			t.Errorf("a saw %q", got)
		}
	}
	for _, got := range b.auths() {
		if got != "Bearer "+tokenB && got != "" {
			t.Errorf("b saw another context's token: %q", got)
		}
	}
	if len(a.auths()) == 0 || len(c.auths()) == 0 {
		t.Fatalf("not probed: a %d, c %d requests", len(a.auths()), len(c.auths()))
	}
}

// ls --all-contexts lists every context's daemon, each row marked with its
// context; a daemon that is down is one line on stderr and exit 1, never
// hiding the others.
func TestListAllContexts(t *testing.T) {
	t.Parallel()
	urls := consoleDaemons(t, 2)
	f := newContextFixture(t, fmt.Sprintf(`[contexts.east]
url = %q
[contexts.west]
url = %q
[contexts.down]
url = "http://127.0.0.1:1"
`, urls[0], urls[1]))
	code, out, errOut := f.run("ls", "--all-contexts", "--output", "jsonl")
	if code != 1 {
		t.Fatalf("a daemon down: exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "context down:") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("stderr does not name the context that failed:\n%s", errOut)
	}
	per := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			Context string `json:"context"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		per[row.Context]++
	}
	if per["east"] == 0 || per["east"] != per["west"] || per[""] != 0 || per["down"] != 1 {
		t.Errorf("rows per context: %v", per)
	}
	code, out, _ = f.run("ls", "--all-contexts")
	if lines := strings.Split(out, "\n"); code != 1 || !strings.HasPrefix(lines[0], "CONTEXT") || !strings.Contains(out, "east ") || !strings.Contains(out, "west ") {
		t.Errorf("table (exit %d):\n%s", code, out)
	}
	if code, _, errOut := f.run("ls", "--all-contexts", "--url", urls[0]); code != 2 || !strings.Contains(errOut, "--url") {
		t.Errorf("--url with --all-contexts: exit %d %s", code, errOut)
	}
	if code, _, errOut := newContextFixture(t, "").run("ls", "--all-contexts"); code != 1 || !strings.Contains(errOut, "no contexts") {
		t.Errorf("no config file: exit %d %s", code, errOut)
	}
}

// The console reads every context at once when the config file has several
// and nothing names one daemon; --context, $AIPWATCH_CONTEXT, --url or
// $AIP_URL name one.
func TestConsoleAcrossContextsWhenNothingNamesOne(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, twoContexts)
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "prod,staging"},
		{[]string{"--context", "staging"}, nil, ""},
		{nil, map[string]string{"AIPWATCH_CONTEXT": "prod"}, ""},
		{[]string{"--url", "http://127.0.0.1:9"}, nil, ""},
		{nil, map[string]string{"AIP_URL": "http://127.0.0.1:9"}, ""},
	}
	for _, c := range cases {
		env := func(k string) string {
			if v, ok := c.env[k]; ok {
				return v
			}
			return f.getenv(k)
		}
		o, _, err := parse(c.args, io.Discard, env)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(consoleContexts(o), ","); got != c.want {
			t.Errorf("%v %v: %q, want %q", c.args, c.env, got, c.want)
		}
	}
	one := newContextFixture(t, "[contexts.only]\nurl = \"http://127.0.0.1:9\"\n")
	o, _, _ := parse(nil, io.Discard, one.getenv)
	if got := consoleContexts(o); got != nil {
		t.Errorf("one context: %v", got)
	}
}

// One context's allow_insecure_http opens no other context to plain http,
// and a demo reads no config file.
func TestContextsStayApart(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, `current = "lab"
[contexts.lab]
url = "http://lab.example:8080"
allow_insecure_http = true
[contexts.prod]
url = "http://prod.example:8080"
token_file = "/t"
`)
	o, _, err := parse([]string{"act_1"}, io.Discard, f.getenv)
	if err != nil || !o.w.conn.allowInsecureHTTP {
		t.Fatalf("lab allows http: %v %v", err, o.w.conn.allowInsecureHTTP)
	}
	prod := forContext(o.w.g.cf, "prod", f.getenv)
	if prod.allowInsecureHTTP || checkURL(prod.url, prod.allowInsecureHTTP) == nil {
		t.Errorf("prod took lab's allow_insecure_http: %v", prod.allowInsecureHTTP)
	}
	demo, _, _ := parse([]string{"--demo=console"}, io.Discard, f.getenv)
	if demo.w.conn.ctx.Name != "" || consoleContexts(demo) != nil {
		t.Errorf("a demo read the config: %q", demo.w.conn.ctx.Name)
	}
	// --context with a --url of another daemon: the context is not used,
	// and the command says so.
	code, _, errOut := f.run("--context", "prod", "--url", "http://127.0.0.1:1", "--output", "plain", "--appear-timeout", "100ms", "act_1")
	if code != 1 || !strings.Contains(errOut, "context prod is not used") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

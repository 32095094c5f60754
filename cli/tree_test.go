package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/model"
)

// The global flags are taken before or after the command (design §11):
// `aipwatch --context west ls` is `aipwatch ls --context west`, each
// reaching west's daemon with west's token.
func TestGlobalFlagsBeforeOrAfterTheCommand(t *testing.T) {
	t.Parallel()
	east, west := newAuthLog(t, nil), newAuthLog(t, nil)
	f := newContextFixture(t, "")
	f.write(t, "east.token", tokenA+"\n")
	f.write(t, "west.token", tokenB+"\n")
	f.write(t, "aipwatch/config.toml", fmt.Sprintf(`current = "east"
[contexts.east]
url = %q
token_file = "~/east.token"
[contexts.west]
url = %q
token_file = "~/west.token"
`, east.srv.URL, west.srv.URL))
	for _, args := range [][]string{
		{"--context", "west", "ls"},
		{"ls", "--context", "west"},
		{"--context=west", "--output", "jsonl", "ls"},
		{"--output", "jsonl", "ls", "--context", "west"},
	} {
		before := len(west.auths())
		code, out, errOut := f.run(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		seen := west.auths()[before:]
		if len(seen) == 0 || seen[0] != "Bearer "+tokenB {
			t.Errorf("%v: west saw %q", args, seen)
		}
	}
	if n := len(east.auths()); n != 0 {
		t.Errorf("east was read %d times", n)
	}
}

// A word that is not act_… is a verb; an unknown one is a usage error on
// stderr (nothing on stdout) that names the nearest command.
func TestUnknownVerbSuggests(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"submt":     "did you mean submit?",
		"lst":       "did you mean ls?",
		"context":   "did you mean contexts?",
		"reconcle":  "did you mean reconcile?",
		"frobnicat": "(an ACTION_ID starts with act_)",
	}
	for word, want := range cases {
		code, out, errOut := runCLI(t, word)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", word, code, out, errOut)
		}
	}
	// list is ls.
	if code, _, errOut := runCLI(t, "list", "--url", "http://127.0.0.1:1"); code != model.ExitError || !strings.Contains(errOut, "hint: is aipd running") {
		t.Errorf("list: exit %d %s", code, errOut)
	}
}

// A value aipwatch can check is checked before any request, and the error
// names the valid values.
func TestValuesCheckedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	d := newAuthLog(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", "--state", "bogus"}, "dead_lettered"},
		{[]string{"ls", "--state", "running", "--state", "verified"}, "pending_approval"},
		{[]string{"ls", "--output", "xml"}, "tui, plain, jsonl"},
		{[]string{"ls", "--since", "soon"}, "--since"},
		{[]string{"--output", "tuii", "act_1"}, "tui, plain, jsonl"},
		{[]string{"reconcile", "--read-timeout", "-1s", "act_1"}, "--read-timeout"},
		{[]string{"submit", "--mode", "later", "cap:hermes_agent:ep:chat_stream", "--input", "{}"}, "async, sync or streaming"},
	} {
		code, out, errOut := runCLI(t, append(c.args, "--url", d.srv.URL)...)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errOut)
		}
	}
	if n := len(d.auths()); n != 0 {
		t.Errorf("%d requests for usage errors", n)
	}
}

// Every command has its own flags: one that is not its own is unknown
// (exit 2), with no list of refused flags anywhere.
func TestEachCommandItsOwnFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"ls", "--cancel"},
		{"ls", "--record", "x"},
		{"submit", "--replay", "x"},
		{"contexts", "--limit", "3"},
		{"reconcile", "--notify", "act_1"},
	} {
		code, out, errOut := runCLI(t, args...)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "unknown flag: "+args[1]) {
			t.Errorf("%v: exit %d %q %q", args, code, out, errOut)
		}
	}
}

// contexts use NAME rewrites current and keeps every other byte; a name
// the file lacks is a usage error and leaves the file as it was.
func TestContextsUse(t *testing.T) {
	t.Parallel()
	const body = "# my daemons\n# current = \"old\" was staging\ncurrent = \"prod\"   # the default\n\n[contexts.prod]\nurl = \"https://p.example\"\n" +
		"[contexts.staging]\nurl = \"http://127.0.0.1:8080\"\n"
	f := newContextFixture(t, body)
	path := filepath.Join(f.dir, "aipwatch", "config.toml")
	code, out, errOut := f.run("contexts", "use", "staging")
	if code != 0 || !strings.Contains(out, "staging") {
		t.Fatalf("exit %d %q %q", code, out, errOut)
	}
	got, _ := os.ReadFile(path)
	if want := strings.Replace(body, `current = "prod"`, `current = "staging"`, 1); string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if o, _, err := parse([]string{"act_1"}, nil, f.getenv); err != nil || o.w.conn.ctx.Name != "staging" {
		t.Errorf("the next run's context: %v %+v", err, o)
	}
	before, _ := os.ReadFile(path)
	code, out, errOut = f.run("contexts", "use", "nope")
	after, _ := os.ReadFile(path)
	if code != model.ExitUsage || out != "" || !strings.Contains(errOut, `"nope"`) || !strings.Contains(errOut, "prod, staging") || string(before) != string(after) {
		t.Errorf("unknown name: exit %d %q %q; file changed: %v", code, out, errOut, string(before) != string(after))
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files left beside the config: %v", entries)
	}
	// A file with no current gets one, at the top.
	g := newContextFixture(t, "[contexts.a]\nurl = \"http://127.0.0.1:1\"\n")
	if code, _, errOut := g.run("contexts", "use", "a"); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(g.dir, "aipwatch", "config.toml")); string(got) != "current = \"a\"\n[contexts.a]\nurl = \"http://127.0.0.1:1\"\n" {
		t.Errorf("added current:\n%s", got)
	}
}

// reconcile reads a settled action from its beginning: --cursor is not
// one of its flags, so it is a usage error, not silently ignored, and
// nothing is sent.
func TestReconcileRefusesCursor(t *testing.T) {
	t.Parallel()
	d := newAuthLog(t, nil)
	code, out, errOut := runCLI(t, "reconcile", "--url", d.srv.URL, "--output", "plain", "--cursor", "aev_cursor_1_0", "act_1")
	if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "unknown flag: --cursor") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if n := len(d.auths()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

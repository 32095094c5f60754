package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"aipwatch/model"
	"aipwatch/sim"
)

func noEnv(string) string { return "" }

// startSim runs one scenario instantly (Speed 0) with fast polling.
func startSim(t *testing.T, scenario string, k sim.Knobs) *sim.Server {
	t.Helper()
	if k.PollInterval == 0 {
		k.PollInterval = 5 * time.Millisecond
	}
	srv, err := sim.New(scenario, k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(args, strings.NewReader(""), &out, &errb, noEnv, testKeys())
	return code, out.String(), errb.String()
}

func lastJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var obj map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, out)
	}
	return obj
}

// Every scenario ends on its verdict and exit code (design §3).
func TestScenarioVerdictsAndExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		scenario string
		verdict  string
		exit     int
	}{
		{"chat-tools", "verified", 0},
		{"chat-length", "partial", 3},
		{"chat-error", "failed", 4},
		{"chat-crash", "failed", 4},
		{"chat-unterminated", "incomplete", 6},
		{"chat-truncated", "truncated", 5},
		{"responses-tools", "verified", 0},
		{"responses-failed", "failed", 4},
		{"late-cancel", "verified", 0},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			srv := startSim(t, c.scenario, sim.Knobs{})
			code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
			v := lastJSON(t, out)
			if v["type"] != "verdict" || v["verdict"] != c.verdict || code != c.exit {
				t.Fatalf("verdict %v exit %d (want %s/%d)\nstderr: %s\n%s", v["verdict"], code, c.verdict, c.exit, errOut, out)
			}
		})
	}
}

func TestPlainEndsWithVerdictLine(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{})
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", srv.ActionID())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.HasPrefix(lines[len(lines)-1], "verdict: verified (") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Fatal("escape sequence in plain output")
	}
}

// --cancel on a long action: exactly one cancel POST, verdict cancelled.
func TestCancelFlag(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "long", sim.Knobs{Speed: 20})
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--cancel", srv.ActionID())
	if v := lastJSON(t, out); v["verdict"] != "cancelled" || code != model.ExitCancelled {
		t.Fatalf("verdict %v exit %d\n%s", v["verdict"], code, out)
	}
	if n := srv.CancelCount(); n != 1 {
		t.Fatalf("%d cancel requests, want 1", n)
	}
}

// A late cancel is accepted but the outcome stays completed: "too late".
func TestLateCancelSaysTooLate(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "late-cancel", sim.Knobs{})
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", "--cancel", srv.ActionID())
	if code != 0 || !strings.Contains(out, "too late") || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// --demo=late-cancel shows what it describes: the demo sends the cancel
// while the turn still streams, the turn completes anyway, and the cancel
// lands after the result: accepted, too late, verified.
func TestDemoLateCancelIsLate(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "--demo=late-cancel", "--output", "plain")
	if code != model.ExitVerified {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, errOut, out)
	}
	sent := strings.Index(out, "cancel: cancel requested\n")
	text := strings.Index(out, "All done — nothing else to do ✅")
	late := strings.Index(out, "cancel: cancel came too late: the action had already completed\n")
	verdict := strings.Index(out, "verdict: verified (")
	if sent < 0 || text < sent || late < text || verdict < late {
		t.Fatalf("want the cancel sent, the turn finished, the cancel too late, verified, in that order:\n%s", out)
	}
}

func TestUnknownActionIsAnError(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{})
	// A short --appear-timeout: the wait itself is TestUnknownIDGivesUpAfterAppearTimeout's.
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--appear-timeout", "300ms", "act_nobody_home")
	v := lastJSON(t, out)
	if code != model.ExitError || v["type"] != "error" {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestBadTokenNamesTheCode(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Token: "right"})
	tok := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tok, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "--url", srv.URL(), "--token-file", tok, "--output", "jsonl", srv.ActionID())
	v := lastJSON(t, out)
	if code != model.ExitError || v["code"] != "auth.native_http_unauthorized" {
		t.Fatalf("exit %d: %s", code, out)
	}
	if strings.Contains(out, "wrong") {
		t.Fatal("the token appeared in the output")
	}
	// The right token works, and a world-readable file gets a warning.
	if err := os.WriteFile(tok, []byte("right\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tok, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--token-file", tok, "--output", "jsonl", srv.ActionID())
	if code != 0 || !strings.Contains(errOut, "readable by group or others") {
		t.Fatalf("exit %d stderr %q\n%s", code, errOut, out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"not_an_action"},
		{"--output", "xml", "act_1"},
		{},
		// Several actions (design §12): four at most, each an action's
		// word, once; the flags of one action's run refuse them.
		{"act_1", "act_2", "act_3", "act_4", "act_5"},
		{"act_1", "nope"},
		{"act_1", "act_1"},
		{"--cursor", "aev_1", "act_1", "act_2"},
		{"--cancel", "act_1", "act_2"},
		{"--export", "x.md", "act_1", "act_2"},
		{"--url", "http://example.com:8080", "act_1", "act_2"},
		{"--url", "http://example.com:8080", "act_1"},
		{"--url", "ftp://127.0.0.1", "act_1"},
		{"--demo=nope"},
		{"--no-such-flag"},
	}
	for _, args := range cases {
		code, _, errOut := runCLI(t, args...)
		if code != model.ExitUsage || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
	code, out, _ := runCLI(t, "--output=jsonl", "bad")
	if v := lastJSON(t, out); code != model.ExitUsage || v["code"] != "usage" {
		t.Errorf("jsonl usage error: %d %s", code, out)
	}
}

func TestURLRules(t *testing.T) {
	t.Parallel()
	ok := []string{"http://127.0.0.1:8080", "http://localhost", "http://[::1]:9", "https://aipd.example.com"}
	for _, u := range ok {
		if err := checkURL(u, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	if err := checkURL("http://10.0.0.5", false); err == nil {
		t.Error("plain http to a non-loopback host allowed")
	}
	if err := checkURL("http://10.0.0.5", true); err != nil {
		t.Error("--allow-insecure-http ignored")
	}
	// host:port without a scheme: the input is shown, with the fix
	// (http:// for a loopback host, TestURLWithoutSchemeSuggestsByHost).
	for _, in := range []string{"127.0.0.1:8080", "u:pw@aipd.internal:8443"} {
		err := checkURL(in, false)
		host := in[strings.LastIndex(in, "@")+1:]
		if err == nil || !strings.Contains(err.Error(), "://"+host) || strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: %v", in, err)
		}
	}
	if got := redactURL("https://user:pw@h/x"); strings.Contains(got, "pw") {
		t.Errorf("credentials kept: %s", got)
	}
}

func TestEnvironmentDefaults(t *testing.T) {
	t.Parallel()
	env := map[string]string{"AIP_URL": "https://e.example", "AIP_TOKEN_FILE": "/t", "AIP_ACTION_ID": "act_env"}
	o, _, err := parse(nil, &bytes.Buffer{}, func(k string) string { return env[k] })
	if err != nil || o.w.conn.url != "https://e.example" || o.w.conn.tokenFile != "/t" || o.targets[0].id != "act_env" {
		t.Fatalf("%+v %v", o, err)
	}
	env = map[string]string{"GETAIP_NATIVE_BEARER_TOKEN_FILE": "/g"}
	o, _, _ = parse([]string{"act_x"}, &bytes.Buffer{}, func(k string) string { return env[k] })
	if o.w.conn.tokenFile != "/g" || o.w.conn.url != "http://127.0.0.1:8080" {
		t.Fatalf("%+v", o)
	}
}

func TestResumeCommandQuotesAndHasNoToken(t *testing.T) {
	defer func(f func() string) { argv0 = f }(argv0)
	argv0 = func() string { return "aipwatch" }
	o := &watch{conn: conn{url: "http://u:secret@127.0.0.1:1", tokenFile: "/run/my token"}, r: runFlags{rawCapMiB: defaultRawCapMiB, reason: defaultReason}}
	got := o.resume("aev_cursor_3_2", "act_1")
	want := `aipwatch --url http://127.0.0.1:1 --token-file '/run/my token' --cursor aev_cursor_3_2 act_1`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// Contract §2.8: the resume command carries every flag the run needs, and
// names the binary as invoked.
func TestResumeCommandCarriesTheRunsFlags(t *testing.T) {
	defer func(f func() string) { argv0 = f }(argv0)
	argv0 = func() string { return "./bin/aipwatch" }
	dir := t.TempDir()
	args := []string{"--url", "http://10.0.0.7:8080", "--allow-insecure-http", "--token-file", "tok",
		"--cacert", filepath.Join(dir, "ca.pem"), "--redact", "--output", "plain", "--record", "run.jsonl",
		"--no-color", "--raw-cap-mib", "8", "--reason", "ops: stop", "--export", "x.md", "act_42"}
	o, _, err := parse(args, &bytes.Buffer{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	got := resumeCommand(o, "aev_cursor_9_9")
	want := "./bin/aipwatch --url http://10.0.0.7:8080 --token-file " + filepath.Join(cwd, "tok") +
		" --cacert " + filepath.Join(dir, "ca.pem") + " --allow-insecure-http --redact --output plain --no-color" +
		" --record " + filepath.Join(cwd, "run.jsonl") + " --raw-cap-mib 8 --reason 'ops: stop' --cursor aev_cursor_9_9 act_42"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The printed command parses back to the same run.
	back, _, err := parse(strings.Fields(strings.ReplaceAll(strings.TrimPrefix(got, "./bin/aipwatch "), "'ops: stop'", "ops:stop")),
		&bytes.Buffer{}, func(string) string { return "" })
	if err != nil || !back.w.g.redact || !back.w.conn.allowInsecureHTTP || back.w.g.output != "plain" || back.w.conn.cacert == "" ||
		back.w.r.record == "" || back.f.cursor != "aev_cursor_9_9" || back.targets[0].id != "act_42" || back.w.r.export != "" {
		t.Fatalf("resume command does not parse back: %+v %v", back, err)
	}

	// A binary `go run` built is named aipwatch: it is gone after the
	// run, and go run reports any non-zero exit as 1.
	cache := t.TempDir()
	t.Setenv("GOCACHE", cache)
	for _, p := range []string{
		filepath.Join(os.TempDir(), "go-build1234", "b001", "exe", "aipwatch"), // go 1.23
		filepath.Join(cache, "3f", "3f9a2b-d", "aipwatch"),                     // go 1.24 on: the build cache
	} {
		argv0 = func() string { return p }
		if got := invokedAs(); got != "aipwatch" {
			t.Errorf("go run binary %s named %q", p, got)
		}
	}
	argv0 = func() string { return "/opt/my tools/aipwatch" }
	if got := invokedAs(); got != "'/opt/my tools/aipwatch'" {
		t.Errorf("path with a space: %q", got)
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "--help")
	for _, want := range []string{"--token-file FILE", "--redact", "chat-tools", "Exit codes", "Examples:", "--demo[=SCENARIO]"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	// --help fits 80 columns, says no [=true|false], names no
	// internal knob, and describes every demo scenario in operator words.
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("help line %d is %d columns: %q", i+1, n, l)
		}
	}
	for _, bad := range []string{"[=true|false]", "FirehoseN", " string ", " int ", " float "} {
		if strings.Contains(out, bad) {
			t.Errorf("help contains %q", bad)
		}
	}
	fs := newRoot(&runEnv{getenv: noEnv}).Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(out, "--"+f.Name) {
			t.Errorf("help lacks --%s", f.Name)
		}
	})
	for _, s := range sim.Scenarios() {
		if demoHelp[s] == "" {
			t.Errorf("demo scenario %s has no help line", s)
		}
	}
	if code, out, _ := runCLI(t, "--version"); code != 0 || !strings.HasPrefix(out, "aipwatch ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// Record a live run, replay it: the same jsonl verdict object, text included,
// in every scenario (issue: review, record and replay).
func TestRecordThenReplayGivesTheSameVerdict(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"chat-tools", "chat-length", "chat-error", "chat-crash", "chat-unterminated",
		"chat-truncated", "responses-tools", "responses-failed", "late-cancel", "long"} {
		t.Run(scenario, func(t *testing.T) {
			k := sim.Knobs{Speed: 50}
			args := []string{}
			if scenario == "long" {
				args = append(args, "--cancel")
			}
			srv := startSim(t, scenario, k)
			rec := filepath.Join(t.TempDir(), "run.jsonl")
			code, live, _ := runCLI(t, append(args, "--url", srv.URL(), "--output", "jsonl", "--record", rec, srv.ActionID())...)
			fi, err := os.Stat(rec)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("recording %v mode %v", err, fi.Mode())
			}
			rcode, replayed, rerr := runCLI(t, "--replay", rec, "--output", "jsonl")
			lv, rv := lastJSON(t, live), lastJSON(t, replayed)
			if code != rcode || !equalJSON(lv, rv) {
				t.Fatalf("live exit %d, replay exit %d (%s)\nlive:   %v\nreplay: %v", code, rcode, rerr, lv, rv)
			}
			// plain replays agree too
			_, plain, _ := runCLI(t, "--replay", rec, "--output", "plain")
			if !strings.Contains(plain, "verdict: "+lv["verdict"].(string)+" (") {
				t.Fatalf("plain replay: %s", plain)
			}
		})
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// The finished-action path (review by paging) gives the same verdict object
// as a live follow of the same scenario.
func TestReviewOfFinishedActionMatchesLive(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"chat-tools", "responses-tools", "chat-truncated"} {
		live := startSim(t, scenario, sim.Knobs{Speed: 50})
		_, lout, _ := runCLI(t, "--url", live.URL(), "--output", "jsonl", live.ActionID())
		done := startSim(t, scenario, sim.Knobs{Finished: true})
		_, rout, _ := runCLI(t, "--url", done.URL(), "--output", "jsonl", done.ActionID())
		if !strings.Contains(rout, `{"type":"review"}`) {
			t.Fatalf("%s: no review line:\n%s", scenario, rout)
		}
		lv, rv := lastJSON(t, lout), lastJSON(t, rout)
		delete(lv, "cursor") // the two servers' logs differ in length (live polling)
		delete(rv, "cursor")
		// Nor do their clocks: the live one plays the script at 50x, the
		// finished one at once (TestReviewGivesTheLiveTiming compares the
		// times of one action).
		delete(lv, "timing")
		delete(rv, "timing")
		if !equalJSON(lv, rv) {
			t.Fatalf("%s:\nlive:   %v\nreview: %v", scenario, lv, rv)
		}
	}
}

// A corrupt or truncated line is reported with its line number and
// skipped; the rest still counts. A recording cut mid-stream is pending.
func TestReplayOfDamagedRecordings(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Speed: 50}) // live: chunk frames spread over the file
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--record", rec, srv.ActionID())
	b, _ := os.ReadFile(rec)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")

	damaged := append([]string{}, lines[:5]...)
	damaged = append(damaged, `{"type":"frame","at":"2026-`, "not json at all")
	damaged = append(damaged, lines[5:]...)
	path := filepath.Join(t.TempDir(), "damaged.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(damaged, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "--replay", path, "--output", "jsonl")
	if code != 0 || lastJSON(t, out)["verdict"] != "verified" {
		t.Fatalf("damaged replay: exit %d\n%s", code, out)
	}
	if !strings.Contains(errOut, "line 6: corrupt") || !strings.Contains(errOut, "line 7: corrupt") {
		t.Fatalf("line numbers not reported: %q", errOut)
	}

	// Cut in the middle of the stream, mid-line: pending, exit 8, all text kept so far.
	cut := strings.Join(lines[:len(lines)/2], "\n") + "\n" + lines[len(lines)/2][:10]
	if err := os.WriteFile(path, []byte(cut), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "--replay", path, "--output", "jsonl")
	if v := lastJSON(t, out); code != model.ExitPending || v["verdict"] != "pending" || v["text"] == "" {
		t.Fatalf("cut replay: exit %d %v", code, v)
	}
	// Its resume line names the daemon the recording came from, not the
	// default URL.
	if !strings.Contains(errOut, "resume with: ") || !strings.Contains(errOut, "--url "+srv.URL()+" ") {
		t.Fatalf("cut replay resume line: %q", errOut)
	}
	// In plain too the last line on stdout is the verdict (design §4);
	// what to do next goes to stderr.
	code, out, errOut = runCLI(t, "--replay", path, "--output", "plain")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != model.ExitPending || !strings.HasPrefix(lines[len(lines)-1], "verdict: pending") ||
		!strings.Contains(errOut, "the recording ends before the action settled") || !strings.Contains(errOut, "resume with: ") {
		t.Fatalf("cut plain replay: exit %d\nstdout ends %q\nstderr %q", code, lines[len(lines)-1], errOut)
	}
	if code, _, errOut := runCLI(t, "--replay", "/nonexistent/x.jsonl"); code != model.ExitError || errOut == "" {
		t.Fatalf("missing file: %d %q", code, errOut)
	}
}

// A redacted recording and export hold none of the scenario's content,
// and the redacted recording still replays to the same verdict word.
func TestRedactedRecordAndExport(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "responses-tools", sim.Knobs{})
	dir := t.TempDir()
	rec, md := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.md")
	_, out, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--redact", "--record", rec, "--export", md, srv.ActionID())
	// The unredacted truth, to know what must not appear.
	_, truth, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
	v := lastJSON(t, truth)
	secrets := []string{"notes/todo.txt", "Buy café", v["response_id"].(string)}
	for _, tool := range v["tools"].([]any) {
		secrets = append(secrets, tool.(map[string]any)["id"].(string))
	}
	if text, _ := v["text"].(string); len(text) > 12 {
		secrets = append(secrets, text[:12])
	}
	if len(secrets) < 6 {
		t.Fatalf("scenario lacks the content this test needs: %v", secrets)
	}
	for _, f := range []string{rec, md} {
		b, _ := os.ReadFile(f)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains %q", filepath.Base(f), s)
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("redacted jsonl contains %q", s)
		}
	}
	_, replayed, _ := runCLI(t, "--replay", rec, "--output", "jsonl")
	if lastJSON(t, replayed)["verdict"] != v["verdict"] {
		t.Fatalf("redacted replay verdict %v, live %v", lastJSON(t, replayed)["verdict"], v["verdict"])
	}
}

// A token in --url's query string was printed in the resume command,
// journalled in base_url and echoed by a usage error (only the bearer
// token is scrubbed). Such a URL is refused, and the refusal does not
// show the value.
func TestURLRefusesACredentialInTheQuery(t *testing.T) {
	t.Parallel()
	const secret = "QUERYSECRET0123456789"
	for _, u := range []string{
		"https://aipd.example/?token=" + secret,
		"https://aipd.example:8443/aip?region=eu&access_token=" + secret,
		"http://127.0.0.1:8080/?API_KEY=" + secret,
		"https://aipd.example/?x-api-key=" + secret,
		"https://aipd.example/?auth=" + secret,
		"https://aipd.example/?sig=" + secret,
		"aipd.example:8443/?token=" + secret, // no scheme: the fix is shown, not the query
	} {
		for _, args := range [][]string{{"--url", u, "--output", "plain", "act_1"}, {"ls", "--url", u}, {"reconcile", "--url", u, "--output", "plain", "act_1"}} {
			getenv, _ := stateEnv(t)
			code, out, errOut := runWith(getenv, args...)
			if code != model.ExitUsage || strings.Contains(out+errOut, secret) {
				t.Errorf("%q: exit %d\n%s\n%s", args, code, out, errOut)
			}
		}
	}
	if err := checkURL("https://aipd.example/?region=eu", false); err != nil {
		t.Errorf("a harmless query refused: %v", err)
	}
	// A URL that carries a credential shows no query value at all (the
	// token may be under any name too); one that carries none, all of it.
	if got := redactURL("https://aipd.example/?region=eu&token=" + secret); got != "https://aipd.example/?region=…" {
		t.Errorf("redactURL: %s", got)
	}
	if got := redactURL("https://aipd.example/?region=eu"); got != "https://aipd.example/?region=eu" {
		t.Errorf("redactURL: %s", got)
	}
}

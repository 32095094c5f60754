package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	code = run(args, strings.NewReader(""), &out, &errb, noEnv)
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

// Every scenario ends on its verdict and exit code (contract §3).
func TestScenarioVerdictsAndExitCodes(t *testing.T) {
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
	srv := startSim(t, "late-cancel", sim.Knobs{})
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", "--cancel", srv.ActionID())
	if code != 0 || !strings.Contains(out, "too late") || !strings.Contains(out, "verdict: verified") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestUnknownActionIsAnError(t *testing.T) {
	srv := startSim(t, "chat-tools", sim.Knobs{})
	code, out, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "act_nobody_home")
	v := lastJSON(t, out)
	if code != model.ExitError || v["type"] != "error" {
		t.Fatalf("exit %d: %s", code, out)
	}
}

func TestBadTokenNamesTheCode(t *testing.T) {
	srv := startSim(t, "chat-tools", sim.Knobs{Token: "right"})
	tok := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(tok, []byte("wrong\n"), 0o600)
	code, out, _ := runCLI(t, "--url", srv.URL(), "--token-file", tok, "--output", "jsonl", srv.ActionID())
	v := lastJSON(t, out)
	if code != model.ExitError || v["code"] != "auth.native_http_unauthorized" {
		t.Fatalf("exit %d: %s", code, out)
	}
	if strings.Contains(out, "wrong") {
		t.Fatal("the token appeared in the output")
	}
	// The right token works, and a world-readable file gets a warning.
	os.WriteFile(tok, []byte("right\n"), 0o644)
	os.Chmod(tok, 0o644)
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--token-file", tok, "--output", "jsonl", srv.ActionID())
	if code != 0 || !strings.Contains(errOut, "readable by group or others") {
		t.Fatalf("exit %d stderr %q\n%s", code, errOut, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{"not_an_action"},
		{"--output", "xml", "act_1"},
		{},
		{"act_1", "act_2"},
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
	if got := redactURL("https://user:pw@h/x"); strings.Contains(got, "pw") {
		t.Errorf("credentials kept: %s", got)
	}
}

func TestEnvironmentDefaults(t *testing.T) {
	env := map[string]string{"AIP_URL": "https://e.example", "AIP_TOKEN_FILE": "/t", "AIP_ACTION_ID": "act_env"}
	o, _, err := parse(nil, &bytes.Buffer{}, func(k string) string { return env[k] })
	if err != nil || o.url != "https://e.example" || o.tokenFile != "/t" || o.actionID != "act_env" {
		t.Fatalf("%+v %v", o, err)
	}
	env = map[string]string{"GETAIP_NATIVE_BEARER_TOKEN_FILE": "/g"}
	o, _, _ = parse([]string{"act_x"}, &bytes.Buffer{}, func(k string) string { return env[k] })
	if o.tokenFile != "/g" || o.url != "http://127.0.0.1:8080" {
		t.Fatalf("%+v", o)
	}
}

func TestResumeCommandQuotesAndHasNoToken(t *testing.T) {
	o := &options{url: "http://u:secret@127.0.0.1:1", tokenFile: "/run/my token", actionID: "act_1"}
	got := resumeCommand(o, "aev_cursor_3_2")
	want := `aipwatch --url http://127.0.0.1:1 --token-file '/run/my token' --cursor aev_cursor_3_2 act_1`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestHelpAndVersion(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	for _, want := range []string{"--token-file", "--redact", "chat-tools", "Exit codes"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if code, out, _ := runCLI(t, "--version"); code != 0 || !strings.HasPrefix(out, "aipwatch ") {
		t.Errorf("version: %d %q", code, out)
	}
}

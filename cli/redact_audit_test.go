package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"aipwatch/record"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// contentKeys hold prompts, outputs, tool arguments and results, provider
// IDs and error details in the Hermes frames and the result.
var contentKeys = map[string]bool{
	"content": true, "delta": true, "text": true, "arguments": true, "label": true, "message": true,
	"id": true, "item_id": true, "call_id": true, "toolCallId": true, "reasoning_content": true,
	"reason": true, "error": true, "details": true,
}

// secretsOf collects the content strings of an unredacted recording.
func secretsOf(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set := map[string]bool{}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				walk(k, val)
			}
		case []any:
			for _, val := range x {
				walk(key, val)
			}
		case string:
			// Strings too short or too generic would match by accident.
			// Text deltas are often single words that aipwatch's own notes
			// use too ("upstream"): only longer ones are distinctive.
			minLen := 8
			if key == "label" || key == "arguments" {
				minLen = 5
			}
			if key == "delta" || key == "content" || key == "text" {
				minLen = 14
			}
			if contentKeys[key] && len(strings.TrimSpace(x)) >= minLen && !strings.HasPrefix(x, "evt_") &&
				!strings.HasPrefix(x, "act_") && !strings.HasPrefix(x, "aev_") {
				set[strings.TrimSpace(x)] = true
			}
			if strings.HasPrefix(x, "{") { // JSON inside a string: raw_data, arguments
				var inner any
				if json.Unmarshal([]byte(x), &inner) == nil {
					walk(key, inner)
				}
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var l record.Line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		var v any
		if l.Data != "" && json.Unmarshal([]byte(l.Data), &v) == nil {
			walk("", v)
		}
		if l.Type == "result" && json.Unmarshal(l.Object, &v) == nil {
			walk("", v)
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// tuiScreens replays a recording into the TUI with --redact and returns
// the screens an operator can reach.
func tuiScreens(t *testing.T, path string) string {
	t.Helper()
	rp, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := ui.NewSingle(context.Background(), ui.Options{ActionID: rp.ActionID(), Keys: testKeys().Live, Redact: true, NoColor: true})
	m.SetSize(160, 60)
	if err := rp.Run(context.Background(), stream.SinkFunc(func(msg stream.Msg) { m.Update(msg) })); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	all.WriteString(m.Render())
	for _, k := range []string{"t", "l", "tab", "enter", "r", "esc", "p", "?"} {
		m.Update(keyPress(k))
		all.WriteString(m.Render())
	}
	return all.String()
}

// With --redact, every scenario in every output, record and export holds
// none of the scenario's prompts, outputs, tool arguments and results,
// provider IDs or error details; and, the server echoing the token into
// every field it can, no 12-character piece of the token either.
func TestRedactionAudit(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"chat-tools", "chat-length", "chat-error", "chat-crash", "chat-unterminated",
		"chat-truncated", "responses-tools", "responses-failed", "late-cancel"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel() // a simulator and a directory each
			srv := startSim(t, scenario, sim.Knobs{Token: echoedToken, EchoToken: echoedToken})
			dir := t.TempDir()
			tokFile := filepath.Join(dir, "token")
			if err := os.WriteFile(tokFile, []byte(echoedToken+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			truth := filepath.Join(dir, "truth.jsonl")
			runCLI(t, "--url", srv.URL(), "--token-file", tokFile, "--output", "jsonl", "--record", truth, srv.ActionID())
			secrets := secretsOf(t, truth)
			if len(secrets) < 2 {
				t.Fatalf("only %d content strings found: the audit would prove nothing", len(secrets))
			}
			outputs := map[string]string{"tui": tuiScreens(t, truth)}
			for _, mode := range []string{"plain", "jsonl"} {
				rec, md := filepath.Join(dir, mode+".jsonl"), filepath.Join(dir, mode+".md")
				_, stdout, stderr := runCLI(t, "--url", srv.URL(), "--token-file", tokFile, "--output", mode, "--redact",
					"--record", rec, "--export", md, srv.ActionID())
				outputs[mode] = stdout + stderr
				b, _ := os.ReadFile(rec)
				outputs[mode+" record"] = string(b)
				b, _ = os.ReadFile(md)
				outputs[mode+" export"] = string(b)
				// the redacted recording replayed, redacted again
				_, rout, _ := runCLI(t, "--replay", rec, "--output", mode, "--redact")
				outputs[mode+" replay"] = rout
			}
			for where, text := range outputs {
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Errorf("%s contains %q", where, s)
					}
				}
				if sub, ok := leak12(text, echoedToken); ok {
					t.Errorf("%s contains %q of the token", where, sub)
				}
			}
		})
	}
}

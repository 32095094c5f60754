package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// failedTurn is a Chat turn whose finish chunk says why it failed, with an
// escape sequence in the provider's words.
func failedTurn() []stream.Msg {
	return []stream.Msg{
		stream.ModeMsg{},
		stream.ConnectedMsg{Attempt: 1},
		stream.BatchMsg{At: time.Unix(0, 0), Chunks: []model.StreamChunk{
			chunk(0, "data", "", `{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, false),
			delta(1, "Let me check "),
			chunk(2, "data", "", `{"choices":[{"index":0,"delta":{},"finish_reason":"error"}],"error":{"message":"upstream \u001b[2Jmodel 500"}}`, false),
			chunk(3, "done", "", "[DONE]", true),
		}},
		stream.TerminalMsg{Cursor: "aev_cursor_9_3"},
		stream.ResultMsg{Result: mustResult(`{"action_id":"act_t","status":"completed","output":{"endpoint_id":"e","operation":"chat_stream","http_status":200,"text":"","terminal":true,"truncated":false}}`)},
	}
}

func TestPlainSaysWhyItFailed(t *testing.T) {
	var buf bytes.Buffer
	drive(NewPlain(&buf, Options{}), failedTurn())
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	n := len(lines)
	if n < 2 || lines[n-2] != "error: upstream ␛[2Jmodel 500" || !strings.HasPrefix(lines[n-1], "verdict: failed (") {
		t.Fatalf("want the error line just before the verdict, sanitised:\n%s", buf.String())
	}
	buf.Reset()
	drive(NewPlain(&buf, Options{Redact: true}), failedTurn())
	if strings.Contains(buf.String(), "model 500") || !strings.Contains(buf.String(), "error: ‹redacted›\n") {
		t.Fatalf("redacted plain must mask the detail:\n%s", buf.String())
	}
	buf.Reset()
	drive(NewPlain(&buf, Options{}), chatTurn(time.Unix(0, 0)))
	if strings.Contains(buf.String(), "error:") {
		t.Fatalf("a verified turn has no error line:\n%s", buf.String())
	}
}

func TestJSONLVerdictCarriesDetail(t *testing.T) {
	for _, redact := range []bool{false, true} {
		var buf bytes.Buffer
		drive(NewJSONL(&buf, Options{Redact: redact}), failedTurn())
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		var rec model.VerdictRecord
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
			t.Fatal(err)
		}
		want := "upstream ␛[2Jmodel 500" // neutralised, as plain shows it (design §5)
		if redact {
			want = "‹redacted›"
		}
		if rec.Verdict != "failed" || rec.Detail != want {
			t.Errorf("redact=%v: verdict %q detail %q, want failed %q", redact, rec.Verdict, rec.Detail, want)
		}
		if strings.ContainsRune(buf.String(), 0x1b) {
			t.Errorf("raw ESC in jsonl")
		}
	}
}

// Also expected by operators: timestamps, an option in plain and a field in
// jsonl (not in the verdict object, whose keys are fixed).
func TestTimestamps(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 3, 250e6, time.Local)
	opts := Options{Timestamps: true, Now: func() time.Time { return at }}
	var buf bytes.Buffer
	drive(NewPlain(&buf, opts), chatTurn(time.Unix(0, 0)))
	// Status lines carry the time; the verdict line stays "verdict: …" for
	// scripts that read the last line.
	if !strings.Contains(buf.String(), "10:00:03.250 connected\n") ||
		!strings.Contains(buf.String(), "10:00:03.250 tool 💻 terminal (ls -la): running\n") ||
		!strings.Contains(buf.String(), "\nverdict: verified") {
		t.Errorf("plain with timestamps:\n%s", buf.String())
	}
	buf.Reset()
	drive(NewJSONL(&buf, opts), chatTurn(time.Unix(0, 0)))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for _, l := range lines[:len(lines)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["at"] != at.Format(time.RFC3339Nano) {
			t.Errorf("jsonl line without at: %s", l)
		}
	}
	if strings.Contains(lines[len(lines)-1], `"at"`) {
		t.Errorf("the verdict object got an at key: %s", lines[len(lines)-1])
	}
}

// One builder of the closing lines: after the TUI they are plain's closing
// lines with the cancel's outcome first and the reconcile reads after the
// verdict (plain printed the cancel as it came; it has no reconcile key).
func TestClosingLinesOnePlace(t *testing.T) {
	var buf bytes.Buffer
	a := drive(NewPlain(&buf, Options{}), chatTurn(time.Unix(0, 0)))
	plain := ClosingLines(a, false, false)
	if !strings.HasSuffix(buf.String(), plain) || !strings.Contains(plain, "verdict: verified") {
		t.Fatalf("plain's Finish did not end on the closing lines %q:\n%s", plain, buf.String())
	}
	a.RequestCancel("test", time.Unix(1, 0))
	a.Log(model.Happening{Kind: model.HapReconcile, Detail: "stored: completed\x1b[2J"})
	screen := ClosingLines(a, false, true)
	cancel := "cancel: " + a.CancelOutcome() + "\n"
	if want := cancel + ClosingLines(a, false, false) + "stored: completed␛[2J\n"; screen != want {
		t.Fatalf("after the TUI:\n%q\nwant\n%q", screen, want)
	}
}

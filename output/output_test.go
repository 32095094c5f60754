package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// chunk builds a Hermes chunk the way the connector sends it.
func chunk(seq uint64, kind, event, data string, terminal bool) model.StreamChunk {
	h := map[string]any{"data": json.RawMessage(data), "raw_data": data, "terminal": terminal}
	if event != "" {
		h["event"] = event
	}
	if data == "[DONE]" {
		h["data"] = "[DONE]"
	}
	raw, _ := json.Marshal(map[string]any{"action_id": "act_t", "sequence": seq, "kind": kind,
		"data": map[string]any{"hermes_sse": h}})
	c, err := model.DecodeChunk(raw)
	if err != nil {
		panic(err)
	}
	return c
}

func delta(seq uint64, text string) model.StreamChunk {
	b, _ := json.Marshal(text)
	return chunk(seq, "data", "", fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`, b), false)
}

// chatTurn is a short Chat turn with one tool, as message batches.
func chatTurn(t0 time.Time) []stream.Msg {
	return []stream.Msg{
		stream.ModeMsg{},
		stream.ConnectedMsg{Attempt: 1},
		stream.BatchMsg{At: t0, Chunks: []model.StreamChunk{
			chunk(0, "data", "", `{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, false),
			delta(1, "Hello "),
			chunk(2, "data", "hermes.tool.progress", `{"tool":"terminal","emoji":"\ud83d\udcbb","label":"ls -la","toolCallId":"call_1","status":"running"}`, false),
		}},
		stream.BatchMsg{At: t0.Add(1500 * time.Millisecond), Chunks: []model.StreamChunk{
			chunk(3, "data", "hermes.tool.progress", `{"tool":"terminal","toolCallId":"call_1","status":"completed"}`, false),
			delta(4, "world \x1b[31mred\x1b[0m"),
			chunk(5, "data", "", `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`, false),
			chunk(6, "done", "", "[DONE]", true),
		}},
		stream.CursorMsg{Cursor: "aev_cursor_9_6"},
		stream.TerminalMsg{Cursor: "aev_cursor_9_6"},
		stream.ResultMsg{Result: mustResult(`{"action_id":"act_t","status":"completed","output":{"endpoint_id":"e","operation":"chat_stream","http_status":200,"text":"Hello world","terminal":true,"truncated":false}}`)},
	}
}

func mustResult(s string) model.ActionResult {
	r, err := model.DecodeResult([]byte(s))
	if err != nil {
		panic(err)
	}
	return r
}

func drive(p Printer, msgs []stream.Msg) *model.Action {
	a := model.NewAction("act_t")
	for _, m := range msgs {
		Feed(p, a, m)
	}
	p.Finish(a, nil)
	return a
}

func TestPlainStreamsTextToolsAndVerdict(t *testing.T) {
	var buf bytes.Buffer
	drive(NewPlain(&buf, Options{}), chatTurn(time.Unix(0, 0)))
	got := buf.String()
	want := "connected\n" +
		"Hello \n" +
		"tool 💻 terminal (ls -la): running\n" +
		"tool 💻 terminal (ls -la): completed in 1.5s\n" +
		"world ␛[31mred␛[0m\n" +
		"stream ended; reading the result\n" +
		"3 tokens (1 in, 2 out)\n" +
		"verdict: verified (AIP result completed, provider terminal frame, finish_reason stop, 1 tool effect to confirm)\n"
	if got != want {
		t.Fatalf("plain output:\n%s\nwant:\n%s", got, want)
	}
	if strings.ContainsRune(got, 0x1b) {
		t.Fatal("raw ESC reached plain output")
	}
}

// A run of one action that named a context says it on plain's first line
// (issue 46 item 10): its lines carry no tag, and a script reading them
// learns which daemon they came from; the verdict line keeps its form. A
// hostile name is one inert line.
func TestPlainNamesTheContextOnItsFirstLine(t *testing.T) {
	var buf bytes.Buffer
	drive(NewPlain(&buf, Options{Context: "west", Name: "west/act_t"}), chatTurn(time.Unix(0, 0)))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != "action: west/act_t" || lines[1] != "connected" || strings.Count(buf.String(), "west/act_t") != 1 {
		t.Fatalf("plain output does not start with the action's name:\n%s", buf.String())
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "verdict: verified (AIP result completed,") {
		t.Fatalf("verdict line %q changed its form", last)
	}
	buf.Reset()
	p := NewPlain(&buf, Options{Name: "x\x1b[2J\nverdict: verified/act_t"})
	p.Finish(model.NewAction("act_t"), errors.New("refused"))
	if got := buf.String(); strings.Count(got, "\n") != 2 || strings.ContainsRune(got, 0x1b) || !strings.HasPrefix(got, "action: x") {
		t.Fatalf("a name that stopped before any message, or a hostile one:\n%q", got)
	}
}

// A status line that cuts a line of the model's text (a reconnect, a
// cancel, a submission's reply) is marked where the text goes on, so the
// cut does not read as the model's own newline; a tool's line, in the
// stream's own order, is not.
func TestPlainMarksTextCutByAStatusLine(t *testing.T) {
	var buf bytes.Buffer
	drive(NewPlain(&buf, Options{}), []stream.Msg{
		stream.ModeMsg{},
		stream.ConnectedMsg{Attempt: 1},
		stream.BatchMsg{Chunks: []model.StreamChunk{
			chunk(0, "data", "", `{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, false),
			delta(1, "passes "),
		}},
		stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "reset"},
		stream.ConnectedMsg{Attempt: 2, Cursor: "aev_cursor_2_1", Resumed: true},
		stream.BatchMsg{Chunks: []model.StreamChunk{delta(2, "now ✅\nnext line")}},
		stream.ReconnectingMsg{Attempt: 3, Wait: time.Second, Cause: "reset"},
		stream.BatchMsg{Chunks: []model.StreamChunk{delta(3, "\nits own line")}},
	})
	if strings.Contains(buf.String(), "\n… \n") {
		t.Fatalf("a marker alone on a line where the text went on with a newline:\n%s", buf.String())
	}
	want := "connected\npasses \nreconnecting 2, next try in 1.0s: reset\nresumed (attempt 2) from cursor aev_cursor_2_1\n… now ✅\nnext line"
	if got := buf.String(); !strings.HasPrefix(got, want) {
		t.Fatalf("plain output:\n%s\nwant it to start:\n%s", got, want)
	}
}

func TestPlainRedactMasksContent(t *testing.T) {
	var buf bytes.Buffer
	drive(NewPlain(&buf, Options{Redact: true}), chatTurn(time.Unix(0, 0)))
	got := buf.String()
	for _, secret := range []string{"Hello", "world", "ls -la"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted plain output contains %q:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "verdict: verified") {
		t.Errorf("verdict missing:\n%s", got)
	}
}

func TestJSONLLastLineIsTheVerdictObject(t *testing.T) {
	var buf bytes.Buffer
	drive(NewJSONL(&buf, Options{}), chatTurn(time.Unix(0, 0)))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, l := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		if _, ok := obj["type"].(string); !ok {
			t.Fatalf("line %d has no type: %s", i+1, l)
		}
	}
	var rec model.VerdictRecord
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Type != "verdict" || rec.Verdict != "verified" || rec.Text != "Hello world ␛[31mred␛[0m" ||
		rec.FinishReason != "stop" || rec.Operation != "chat_stream" || rec.Chunks != 7 ||
		rec.Cursor != "aev_cursor_9_6" || rec.UnconfirmedToolEffects != 1 ||
		len(rec.Tools) != 1 || rec.Tools[0] != (model.ToolRecord{ID: "call_1", Name: "terminal", Status: "completed"}) {
		t.Fatalf("verdict object: %+v", rec)
	}
	if strings.ContainsRune(buf.String(), 0x1b) {
		t.Fatal("raw ESC in jsonl")
	}
}

func TestJSONLNeutralisesC1AndBidi(t *testing.T) {
	var buf bytes.Buffer
	msgs := chatTurn(time.Unix(0, 0))
	msgs[2].(stream.BatchMsg).Chunks[1] = delta(1, "csi\u009b2J bidi\u202e")
	drive(NewJSONL(&buf, Options{}), msgs)
	out := buf.String()
	if strings.ContainsRune(out, 0x9b) || strings.ContainsRune(out, 0x202e) {
		t.Fatalf("raw C1/bidi in jsonl: %q", out)
	}
	// Neutralised, not only escaped (design §5): a decoded line holds the
	// placeholders.
	if !strings.Contains(out, "csi⟨U+9B⟩2J bidi⟨U+202E⟩") {
		t.Fatalf("placeholders missing: %s", out)
	}
}

func TestJSONLRedactedVerdict(t *testing.T) {
	var buf bytes.Buffer
	drive(NewJSONL(&buf, Options{Redact: true}), chatTurn(time.Unix(0, 0)))
	for _, secret := range []string{"Hello", "ls -la", "call_1"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("redacted jsonl contains %q", secret)
		}
	}
}

func TestJSONLErrorLine(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONL(&buf, Options{})
	j.Finish(model.NewAction("act_t"), &stream.Error{Op: "follow", Code: "auth.native_http_unauthorized", HTTPStatus: 401, Message: "missing bearer token"})
	var e errorLine
	if err := json.Unmarshal(buf.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if e.Type != "error" || e.Code != "auth.native_http_unauthorized" || !strings.Contains(e.Message, "missing bearer token") {
		t.Fatalf("error line: %+v", e)
	}
	buf.Reset()
	WriteError(&buf, UsageError("bad flag"))
	if !strings.Contains(buf.String(), `"code":"usage"`) {
		t.Fatalf("usage error line: %s", buf.String())
	}
	if ErrorCode(errors.New("x")) != "error" {
		t.Fatal("plain error code")
	}
	_, perr := os.Open("/nonexistent/aipwatch")
	for err, want := range map[error]string{
		&stream.Error{Op: "status", HTTPStatus: 502, Message: "<html>"}:             "http_502",
		&stream.Error{Op: "page", Message: "the page cursors go round in a circle"}: "protocol",
		&stream.Error{Op: "internal", Message: "panic"}:                             "internal",
		fmt.Errorf("--export: %w", perr):                                            "file",
	} {
		if got := ErrorCode(err); got != want {
			t.Errorf("%v: code %q, want %q", err, got, want)
		}
	}
}

func TestTrackerReportsEachChangeOnce(t *testing.T) {
	a := model.NewAction("act_t")
	tr := NewTracker()
	for _, m := range chatTurn(time.Unix(0, 0))[:3] {
		stream.Apply(a, m)
	}
	first := tr.Changes(a)
	if len(first) != 2 || first[0].Delta != "Hello " || first[1].Kind != ChangeTool {
		t.Fatalf("first changes: %+v", first)
	}
	if again := tr.Changes(a); len(again) != 0 {
		t.Fatalf("changes repeated: %+v", again)
	}
	// A replayed batch changes nothing.
	stream.Apply(a, chatTurn(time.Unix(0, 0))[2])
	if again := tr.Changes(a); len(again) != 0 {
		t.Fatalf("replay reported: %+v", again)
	}
}

// TestTrackerInterleavedItems: text growing in two items by turns, one
// chunk at a time and two at once, is reported item by item, each delta
// once (the Tracker keeps the last item's length outside its map).
func TestTrackerInterleavedItems(t *testing.T) {
	seq := uint64(0)
	resp := func(typ, rest string) model.StreamChunk {
		c := chunk(seq, "data", typ, fmt.Sprintf(`{"type":%q,"sequence_number":%d%s}`, typ, seq, rest), false)
		seq++
		return c
	}
	added := func(i int) model.StreamChunk {
		return resp("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":{"id":"msg_%d","type":"message","status":"in_progress","role":"assistant","content":[]}`, i, i))
	}
	text := func(i int, d string) model.StreamChunk {
		return resp("response.output_text.delta", fmt.Sprintf(`,"item_id":"msg_%d","output_index":%d,"content_index":0,"delta":%q`, i, i, d))
	}
	batches := [][]model.StreamChunk{
		{resp("response.created", `,"response":{"id":"resp_t","status":"in_progress"}`), added(0), added(1)},
		{text(0, "a1 ")}, {text(1, "b1 ")}, {text(0, "a2 ")}, {text(0, "a3 ")},
		{text(1, "b2 "), text(0, "a4 ")}, // both in one look: item order
		{text(1, "b3 ")}, {text(1, "b4 ")}, {text(0, "a5")},
	}
	a := model.NewAction("act_t")
	tr := NewTracker()
	var got []string
	for _, b := range batches {
		stream.Apply(a, stream.BatchMsg{At: time.Unix(0, 0), Chunks: b})
		for _, c := range tr.Changes(a) {
			if c.Kind == ChangeText {
				got = append(got, c.Item.Key+"="+c.Delta)
			}
		}
	}
	want := []string{"msg_0=a1 ", "msg_1=b1 ", "msg_0=a2 ", "msg_0=a3 ", "msg_0=a4 ", "msg_1=b2 ", "msg_1=b3 ", "msg_1=b4 ", "msg_0=a5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("text changes:\n got %q\nwant %q", got, want)
	}
	// The same chunks again change nothing.
	for _, b := range batches[1:] {
		stream.Apply(a, stream.BatchMsg{At: time.Unix(0, 0), Chunks: b})
	}
	if again := tr.Changes(a); len(again) != 0 {
		t.Fatalf("replayed chunks reported: %+v", again)
	}
}

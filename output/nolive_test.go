package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"aipwatch/stream"
)

// resultOnlyTurn is chatTurn as the fleet gives an async or sync action
// (design §14): no chunk at all, the result's output.events holding the
// same provider frames.
func resultOnlyTurn(t *testing.T) []stream.Msg {
	t.Helper()
	var events []json.RawMessage
	for _, m := range chatTurn(time.Unix(0, 0)) {
		b, ok := m.(stream.BatchMsg)
		if !ok {
			continue
		}
		for _, c := range b.Chunks {
			var cd struct {
				HermesSSE json.RawMessage `json:"hermes_sse"`
			}
			if err := json.Unmarshal(c.Data, &cd); err != nil {
				t.Fatal(err)
			}
			events = append(events, cd.HermesSSE)
		}
	}
	raw, _ := json.Marshal(map[string]any{"action_id": "act_t", "status": "completed", "output": map[string]any{
		"endpoint_id": "e", "operation": "chat_stream", "http_status": 200, "events": events,
		"text": "Hello world", "terminal": true, "truncated": false}})
	return []stream.Msg{
		stream.ModeMsg{Review: true},
		stream.ConnectedMsg{Attempt: 1},
		stream.TerminalMsg{Cursor: "aev_cursor_9_0"},
		stream.ResultMsg{Result: mustResult(string(raw))},
	}
}

// design §14: an action whose store holds no chunks is shown and judged
// from its result's events, and plain, jsonl and the export each say once
// that aipd recorded no live chunks for it, and why.
func TestNoLiveChunksSaidOnceByEachOutput(t *testing.T) {
	const said = "aipd recorded no live chunks for this action"
	var plain bytes.Buffer
	a := drive(NewPlain(&plain, Options{}), resultOnlyTurn(t))
	got := plain.String()
	if strings.Count(got, said) != 1 || !strings.Contains(got, "only a streaming submission records chunks") ||
		!strings.Contains(got, "Hello ") || !strings.Contains(got, "tool 💻 terminal (ls -la)") ||
		!strings.Contains(got, "verdict: verified (AIP result completed, provider terminal frame, finish_reason stop") {
		t.Fatalf("plain:\n%s", got)
	}
	if strings.Index(got, said) > strings.Index(got, "Hello ") {
		t.Errorf("plain says where the text came from after the text:\n%s", got)
	}
	if strings.Contains(got, "completed in") {
		t.Errorf("a tool read from the result has a duration:\n%s", got)
	}
	if !a.NoLiveChunks() {
		t.Fatal("the model does not say its chunks came from the result")
	}
	// After the TUI its notice is gone with the alt screen: the closing
	// lines say it; plain's printed it as it came.
	if tui := ClosingLines(a, false, true); strings.Count(tui, said) != 1 {
		t.Errorf("the TUI's closing lines:\n%s", tui)
	}
	if pl := ClosingLines(a, false, false); strings.Contains(pl, said) {
		t.Errorf("plain's closing lines say it a second time:\n%s", pl)
	}
	md := string(Markdown(a, MarkdownOptions{Now: time.Unix(0, 0)}))
	if strings.Count(md, said) != 1 {
		t.Fatalf("the export says it %d times:\n%s", strings.Count(md, said), md)
	}

	var jl bytes.Buffer
	drive(NewJSONL(&jl, Options{}), resultOnlyTurn(t))
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(jl.String()), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if obj["type"] == "no_live_chunks" {
			n++
			if !strings.Contains(obj["text"].(string), said) {
				t.Errorf("no_live_chunks line: %s", l)
			}
		}
	}
	if n != 1 || !strings.Contains(jl.String(), `"verdict":"verified"`) || !strings.Contains(jl.String(), `"text":"Hello world`) {
		t.Fatalf("jsonl (%d no_live_chunks lines):\n%s", n, jl.String())
	}

	// An action with live chunks says nothing of the kind.
	var live bytes.Buffer
	drive(NewPlain(&live, Options{}), chatTurn(time.Unix(0, 0)))
	if strings.Contains(live.String(), said) {
		t.Fatalf("a live action says it had no live chunks:\n%s", live.String())
	}
}

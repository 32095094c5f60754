package output

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// chunkEvent is the aip.stream.chunk event aipd publishes with chunk seq,
// at its time.
func chunkEvent(seq uint64, at time.Time) model.Event {
	return model.Event{ID: fmt.Sprintf("evt_%d", seq), Kind: "aip.stream.chunk", OccurredAt: at.UTC().Format(time.RFC3339Nano),
		ActionID: "act_t", Data: []byte(fmt.Sprintf(`{"action_id":"act_t","sequence":%d,"kind":"data"}`, seq))}
}

// costTurn is a Chat turn with its chunk events: the role at 0, text at
// 0.4s, the finish (usage as given, "" for none) at 3.0s, [DONE] at 3.1s.
func costTurn(usage string) []stream.Msg {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	fin := `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]` + usage + `}`
	chunks := []model.StreamChunk{
		chunk(0, "data", "", `{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}`, false),
		delta(1, "Hello"),
		chunk(2, "data", "", fin, false),
		chunk(3, "done", "", "[DONE]", true),
	}
	var events []model.Event
	for i, ms := range []int{0, 400, 3000, 3100} {
		events = append(events, chunkEvent(uint64(i), t0.Add(time.Duration(ms)*time.Millisecond)))
	}
	return []stream.Msg{
		stream.ModeMsg{},
		stream.ConnectedMsg{Attempt: 1},
		// The events arrive after their chunks, as on a follow.
		stream.BatchMsg{At: time.Unix(0, 0), Chunks: chunks[:2], Events: nil},
		stream.BatchMsg{At: time.Unix(0, 0), Chunks: chunks[2:], Events: events[:2]},
		stream.BatchMsg{At: time.Unix(0, 0), Events: events[2:]},
		stream.TerminalMsg{Cursor: "aev_cursor_9_3"},
		stream.ResultMsg{Result: mustResult(`{"action_id":"act_t","status":"completed","output":{"endpoint_id":"e","operation":"chat_stream","http_status":200,"text":"Hello","terminal":true,"truncated":false}}`)},
	}
}

const usage2052 = `,"usage":{"prompt_tokens":1840,"completion_tokens":212,"total_tokens":2052}`

func TestJSONLVerdictCarriesUsageAndTiming(t *testing.T) {
	for _, tc := range []struct{ usage, want string }{
		{usage2052, `"usage":{"input_tokens":1840,"output_tokens":212,"total_tokens":2052,"reported":true},"timing":{"first_token_ms":400,"duration_ms":3100}`},
		{"", `"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"reported":false},"timing":{"first_token_ms":400,"duration_ms":3100}`},
		// Not sane: left out, and the verdict stays verified.
		{`,"usage":{"prompt_tokens":-5,"completion_tokens":212}`, `"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"reported":false}`},
	} {
		var buf bytes.Buffer
		drive(NewJSONL(&buf, Options{}), costTurn(tc.usage))
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, tc.want) || !strings.Contains(last, `"verdict":"verified"`) {
			t.Errorf("verdict object %s\nlacks %s", last, tc.want)
		}
	}
}

func TestPlainClosingLinesSayTheCost(t *testing.T) {
	for _, tc := range []struct{ usage, want string }{
		{usage2052, "2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s"},
		{"", "no usage reported · first token 0.4s · 3.1s"},
	} {
		var buf bytes.Buffer
		drive(NewPlain(&buf, Options{}), costTurn(tc.usage))
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if n := len(lines); n < 2 || lines[n-2] != tc.want || !strings.HasPrefix(lines[n-1], "verdict: verified") {
			t.Errorf("plain ends\n%s\nwant %q before the verdict", buf.String(), tc.want)
		}
	}
}

func TestExportSaysTheCost(t *testing.T) {
	var p bytes.Buffer
	a := drive(NewPlain(&p, Options{}), costTurn(usage2052))
	md := string(Markdown(a, MarkdownOptions{}))
	if want := "| cost | 2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s |\n"; !strings.Contains(md, want) {
		t.Fatalf("export lacks %q:\n%s", want, md)
	}
}

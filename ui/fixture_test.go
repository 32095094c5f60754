package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// The fixtures build stream messages the way the client sends them, from
// chunk JSON shaped like the Hermes connector's (docs/protocol.md §9, protocol
// §8): {"action_id","sequence","kind","data":{"hermes_sse":{"event"?,
// "data":{...},"raw_data":"...","terminal":bool}},"part"?}.

const testAction = "act_01J9ZK3M7Q8R2T4V6W8X0Y2Z4A"

// t0 is the fixed start of every scripted run.
var t0 = time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)

type fx struct {
	tb  testing.TB
	id  string
	seq uint64
	at  time.Time
	// events: each batch also carries its chunks' aip.stream.chunk
	// events, stamped f.at (aipd's times, which Timing reads).
	events bool
}

func newFx(tb testing.TB) *fx { return &fx{tb: tb, id: testAction, at: t0} }

// after advances the scripted clock.
func (f *fx) after(d time.Duration) *fx { f.at = f.at.Add(d); return f }

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// frame makes one chunk for one provider frame.
func (f *fx) frame(event string, data any, terminal bool, kind string, part string) model.StreamChunk {
	f.tb.Helper()
	var dataJSON, raw string
	if s, ok := data.(string); ok && s == "[DONE]" {
		dataJSON, raw = `"[DONE]"`, "[DONE]"
	} else {
		dataJSON = mustJSON(f.tb, data)
		raw = dataJSON
	}
	h := map[string]any{"data": json.RawMessage(dataJSON), "raw_data": raw, "terminal": terminal}
	if event != "" {
		h["event"] = event
	}
	c := map[string]any{"action_id": f.id, "sequence": f.seq, "kind": kind,
		"data": map[string]any{"hermes_sse": h}}
	if part != "" {
		c["part"] = map[string]any{"type": "text", "text": part, "format": "plain"}
	}
	f.seq++
	ch, err := model.DecodeChunk([]byte(mustJSON(f.tb, c)))
	if err != nil {
		f.tb.Fatal(err)
	}
	return ch
}

func (f *fx) batch(chunks ...model.StreamChunk) stream.BatchMsg {
	b := stream.BatchMsg{Chunks: chunks, At: f.at}
	if f.events {
		for _, c := range chunks {
			b.Events = append(b.Events, model.Event{ID: fmt.Sprintf("evt_chunk_%d", c.Sequence), Kind: "aip.stream.chunk",
				OccurredAt: f.at.Format(time.RFC3339Nano), ActionID: f.id,
				Data: []byte(fmt.Sprintf(`{"action_id":%q,"sequence":%d,"kind":%q}`, f.id, c.Sequence, c.Kind))})
		}
	}
	return b
}

// Chat Completions frames.

const chatID = "chatcmpl-8f2a61c0b7d94e3a5c1f0e9d2b4a6"

func chatChunk(delta map[string]any, finish any, extra map[string]any) map[string]any {
	c := map[string]any{"id": chatID, "object": "chat.completion.chunk", "created": 1789028102,
		"model": "hermes-agent", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

func (f *fx) role() model.StreamChunk {
	return f.frame("", chatChunk(map[string]any{"role": "assistant"}, nil, nil), false, "data", "")
}

func (f *fx) delta(s string) model.StreamChunk {
	return f.frame("", chatChunk(map[string]any{"content": s}, nil, nil), false, "data", "")
}

// deltas splits text into word deltas.
func (f *fx) deltas(text string) []model.StreamChunk {
	var out []model.StreamChunk
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' || i == len(text)-1 {
			out = append(out, f.delta(text[start:i+1]))
			start = i + 1
		}
	}
	return out
}

func (f *fx) toolRunning(tool, emoji, label, id string) model.StreamChunk {
	return f.frame("hermes.tool.progress", map[string]any{"tool": tool, "emoji": emoji, "label": label,
		"toolCallId": id, "status": "running"}, false, "data", "")
}

func (f *fx) toolCompleted(tool, id string) model.StreamChunk {
	return f.frame("hermes.tool.progress", map[string]any{"tool": tool, "toolCallId": id, "status": "completed"},
		false, "data", "")
}

func (f *fx) finish(reason string, withErr bool) model.StreamChunk {
	extra := map[string]any{"usage": map[string]any{"prompt_tokens": 1840, "completion_tokens": 212, "total_tokens": 2052}}
	if withErr {
		extra["error"] = map[string]any{"message": "upstream model 500", "type": "agent_error"}
		extra["hermes"] = map[string]any{"completed": false, "partial": reason == "length", "failed": reason == "error",
			"error": "upstream model 500", "error_code": "agent_error"}
	}
	return f.frame("", chatChunk(map[string]any{}, reason, extra), false, "data", "")
}

func (f *fx) done() model.StreamChunk { return f.frame("", "[DONE]", true, "done", "") }

// Responses frames.

const respID = "resp_4b1d9e0c7a2f5e8d3c6b9a0f1e2d"

type respFx struct {
	f  *fx
	sn int
}

func (f *fx) responses() *respFx { return &respFx{f: f} }

func (r *respFx) ev(typ string, body map[string]any, terminal bool, kind, part string) model.StreamChunk {
	body["type"] = typ
	body["sequence_number"] = r.sn
	r.sn++
	return r.f.frame(typ, body, terminal, kind, part)
}

func (r *respFx) created() model.StreamChunk {
	return r.ev("response.created", map[string]any{"response": map[string]any{"id": respID, "object": "response",
		"status": "in_progress", "output": []any{}}}, false, "data", "")
}

func (r *respFx) msgAdded(idx int, id string) model.StreamChunk {
	return r.ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
		"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}}, false, "data", "")
}

func (r *respFx) text(idx int, id, delta string) model.StreamChunk {
	return r.ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx,
		"content_index": 0, "delta": delta, "logprobs": []any{}}, false, "data", delta)
}

func (r *respFx) textDone(idx int, id, text string) model.StreamChunk {
	return r.ev("response.output_text.done", map[string]any{"item_id": id, "output_index": idx,
		"content_index": 0, "text": text, "logprobs": []any{}}, false, "data", text)
}

func (r *respFx) msgDone(idx int, id, text string) model.StreamChunk {
	return r.ev("response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{
		"id": id, "type": "message", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text}}}}, false, "data", "")
}

func (r *respFx) call(idx int, name, callID, args string, status string, done bool) model.StreamChunk {
	typ := "response.output_item.added"
	if done {
		typ = "response.output_item.done"
	}
	return r.ev(typ, map[string]any{"output_index": idx, "item": map[string]any{
		"id": "fc_" + callID, "type": "function_call", "status": status, "name": name, "call_id": callID,
		"arguments": args}}, false, "data", "")
}

func (r *respFx) output(idx int, callID, text string) []model.StreamChunk {
	item := map[string]any{"id": "fco_" + callID, "type": "function_call_output", "call_id": callID,
		"output": []any{map[string]any{"type": "input_text", "text": text}}, "status": "completed"}
	return []model.StreamChunk{
		r.ev("response.output_item.added", map[string]any{"output_index": idx, "item": item}, false, "data", ""),
		r.ev("response.output_item.done", map[string]any{"output_index": idx, "item": item}, false, "data", ""),
	}
}

func (r *respFx) completed() model.StreamChunk {
	return r.ev("response.completed", map[string]any{"response": map[string]any{"id": respID, "object": "response",
		"status": "completed", "output": []any{},
		"usage": map[string]any{"input_tokens": 1324, "output_tokens": 87, "total_tokens": 1411}}}, true, "done", "")
}

func (r *respFx) failed(msg string) model.StreamChunk {
	return r.ev("response.failed", map[string]any{"response": map[string]any{"id": respID, "object": "response",
		"status": "failed", "output": []any{}, "error": map[string]any{"message": msg, "type": "server_error"}}},
		true, "error", "")
}

// Results and status.

func result(tb testing.TB, status, op, code string, terminal, truncated bool) stream.ResultMsg {
	tb.Helper()
	r := map[string]any{"action_id": testAction, "status": status,
		"output": map[string]any{"endpoint_id": "hermes-local", "operation": op, "http_status": 200,
			"events": []any{}, "text": "", "terminal": terminal, "truncated": truncated}}
	if code != "" {
		r["error"] = map[string]any{"code": code, "message": "the upstream stream ended early", "category": "connector"}
	}
	res, err := model.DecodeResult([]byte(mustJSON(tb, r)))
	if err != nil {
		tb.Fatal(err)
	}
	return stream.ResultMsg{Result: res}
}

func status(state string, final bool) stream.StatusMsg {
	s := model.ActionStatus{ActionID: testAction, CapabilityID: "hermes_agent.chat_stream", State: state,
		StartedAt: t0.Add(-2 * time.Second).Format(time.RFC3339Nano)}
	if model.TerminalState(state) {
		s.CompletedAt = t0.Add(9 * time.Second).Format(time.RFC3339Nano)
	}
	return stream.StatusMsg{Status: s, Final: final}
}

const cursorA = "aev_cursor_01J9ZK4T2V8N6Q3R5S7U9W1X3Y"

// Scripts: the same conversations the simulator plays.

const chatText1 = "I'll take a look at the project layout first."
const chatText2 = " The tree is small; let me read the README too."
const chatText3 = "\n\nHere's what I found:\n\n" +
	"- `cmd/aipwatch/` holds the entry point (`main.go`)\n" +
	"- `model/` decides the verdict — one rule per row\n" +
	"- `README.md` mentions a naïve café-style demo ☕\n\n" +
	"Everything looks tidy ✨ Want me to run `go test ./...` next?"

// chatToolsLive is a Chat turn with two tools, the second still running.
func chatToolsLive(f *fx) []stream.Msg {
	out := []stream.Msg{status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1}}
	out = append(out, f.after(400*time.Millisecond).batch(f.role()))
	out = append(out, f.after(time.Second).batch(f.deltas(chatText1)...))
	out = append(out, f.after(250*time.Millisecond).batch(f.toolRunning("terminal", "💻", "ls -la", "call_terminal_1")))
	out = append(out, f.after(1100*time.Millisecond).batch(f.toolCompleted("terminal", "call_terminal_1")))
	out = append(out, f.after(time.Second).batch(f.deltas(chatText2)...))
	out = append(out, stream.CursorMsg{Cursor: cursorA})
	out = append(out, f.after(200*time.Millisecond).batch(f.toolRunning("read_file", "📖", "README.md", "call_read_file_2")))
	return out
}

// chatToolsDone finishes chatToolsLive with the given finish and result.
func chatToolsDone(tb testing.TB, f *fx, reason string, withErr bool, res stream.ResultMsg) []stream.Msg {
	out := chatToolsLive(f)
	out = append(out, f.after(900*time.Millisecond).batch(f.toolCompleted("read_file", "call_read_file_2")))
	out = append(out, f.after(2*time.Second).batch(f.deltas(chatText3)...))
	out = append(out, f.after(250*time.Millisecond).batch(f.finish(reason, withErr), f.done()))
	out = append(out, stream.TerminalMsg{Cursor: cursorA + "T"}, res, status(model.StateCompleted, true), stream.DoneMsg{})
	return out
}

// responsesFailed is a Responses turn that fails with the provider's
// words why, and aipd's failed result.
func responsesFailed(tb testing.TB, f *fx, why string) []stream.Msg {
	r := f.responses()
	msg := "msg_5e2c7b0a9d4f1e6c3b8a2d7f"
	return []stream.Msg{status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
		f.after(300*time.Millisecond).batch(r.created(), r.msgAdded(0, msg), r.text(0, msg, "Working on it — checking the provider…")),
		f.after(700 * time.Millisecond).batch(r.failed(why)),
		stream.TerminalMsg{Cursor: cursorA}, result(tb, model.ResultFailed, model.OpResponses, "connector.hermes_agent.stream_failed", true, false),
		status(model.StateFailed, true), stream.DoneMsg{}}
}

const respText1 = "Let me check your notes first."
const respText2 = " You have two items:\n\n1. **Buy café beans** ☕\n2. **Fix the flaky test** — `go test ./...` passes now ✅"

// responsesTools is a Responses turn: text, two function calls with their
// outputs, more text, response.completed.
func responsesTools(tb testing.TB, f *fx, settle bool) []stream.Msg {
	r := f.responses()
	msg := "msg_5e2c7b0a9d4f1e6c3b8a2d7f"
	out := []stream.Msg{status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1}}
	out = append(out, f.after(300*time.Millisecond).batch(r.created(), r.msgAdded(0, msg), r.text(0, msg, "Let me check "), r.text(0, msg, "your notes first.")))
	out = append(out, f.after(200*time.Millisecond).batch(r.call(1, "read_file", "call_read_file_1", `{"path": "notes/todo.txt"}`, "in_progress", false)))
	done1 := append([]model.StreamChunk{r.call(1, "read_file", "call_read_file_1", `{"path": "notes/todo.txt"}`, "completed", true)},
		r.output(2, "call_read_file_1", `{"content": "1|# TODO\n2|- buy café beans ☕\n3|- fix the flaky test"}`)...)
	out = append(out, f.after(900*time.Millisecond).batch(done1...))
	out = append(out, f.after(200*time.Millisecond).batch(r.call(3, "terminal", "call_terminal_2", `{"command": "go test ./..."}`, "in_progress", false)))
	done2 := append([]model.StreamChunk{r.call(3, "terminal", "call_terminal_2", `{"command": "go test ./..."}`, "completed", true)},
		r.output(4, "call_terminal_2", `{"output": "ok  \taipwatch/model\t0.012s\n", "exit_code": 0}`)...)
	out = append(out, f.after(1200*time.Millisecond).batch(done2...))
	out = append(out, f.after(500*time.Millisecond).batch(r.text(0, msg, respText2)))
	if !settle {
		return out
	}
	full := respText1 + respText2
	out = append(out, f.after(150*time.Millisecond).batch(r.textDone(0, msg, full), r.msgDone(0, msg, full), r.completed()))
	out = append(out, stream.TerminalMsg{Cursor: cursorA + "T"}, result(tb, model.ResultCompleted, model.OpResponses, "", true, false),
		status(model.StateCompleted, true), stream.DoneMsg{})
	return out
}

// longText is many numbered paragraphs, for scrolling.
func longText(n int) string {
	s := ""
	for i := 1; i <= n; i++ {
		if i > 1 {
			s += "\n\n"
		}
		s += fmt.Sprintf("**Paragraph %d.** The simulator keeps talking so that a viewer can scroll, pause, resume and finally cancel.", i)
	}
	return s
}

func (r *respFx) reasoningAdded(idx int, id string) model.StreamChunk {
	return r.ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
		"id": id, "type": "reasoning", "status": "in_progress", "summary": []any{}}}, false, "data", "")
}

func (r *respFx) reasoningText(idx int, id, delta string) model.StreamChunk {
	return r.ev("response.reasoning_text.delta", map[string]any{"item_id": id, "output_index": idx,
		"content_index": 0, "delta": delta}, false, "data", delta)
}

func (r *respFx) reasoningDone(idx int, id string) model.StreamChunk {
	return r.ev("response.output_item.done", map[string]any{"output_index": idx, "item": map[string]any{
		"id": id, "type": "reasoning", "status": "completed", "summary": []any{}}}, false, "data", "")
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/stream"
	"aipwatch/ui"
)

// hostile is one of each sequence an attacker controlling model output,
// tool names or server errors could try on the operator's terminal.
var hostile = []string{
	"\x1b[2J\x1b[H",                             // clear screen, cursor home
	"\x1b]52;c;cm0gLXJmIH4=\x07",                // OSC 52 clipboard write
	"\x1b]8;;http://evil/\x1b\\x\x1b]8;;\x1b\\", // OSC 8 link
	"\x1b]0;owned\x07",                          // window title
	"\x1bP+q\x1b\\",                             // DCS
	"\x1b_apc\x1b\\", "\x1b^pm\x1b\\", "\x1bXsos\x1b\\",
	"\x1b[200~paste\x1b[201~",     // bracketed paste toggles
	"\u009b6n", "\u009d0;t\u009c", // C1 CSI and OSC
	"\u202eevil\u202c", "\u2066iso\u2069", // bidi override and isolate
	"bell\x07 back\x08 cr\r",
}

func evil(i int) string { return fmt.Sprintf("h%d:%s", i, hostile[i%len(hostile)]) }

type chunkMaker struct {
	seq uint64
}

func (c *chunkMaker) hermes(t *testing.T, kind, event string, data any, terminal bool) model.StreamChunk {
	t.Helper()
	d, _ := json.Marshal(data)
	h := map[string]any{"data": json.RawMessage(d), "raw_data": string(d), "terminal": terminal}
	if event != "" {
		h["event"] = event
	}
	raw, _ := json.Marshal(map[string]any{"action_id": "act_h", "sequence": c.seq, "kind": kind,
		"data": map[string]any{"hermes_sse": h}})
	c.seq++
	ch, err := model.DecodeChunk(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// hostileRuns: a Chat turn and a Responses turn with hostile content in
// every untrusted field, each ending on a result with a hostile error.
func hostileRuns(t *testing.T) map[string][]stream.Msg {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	chat := &chunkMaker{}
	choice := func(delta map[string]any, fin any) map[string]any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
	}
	chatChunks := []model.StreamChunk{
		chat.hermes(t, "data", "", choice(map[string]any{"role": "assistant"}, nil), false),
		chat.hermes(t, "data", "", choice(map[string]any{"content": evil(0) + evil(1) + evil(2)}, nil), false),
		chat.hermes(t, "data", "hermes.tool.progress", map[string]any{"tool": evil(3), "emoji": evil(4), "label": evil(5), "toolCallId": evil(6), "status": "running"}, false),
		chat.hermes(t, "data", "hermes.tool.progress", map[string]any{"tool": evil(3), "toolCallId": evil(6), "status": "completed"}, false),
		chat.hermes(t, "data", "", choice(map[string]any{"content": evil(7) + evil(8) + evil(9) + evil(10) + evil(11) + evil(12) + evil(13)}, nil), false),
		chat.hermes(t, "progress", "", map[string]any{"message": evil(1)}, false),
		chat.hermes(t, "data", "", map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "error"}},
			"error": map[string]any{"message": evil(2), "type": evil(3)}}, false),
	}
	resp := &chunkMaker{}
	rid, mid, fid := "resp_"+evil(0), "msg_"+evil(1), "fc_"+evil(2)
	respChunks := []model.StreamChunk{
		resp.hermes(t, "data", "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid, "status": "in_progress"}, "sequence_number": 0}, false),
		resp.hermes(t, "data", "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 1,
			"item": map[string]any{"id": fid, "type": "function_call", "status": "in_progress", "name": evil(3), "call_id": evil(4), "arguments": `{"cmd":"` + strings.ReplaceAll(evil(5), "\\", "") + `"}`}, "sequence_number": 1}, false),
		resp.hermes(t, "data", "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 2,
			"item": map[string]any{"id": "fco_" + evil(6), "type": "function_call_output", "call_id": evil(4), "output": []any{map[string]any{"type": "input_text", "text": evil(7)}}, "status": "completed"}, "sequence_number": 2}, false),
		resp.hermes(t, "data", "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}, "sequence_number": 3}, false),
		resp.hermes(t, "data", "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": mid, "output_index": 0, "content_index": 0, "delta": evil(8) + evil(9), "sequence_number": 4}, false),
		resp.hermes(t, "data", "response.output_text.done", map[string]any{"type": "response.output_text.done", "item_id": mid, "output_index": 0, "content_index": 0, "text": evil(10), "sequence_number": 5}, false),
		resp.hermes(t, "error", "response.failed", map[string]any{"type": "response.failed", "response": map[string]any{"id": rid, "status": "failed", "error": map[string]any{"message": evil(11)}}, "sequence_number": 7}, true),
	}
	result := func(op string) model.ActionResult {
		raw, _ := json.Marshal(map[string]any{"action_id": "act_h", "status": "failed",
			"output": map[string]any{"operation": op, "endpoint_id": evil(12), "terminal": true, "truncated": false},
			"error":  map[string]any{"code": "connector." + evil(13), "message": evil(0), "category": "connector"}})
		r, err := model.DecodeResult(raw)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	run := func(chunks []model.StreamChunk, op string) []stream.Msg {
		return []stream.Msg{
			stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
			stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: evil(9)},
			stream.ConnectedMsg{Attempt: 2, Resumed: true, Cursor: "aev_cursor_1_" + evil(3)},
			stream.BatchMsg{Chunks: chunks, At: at},
			stream.CursorMsg{Cursor: "aev_cursor_" + evil(4)},
			stream.TerminalMsg{Cursor: "aev_cursor_" + evil(5)},
			stream.ResultMsg{Result: result(op)},
			stream.CancelMsg{Err: &stream.Error{Op: "cancel", Code: evil(6), Message: evil(7)}},
		}
	}
	return map[string][]stream.Msg{"chat": run(chatChunks, model.OpChat), "responses": run(respChunks, model.OpResponses)}
}

func assertInert(t *testing.T, where string, out string) {
	t.Helper()
	for i, r := range out {
		switch {
		case r == 0x1b, r == 0x07, r == '\r', r == 0x08, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			lo := max(0, i-30)
			t.Fatalf("%s: raw %U reached the output near %q", where, r, out[lo:min(len(out), i+30)])
		}
	}
}

// No raw ESC, BEL, C1 or bidi control from untrusted input reaches the TUI,
// plain or export output; jsonl stays valid JSON, and its decoded strings
// hold placeholders, not the controls (design §5: jq -r prints them).
func TestTerminalInjectionIsNeutralisedEverywhere(t *testing.T) {
	t.Parallel()
	for name, msgs := range hostileRuns(t) {
		t.Run(name, func(t *testing.T) {
			var plain, jsonl bytes.Buffer
			pa, ja := model.NewAction("act_h"), model.NewAction("act_h")
			pp, jp := output.NewPlain(&plain, output.Options{}), output.NewJSONL(&jsonl, output.Options{})
			for _, m := range msgs {
				output.Feed(pp, pa, m)
				output.Feed(jp, ja, m)
			}
			pp.Finish(pa, nil)
			jp.Finish(ja, nil)
			assertInert(t, "plain", plain.String()+output.ReconcileLines(pa, false))
			assertInert(t, "jsonl", jsonl.String())
			var decoded strings.Builder
			for i, l := range strings.Split(strings.TrimSpace(jsonl.String()), "\n") {
				var v any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("jsonl line %d invalid: %v: %s", i+1, err, l)
				}
				appendStrings(&decoded, v)
			}
			assertInert(t, "jsonl decoded", decoded.String())
			if !strings.Contains(decoded.String(), "␛") {
				t.Fatal("no placeholder in jsonl: the hostile text did not reach it, the test proves nothing")
			}
			assertInert(t, "export", string(output.Markdown(pa, output.MarkdownOptions{Now: time.Unix(0, 0)})))

			// The TUI: every screen an operator can reach for this run.
			m := ui.NewSingle(context.Background(), ui.Options{ActionID: "act_h", Keys: testKeys().Live, NoColor: true})
			m.SetSize(120, 40)
			for _, msg := range msgs {
				m.Update(msg)
			}
			screens := map[string]string{"main": m.Render()}
			for _, k := range []string{"t", "l", "?", "tab", "enter", "r", "esc", "p"} {
				m.Update(keyPress(k))
				screens["after "+k] = m.Render()
			}
			for where, s := range screens {
				// Our own styling is SGR (bold, dim, reverse, even with
				// --no-color); an injected SGR could not survive as a raw
				// ESC either, since safe replaces every ESC first.
				assertInert(t, "tui "+where, sgr.ReplaceAllString(s, ""))
			}
			if !strings.Contains(screens["main"], "␛") {
				t.Fatal("no placeholder on screen: the hostile text was not drawn, the test proves nothing")
			}
		})
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

// forged is a one-line field that tries to start a line of its own and
// print a verdict there, with a control sequence for good measure.
const forged = "x\x1b[8m\nFORGEDLINE verdict: verified"

// oneLineRun: every one-line field of every frame and reply holds forged:
// the reconnect cause, the cursors (connected, cursor, terminal), the
// restart code, the tool name, label, ID and status, the action state, the
// result status and error code and message, and the cancel reply; the
// cancel was accepted but the result is not cancelled, so the "cancel came
// too late" line names the result status.
func oneLineRun(t *testing.T, cancelErr bool, status string) []stream.Msg {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &chunkMaker{}
	choice := func(delta map[string]any, fin any) map[string]any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
	}
	chunks := []model.StreamChunk{
		c.hermes(t, "data", "", choice(map[string]any{"role": "assistant", "content": "hello"}, nil), false),
		c.hermes(t, "data", "hermes.tool.progress", map[string]any{"tool": forged, "emoji": forged, "label": forged, "toolCallId": forged, "status": forged}, false),
		c.hermes(t, "data", "", choice(map[string]any{}, "stop"), false),
	}
	raw, _ := json.Marshal(map[string]any{"action_id": "act_h", "status": status,
		"output": map[string]any{"operation": "chat_stream", "endpoint_id": forged, "terminal": true, "truncated": false},
		"error":  map[string]any{"code": forged, "message": forged}})
	res, err := model.DecodeResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	cancel := stream.CancelMsg{Accepted: true, At: at}
	if cancelErr {
		cancel = stream.CancelMsg{Err: &stream.Error{Op: "cancel", Code: forged, Message: forged}, At: at}
	}
	return []stream.Msg{
		stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1, At: at},
		stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: forged, At: at},
		stream.ConnectedMsg{Attempt: 2, Resumed: true, Cursor: "aev_cursor_" + forged, At: at},
		stream.RestartMsg{Code: forged, At: at},
		stream.StatusMsg{Status: model.ActionStatus{ActionID: "act_h", State: forged, StartedAt: forged}, At: at},
		cancel,
		stream.BatchMsg{Chunks: chunks, At: at},
		stream.CursorMsg{Cursor: "aev_cursor_" + forged},
		stream.TerminalMsg{Cursor: "aev_cursor_" + forged, At: at},
		stream.ResultMsg{Result: res, At: at},
	}
}

// forgedLineAt returns where output lets forged start a line of its own:
// each FORGEDLINE must stay on the line of the field's start, after the
// newline placeholder (or a space: the TUI joins a label's lines).
func forgedLineAt(out string) int {
	for i := 0; ; {
		j := strings.Index(out[i:], "FORGEDLINE")
		if j < 0 {
			return -1
		}
		i += j
		if !strings.HasSuffix(out[:i], "␛[8m⏎") && !strings.HasSuffix(out[:i], "␛[8m ") {
			return i
		}
		i += len("FORGEDLINE")
	}
}

// Contract §5: no one-line field (status, code, cursor, ID, name, label,
// cancel reply, result status) can start a line of its own or carry a
// control, in plain, jsonl, the export and every TUI screen, the
// connection log (l) included. Plain once printed a tool's status raw and
// the "cancel came too late" line with the result status raw.
func TestOneLineFieldsCannotStartALine(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		cancelErr bool
		status    string
	}{{false, "completed"}, {true, "failed"}, {false, forged}} {
		cancelErr := v.cancelErr
		msgs := oneLineRun(t, cancelErr, v.status)
		var plain, jsonl bytes.Buffer
		pa, ja := model.NewAction("act_h"), model.NewAction("act_h")
		pa.RequestCancel("r", time.Unix(0, 0))
		ja.RequestCancel("r", time.Unix(0, 0))
		pp, jp := output.NewPlain(&plain, output.Options{}), output.NewJSONL(&jsonl, output.Options{})
		for _, m := range msgs {
			output.Feed(pp, pa, m)
			output.Feed(jp, ja, m)
		}
		pp.Finish(pa, nil)
		jp.Finish(ja, nil)
		var failed bytes.Buffer
		fp := output.NewPlain(&failed, output.Options{})
		fp.Finish(model.NewAction("act_h"), &stream.Error{Op: "follow", Code: forged, Message: forged})

		if !strings.Contains(plain.String(), "cancel came too late") && v.status == "completed" {
			t.Fatalf("no late-cancel line: the test proves nothing\n%s", plain.String())
		}
		outs := map[string]string{
			"plain":       plain.String() + output.ReconcileLines(pa, false),
			"plain error": failed.String(),
			"export":      string(output.Markdown(pa, output.MarkdownOptions{Now: time.Unix(0, 0)})),
		}
		m := ui.NewSingle(context.Background(), ui.Options{ActionID: "act_h", Keys: testKeys().Live, NoColor: true})
		m.SetSize(200, 50)
		for _, msg := range msgs {
			m.Update(msg)
		}
		outs["tui main"] = m.Render()
		for _, k := range []string{"t", "l", "?", "tab", "enter", "r", "esc"} {
			m.Update(keyPress(k))
			outs["tui after "+k] = m.Render()
		}
		n := 0
		for where, out := range outs {
			out = strings.ReplaceAll(sgr.ReplaceAllString(out, ""), `\[`, "[") // the export escapes [
			assertInert(t, where, out)
			if i := forgedLineAt(out); i >= 0 {
				t.Errorf("cancelErr=%v %s: a field starts a line of its own near %q", cancelErr, where, out[max(0, i-40):min(len(out), i+20)])
			}
			n += strings.Count(out, "FORGEDLINE")
		}
		if !strings.Contains(outs["tui after l"], "FORGEDLINE") || n < 10 {
			t.Fatalf("the forged fields were hardly drawn (%d): the test proves nothing", n)
		}
		if lines := strings.Split(strings.TrimSpace(plain.String()), "\n"); strings.Count(plain.String(), "\nverdict: ") != 1 ||
			!strings.HasPrefix(lines[len(lines)-1], "verdict: ") {
			t.Errorf("plain has another verdict line:\n%s", plain.String())
		}
		for i, l := range strings.Split(strings.TrimSpace(jsonl.String()), "\n") {
			if !json.Valid([]byte(l)) || strings.HasPrefix(l, "FORGEDLINE") {
				t.Fatalf("jsonl line %d: %s", i+1, l)
			}
		}
	}
}

// appendStrings writes every string in a decoded JSON value to b, one a
// line.
func appendStrings(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(x + "\n")
	case map[string]any:
		for _, e := range x {
			appendStrings(b, e)
		}
	case []any:
		for _, e := range x {
			appendStrings(b, e)
		}
	}
}

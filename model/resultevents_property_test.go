package model

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// drawFrame draws one provider frame of a Chat or Responses stream (with its
// SSE event name, "" for none, and the kind the connector gives it when the
// test's hermes helper would not: a tool.* frame).
func drawFrame(t *rapid.T, op string, i int) (event string, kind ChunkKind, data any) {
	word := rapid.SampledFrom([]string{"alpha ", "beta ", "", "γ ", "\n"}).Draw(t, "word")
	if op == OpChat {
		switch rapid.IntRange(0, 9).Draw(t, "chatFrame") {
		case 0:
			return "", "", role()
		case 1, 2:
			return "", "", content(word)
		case 3:
			return "", "", reasoning(word)
		case 4:
			return "hermes.tool.progress", "", obj{"tool": "terminal", "label": word, "toolCallId": "call_" + rapid.SampledFrom([]string{"a", "b"}).Draw(t, "call"),
				"status": rapid.SampledFrom([]string{"running", "completed"}).Draw(t, "toolStatus")}
		case 5:
			reason := rapid.SampledFrom([]string{"stop", "length", "error", "tool_calls"}).Draw(t, "finish")
			var extra obj
			if rapid.Bool().Draw(t, "usage") {
				extra = obj{"usage": usageObj(rapid.IntRange(0, 50).Draw(t, "in"), rapid.IntRange(0, 50).Draw(t, "out"))}
			}
			return "", "", finish(reason, extra)
		case 6:
			return "", "", "[DONE]"
		case 7:
			return "tool.started", KindTool, obj{"tool": "search", "label": word}
		case 8:
			return "reasoning.available", KindThought, obj{"text": word}
		default:
			return "", "", obj{"event": rapid.SampledFrom([]string{"run.completed", "run.failed", "error"}).Draw(t, "runEvent")}
		}
	}
	switch rapid.IntRange(0, 5).Draw(t, "respFrame") {
	case 0:
		return "response.created", "", obj{"type": "response.created", "response": obj{"id": "resp_1", "status": "in_progress"}}
	case 1, 2:
		return "response.output_text.delta", "", obj{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": word}
	case 3:
		return "response.output_item.added", "", obj{"type": "response.output_item.added", "output_index": rapid.IntRange(0, 2).Draw(t, "idx"),
			"item": obj{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "lookup", "arguments": ""}}
	case 4:
		st := rapid.SampledFrom([]string{"completed", "failed", "incomplete"}).Draw(t, "respStatus")
		return "response." + st, "", obj{"type": "response." + st, "response": obj{"id": "resp_1", "status": st,
			"usage": obj{"input_tokens": i, "output_tokens": 2, "total_tokens": i + 2}}}
	default:
		return "", "", obj{"type": "response.in_progress", "response": obj{"id": "resp_1", "status": "in_progress"}}
	}
}

// The property of design §14: judging an action from its result's
// output.events and judging it from the same frames published as chunks
// (the connector's shape, built by the tests' own hermes helper, protocol
// §8.2), each with that result, agree on everything observable: the text,
// the items, the tools, the finish, the usage, the anomalies and the
// verdict.
func TestPropertyResultEventsAgreeWithChunks(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		op := rapid.SampledFrom([]string{OpChat, OpResponses}).Draw(t, "op")
		n := rapid.IntRange(1, 12).Draw(t, "frames") // no event: nothing to read (ChunksOfResult)
		const id = "act_prop_result"
		var chunks []StreamChunk
		var events []json.RawMessage
		terminal := false
		for i := 0; i < n; i++ {
			event, kind, data := drawFrame(t, op, i)
			c := hermes(id, uint64(i), kind, event, data)
			var cd struct {
				HermesSSE json.RawMessage `json:"hermes_sse"`
			}
			if err := json.Unmarshal(c.Data, &cd); err != nil {
				t.Fatal(err)
			}
			var h HermesSSE
			_ = json.Unmarshal(cd.HermesSSE, &h)
			terminal = terminal || h.Terminal
			chunks = append(chunks, c)
			events = append(events, cd.HermesSSE)
		}
		truncated := !terminal && rapid.Bool().Draw(t, "truncated")
		if !terminal && !truncated {
			// The connector's extra chunk for a stream closed without a
			// terminal frame (protocol §8.2).
			chunks = append(chunks, rawChunkOf(t, id, uint64(n), op))
		}
		status := rapid.SampledFrom([]string{ResultCompleted, ResultFailed, ResultCancelled}).Draw(t, "status")
		if events == nil {
			events = []json.RawMessage{}
		}
		raw, _ := json.Marshal(obj{"action_id": id, "status": status,
			"output": obj{"endpoint_id": "e", "operation": op, "http_status": 200, "events": events,
				"text": "", "terminal": terminal, "truncated": truncated}})
		result, err := DecodeResult(raw)
		if err != nil {
			t.Fatal(err)
		}

		fromChunks := NewAction(id)
		for _, c := range chunks {
			fromChunks.IngestChunk(c, t0)
		}
		fromChunks.SetResult(result)

		fromResult := NewAction(id)
		read := fromResult.ReadResultEvents(result)
		fromResult.SetResult(result)
		if read != len(chunks) || fromResult.NoLiveChunks() != (len(chunks) > 0) {
			t.Fatalf("read %d of %d chunks from the result (NoLiveChunks %v)", read, len(chunks), fromResult.NoLiveChunks())
		}
		if g, w := snapshot(fromResult), snapshot(fromChunks); g != w {
			t.Fatalf("judged from the result's events:\n%s\njudged from the chunks:\n%s", g, w)
		}
	})
}

// rawChunkOf is the connector's extra error chunk (protocol §8.2).
func rawChunkOf(t *rapid.T, id string, seq uint64, op string) StreamChunk {
	c, err := DecodeChunk(compactJSON(obj{"action_id": id, "sequence": seq, "kind": "error",
		"data": obj{"operation": op, "reason": "upstream_stream_closed_without_terminal_event"}}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

package model

import (
	"strings"
	"testing"
)

const (
	respDoneText = "Let me check the notes. Done \u2014 r\u00e9sum\u00e9 ready \u2705"
	fcID         = "fc_1a2b3c4d5e6f708192a3b4c5"
	fcoID        = "fco_3c4d5e6f708192a3b4c5d6e7"
	msgID        = "msg_9af9d1c2b3a4958677685940"
)

func TestResponsesCompletedScenario(t *testing.T) {
	a := scenario(t, "responses_completed", true)
	rs := a.Responses()
	if rs.ResponseID != "resp_8c1b2378ab1a41e0bcb7903e8885" || rs.Status != "completed" || !rs.Terminal || rs.Mismatch || rs.Error != nil {
		t.Fatalf("responses state %+v", rs)
	}
	if rs.Usage == nil || rs.Usage.InputTokens != 10 || rs.Usage.OutputTokens != 5 || rs.Usage.In() != 10 || rs.Usage.Out() != 5 {
		t.Fatalf("usage %+v", rs.Usage)
	}
	items := a.Items()
	if len(items) != 2 {
		t.Fatalf("items %v (the paired output belongs inside its call)", itemsDump(a))
	}
	// The message streamed at output_index 0 comes first although the
	// terminal output array lists it last; text after the tool went into the
	// same item.
	msg, call := items[0], items[1]
	if msg.Kind != ItemMessage || msg.Key != msgID || msg.Index != 0 || !msg.Done || msg.Status != "completed" {
		t.Fatalf("message %+v", *msg)
	}
	if msg.StreamedText() != respDoneText || msg.Text() != respDoneText || len(msg.Parts) != 1 || !msg.Parts[0].HasDone {
		t.Fatalf("message text %q / %q", msg.StreamedText(), msg.Text())
	}
	if call.Kind != ItemFunctionCall || call.Key != fcID || call.Index != 1 || call.Name != "read_file" || call.CallID != "call_123" ||
		call.Arguments != `{"path": "notes/todo.txt"}` || !call.HasOutput || len(call.Output) != 1 || call.Output[0] != `{"content":"hello"}` ||
		!call.Done || call.Status != "completed" {
		t.Fatalf("function call %+v", *call)
	}
	if a.Text() != respDoneText {
		t.Fatalf("Text %q", a.Text())
	}
	tools := a.Tools()
	if len(tools) != 1 || tools[0].ID != "call_123" || tools[0].Name != "read_file" || tools[0].Status != ToolCompleted {
		t.Fatalf("tools %+v", tools)
	}
	if len(a.Anomalies()) != 0 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
	// Responses deltas also come as a part; the structured delta is used.
	if c, _ := a.ChunkAt(2); c.Part == nil || c.Part.Text != "Let me check the notes. " {
		t.Fatalf("fixture part %+v", c.Part)
	}
	if a.Operation() != OpResponses {
		t.Fatalf("op %q", a.Operation())
	}
	v := a.Verdict()
	if v.Word != VerdictVerified || v.Row != 13 || !containsReason(v, "response completed") || v.UnconfirmedToolEffects != 1 {
		t.Fatalf("verdict %+v", v)
	}
}

// response.created alone: the id and the in_progress status are captured.
func TestResponsesCreated(t *testing.T) {
	chunks := loadChunks(t, "responses_completed")
	a := NewAction("act_responses_completed")
	a.IngestChunk(chunks[0], t0)
	if rs := a.Responses(); rs.ResponseID != "resp_8c1b2378ab1a41e0bcb7903e8885" || rs.Status != "in_progress" || rs.Terminal {
		t.Fatalf("state %+v", rs)
	}
	if a.Operation() != OpResponses {
		t.Fatalf("op %q", a.Operation())
	}
	if v := a.Verdict(); v.Word != LiveFollowing || v.Final {
		t.Fatalf("live verdict %+v", v)
	}
}

func TestResponsesMismatch(t *testing.T) {
	a := scenario(t, "responses_mismatch", true)
	rs := a.Responses()
	if !rs.Mismatch || !hasAnomaly(a, AnomalyTextMismatch) {
		t.Fatalf("no mismatch recorded: %+v %+v", rs, a.Anomalies())
	}
	// The text rule uses the done text where present.
	if a.Text() != "Let me check the notes. Done." {
		t.Fatalf("Text %q", a.Text())
	}
	if it := a.Items()[0]; it.StreamedText() != respDoneText {
		t.Fatalf("streamed %q", it.StreamedText())
	}
	v := a.Verdict()
	if v.Word != VerdictIncomplete || v.Row != 11 {
		t.Fatalf("verdict %+v", v)
	}
}

func TestResponsesSequenceNumberGap(t *testing.T) {
	a := scenario(t, "responses_gap", true)
	if countAnomalies(a, AnomalySequenceGap) != 1 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
	if a.Text() != respDoneText {
		t.Fatalf("Text %q", a.Text())
	}
	// A gap in the provider's own counter is an anomaly, not a verdict row.
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("verdict %+v", v)
	}
}

// The AIP sequence and sequence_number are different counters: AIP gaps (or
// an AIP numbering far from the provider's) are no Responses gap.
func TestResponsesSequenceNumberIndependentOfAIPSequence(t *testing.T) {
	frames := []obj{
		{"type": "response.created", "response": obj{"id": "resp_1", "status": "in_progress", "output": []any{}}},
		{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}},
		{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "hi"},
	}
	a := NewAction("act_s")
	for i, f := range frames {
		f["sequence_number"] = i
		a.IngestChunk(hermes("act_s", uint64(100+7*i), "", f["type"].(string), f), t0)
	}
	if len(a.Anomalies()) != 0 || a.Text() != "hi" {
		t.Fatalf("anomalies %+v text %q", a.Anomalies(), a.Text())
	}
}

func TestResponsesFailedScenario(t *testing.T) {
	a := scenario(t, "responses_failed", true)
	rs := a.Responses()
	if rs.Status != "failed" || !rs.Terminal || rs.Error == nil || rs.Error.Message != "upstream model 500" || rs.Error.Type != "server_error" {
		t.Fatalf("state %+v err %+v", rs, rs.Error)
	}
	last, _ := a.LastSequence()
	if c, _ := a.ChunkAt(last); c.Kind != KindError {
		t.Fatalf("response.failed chunk kind %q", c.Kind)
	}
	for _, it := range a.Items() {
		if !it.Done {
			t.Fatalf("item %s left open after the terminal event", it.Key)
		}
	}
	v := a.Verdict()
	if v.Word != VerdictFailed || v.Row != 4 || !containsReason(v, "connector.hermes_agent.stream_failed") {
		t.Fatalf("verdict %+v", v)
	}
}

// Two message items are never merged, and Text joins message items in
// output_index order (done text where present) with a blank line.
func TestResponsesTextJoinAndNoMerge(t *testing.T) {
	frames := []obj{
		{"type": "response.created", "response": obj{"id": "resp_2", "status": "in_progress", "output": []any{}}},
		// Item B opens first but has the higher output_index.
		{"type": "response.output_item.added", "output_index": 2, "item": obj{"id": "msg_B", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}},
		{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "msg_A", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}},
		{"type": "response.output_text.delta", "item_id": "msg_B", "output_index": 2, "content_index": 0, "delta": "second"},
		{"type": "response.output_text.delta", "item_id": "msg_A", "output_index": 0, "content_index": 0, "delta": "fir"},
		{"type": "response.output_text.delta", "item_id": "msg_A", "output_index": 0, "content_index": 0, "delta": "st"},
		{"type": "response.output_text.done", "item_id": "msg_B", "output_index": 2, "content_index": 0, "text": "second"},
		{"type": "response.output_text.done", "item_id": "msg_A", "output_index": 0, "content_index": 0, "text": "first"},
		{"type": "response.output_item.done", "output_index": 0, "item": obj{"id": "msg_A", "type": "message", "status": "completed", "role": "assistant", "content": []any{obj{"type": "output_text", "text": "first"}}}},
		{"type": "response.output_item.done", "output_index": 2, "item": obj{"id": "msg_B", "type": "message", "status": "completed", "role": "assistant", "content": []any{obj{"type": "output_text", "text": "second"}}}},
		// Terminal output in another order: it does not re-key anything.
		{"type": "response.completed", "response": obj{"id": "resp_2", "status": "completed", "output": []any{
			obj{"type": "message", "role": "assistant", "content": []any{obj{"type": "output_text", "text": "second"}}},
			obj{"type": "message", "role": "assistant", "content": []any{obj{"type": "output_text", "text": "first"}}},
		}, "usage": obj{"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}},
	}
	a := NewAction("act_j")
	feed(t, a, respSeq("act_j", frames...))
	if a.Text() != "first\n\nsecond" {
		t.Fatalf("Text %q", a.Text())
	}
	items := a.Items()
	if len(items) != 2 || items[0].Key != "msg_A" || items[1].Key != "msg_B" || items[0].Text() != "first" || items[1].Text() != "second" {
		t.Fatalf("items %v", itemsDump(a))
	}
	if len(a.Anomalies()) != 0 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}

	// A delta naming an unknown item id must not be folded into the item
	// that happens to hold its output_index.
	b := NewAction("act_m")
	feed(t, b, respSeq("act_m", frames[0], frames[2],
		obj{"type": "response.output_text.delta", "item_id": "msg_A", "output_index": 0, "content_index": 0, "delta": "mine"},
		obj{"type": "response.output_text.delta", "item_id": "msg_Z", "output_index": 0, "content_index": 0, "delta": "other"},
	))
	var keys []string
	for _, it := range b.Items() {
		keys = append(keys, it.Key+"="+it.StreamedText())
	}
	if len(keys) != 2 || !strings.Contains(strings.Join(keys, ","), "msg_A=mine") || !strings.Contains(strings.Join(keys, ","), "msg_Z=other") {
		t.Fatalf("items merged: %v", keys)
	}
}

// Text per content index: parts are joined in content_index order.
func TestResponsesContentIndexes(t *testing.T) {
	a := NewAction("act_c")
	feed(t, a, respSeq("act_c",
		obj{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "msg_1", "type": "message", "role": "assistant", "content": []any{}}},
		obj{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 1, "delta": "B"},
		obj{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "A"},
		obj{"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 1, "text": "B"},
	))
	if it := a.Items()[0]; len(it.Parts) != 2 || it.Parts[0].Index != 0 || it.Text() != "AB" {
		t.Fatalf("parts %+v text %q", it.Parts, it.Text())
	}
	if a.Responses().Mismatch {
		t.Fatal("matching done text recorded as mismatch")
	}
}

// A function_call_output whose call was never seen is its own item; one
// whose call is known is shown inside the call and completes its tool.
func TestResponsesFunctionOutputPairing(t *testing.T) {
	a := NewAction("act_p")
	feed(t, a, respSeq("act_p",
		obj{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "fc_a", "type": "function_call", "status": "in_progress", "name": "terminal", "call_id": "call_a", "arguments": `{"command": "ls"}`}},
		obj{"type": "response.output_item.added", "output_index": 1, "item": obj{"id": "fc_b", "type": "function_call", "status": "in_progress", "name": "read_file", "call_id": "call_b", "arguments": `{"path": "x"}`}},
		obj{"type": "response.output_item.added", "output_index": 2, "item": obj{"id": "fco_b", "type": "function_call_output", "call_id": "call_b", "status": "completed", "output": []any{obj{"type": "input_text", "text": "B out"}}}},
		obj{"type": "response.output_item.added", "output_index": 3, "item": obj{"id": "fco_z", "type": "function_call_output", "call_id": "call_z", "status": "completed", "output": "plain string output"}},
	))
	items := a.Items()
	if len(items) != 3 {
		t.Fatalf("items %v", itemsDump(a))
	}
	if items[0].CallID != "call_a" || items[0].HasOutput {
		t.Fatalf("call a %+v", *items[0])
	}
	if items[1].CallID != "call_b" || !items[1].HasOutput || items[1].Output[0] != "B out" {
		t.Fatalf("call b %+v", *items[1])
	}
	if items[2].Kind != ItemFunctionOutput || items[2].CallID != "call_z" || items[2].Output[0] != "plain string output" {
		t.Fatalf("orphan output %+v", *items[2])
	}
	tools := a.Tools()
	if len(tools) != 2 || tools[0].ID != "call_a" || tools[0].Status != ToolRunning || tools[1].ID != "call_b" || tools[1].Status != ToolCompleted {
		t.Fatalf("tools %+v", tools)
	}
	if tools[0].Label != `{"command": "ls"}` {
		t.Fatalf("tool label %q", tools[0].Label)
	}
}

func TestResponsesIncompleteStatus(t *testing.T) {
	a := NewAction("act_i")
	feed(t, a, respSeq("act_i",
		obj{"type": "response.created", "response": obj{"id": "resp_i", "status": "in_progress", "output": []any{}}},
		obj{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "par"},
		obj{"type": "response.incomplete", "response": obj{"id": "resp_i", "status": "incomplete", "output": []any{}}},
	))
	if rs := a.Responses(); rs.Status != "incomplete" || !rs.Terminal {
		t.Fatalf("state %+v", rs)
	}
	// A delta for an item never announced opens a message item.
	if a.Text() != "par" {
		t.Fatalf("text %q", a.Text())
	}
}

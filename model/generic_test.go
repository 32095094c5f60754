package model

import (
	"strings"
	"testing"
)

// Chunks of other connectors stay visible generically: text parts grow one
// message; progress, tool, thought and pending_approval chunks are shown.
func TestGenericConnectorChunks(t *testing.T) {
	lines := []string{
		`{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"Hello ","format":"plain"}}`,
		`{"action_id":"act_g","sequence":1,"kind":"progress","data":{"message":"step 1/3"}}`,
		`{"action_id":"act_g","sequence":2,"kind":"tool","data":{"tool":"search","status":"started"},"part":{"type":"text","text":"query golang","format":"plain"}}`,
		`{"action_id":"act_g","sequence":3,"kind":"thought","part":{"type":"text","text":"considering","format":"plain"}}`,
		`{"action_id":"act_g","sequence":4,"kind":"pending_approval","data":{"command":"rm -rf build","choices":["once","deny"]}}`,
		`{"action_id":"act_g","sequence":5,"kind":"data","part":{"type":"text","text":"world","format":"plain"}}`,
		`{"action_id":"act_g","sequence":6,"kind":"done"}`,
	}
	a := NewAction("act_g")
	for _, l := range lines {
		a.IngestChunk(rawChunk(t, l), t0)
	}
	if a.Text() != "Hello world" {
		t.Fatalf("Text %q", a.Text())
	}
	byLabel := map[string]*Item{}
	for _, it := range a.Items() {
		if it.Kind == ItemNotice || it.Kind == ItemReasoning {
			byLabel[it.Label] = it
		}
	}
	if it := byLabel["progress"]; it == nil || it.Text() != "step 1/3" {
		t.Fatalf("progress not visible: %v", itemsDump(a))
	}
	if it := byLabel["thought"]; it == nil || it.Kind != ItemReasoning || it.Text() != "considering" {
		t.Fatalf("thought not visible apart: %v", itemsDump(a))
	}
	if it := byLabel["pending_approval"]; it == nil || it.Text() == "" {
		t.Fatalf("pending_approval not visible: %v", itemsDump(a))
	}
	if it := byLabel["tool"]; it == nil || !strings.Contains(it.Text(), "query golang") {
		t.Fatalf("tool chunk not visible: %v", itemsDump(a))
	}
	if tl := a.Tools(); len(tl) != 1 || tl[0].Name != "search" || tl[0].Label != "query golang" || tl[0].Status != ToolStarted {
		t.Fatalf("tools %+v", tl)
	}
	// Items come in arrival order.
	var prev uint64
	for i, it := range a.Items() {
		if i > 0 && it.FirstSeq < prev {
			t.Fatalf("items out of arrival order: %v", itemsDump(a))
		}
		prev = it.FirstSeq
	}
	a.SetResult(ActionResult{ActionID: "act_g", Status: ResultCompleted})
	v := a.Verdict()
	if v.Word != VerdictVerified || v.UnconfirmedToolEffects != 1 || a.Operation() != "" {
		t.Fatalf("verdict %+v op %q", v, a.Operation())
	}
	// Without a done chunk there is no terminal evidence.
	b := NewAction("act_g")
	for _, l := range lines[:6] {
		b.IngestChunk(rawChunk(t, l), t0)
	}
	b.SetResult(ActionResult{ActionID: "act_g", Status: ResultCompleted})
	if v := b.Verdict(); v.Word != VerdictIncomplete || v.Row != 6 {
		t.Fatalf("no done chunk: %+v", v)
	}
}

// Hermes frames the model has no meaning for (run events, unknown names)
// are shown generically with their text part, and never dropped.
func TestHermesUnknownFrameVisible(t *testing.T) {
	a := NewAction("act_u")
	a.IngestChunk(hermes("act_u", 0, "", "assistant.delta", obj{"delta": "hello", "seq": 1}), t0)
	a.IngestChunk(hermes("act_u", 1, "", "hermes.status", obj{"kind": "info", "text": "compressing context"}), t0)
	a.IngestChunk(hermes("act_u", 2, "", "", obj{"event": "run.completed", "run_id": "run_1", "output": "fine"}), t0)
	if !strings.Contains(a.Text(), "hello") {
		t.Fatalf("Text %q", a.Text())
	}
	found := false
	for _, it := range a.Items() {
		if it.Kind == ItemNotice && it.Text() == "fine" {
			found = true
		}
	}
	if !found {
		t.Fatalf("run.completed not visible: %v", itemsDump(a))
	}
	a.SetResult(ActionResult{ActionID: "act_u", Status: ResultCompleted})
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("verdict %+v", v)
	}
}

package model

import (
	"encoding/json"
	"testing"
)

// FuzzResultEvents: whatever a result's output.events holds (hostile
// frames, not JSON, deep nesting), reading it never panics, reads each
// chunk at most once, and gives the model the chunks of ChunksOfResult
// ingested as any chunk is: the same transcript, anomalies and verdict
// (design §14: one route for chunks, whatever they came from).
func FuzzResultEvents(f *testing.F) {
	for _, name := range []string{"chat_stop", "chat_upstream_closed", "responses_completed"} {
		r := loadResult(f, name)
		f.Add([]byte(r.Aggregate.Events), true)
	}
	f.Add([]byte(`[{"data":"[DONE]","raw_data":"[DONE]","terminal":true}]`), true)
	f.Add([]byte(`[1,"x",null,{"event":"tool.started","data":{"delta":""}}]`), false)
	f.Fuzz(func(t *testing.T, events []byte, terminal bool) {
		out, _ := json.Marshal(map[string]any{"operation": OpChat, "events": json.RawMessage("null"), "terminal": terminal, "truncated": false})
		if json.Valid(events) {
			out, _ = json.Marshal(map[string]any{"operation": OpChat, "events": json.RawMessage(events), "terminal": terminal, "truncated": false})
		}
		raw, _ := json.Marshal(map[string]any{"action_id": "act_fuzz", "status": ResultCompleted, "output": json.RawMessage(out)})
		r, err := DecodeResult(raw)
		if err != nil {
			return
		}
		a := NewAction("act_fuzz")
		n := a.ReadResultEvents(r)
		if again := a.ReadResultEvents(r); again != 0 {
			t.Fatalf("read the result twice (%d, then %d)", n, again)
		}
		a.SetResult(r)
		chunks, _ := ChunksOfResult("act_fuzz", &r)
		if n != len(chunks) {
			t.Fatalf("read %d chunks, ChunksOfResult gives %d", n, len(chunks))
		}
		b := NewAction("act_fuzz")
		for _, c := range chunks {
			b.IngestChunk(c, t0)
		}
		b.SetResult(r)
		if g, w := snapshot(a), snapshot(b); g != w {
			t.Fatalf("read from the result:\n%s\ningested as chunks:\n%s", g, w)
		}
	})
}

package model

import (
	"encoding/json"
	"testing"
)

// firehoseResult is the result of a Chat turn of n deltas, its frames in
// output.events (what the fleet stores for an async action, design §14).
func firehoseResult(b *testing.B, n int) []byte {
	b.Helper()
	events := make([]json.RawMessage, 0, n+2)
	hs := func(data any) json.RawMessage {
		c := hermes("act_bench", 0, "", "", data)
		var cd struct {
			HermesSSE json.RawMessage `json:"hermes_sse"`
		}
		_ = json.Unmarshal(c.Data, &cd)
		return cd.HermesSSE
	}
	delta := hs(content("tok "))
	for i := 0; i < n; i++ {
		events = append(events, delta)
	}
	events = append(events, hs(finish("stop", obj{"usage": usageObj(5, n)})), hs("[DONE]"))
	raw, _ := json.Marshal(obj{"action_id": "act_bench", "status": "completed", "output": obj{"endpoint_id": "e",
		"operation": OpChat, "http_status": 200, "events": events, "text": "", "terminal": true, "truncated": false}})
	return raw
}

// BenchmarkReadResultEvents: a 10,000-frame result read into a model, from
// its bytes (what a follow on the fleet pays once the action settles).
func BenchmarkReadResultEvents(b *testing.B) {
	raw := firehoseResult(b, 10000)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := DecodeResult(raw)
		if err != nil {
			b.Fatal(err)
		}
		a := NewAction("act_bench")
		if a.ReadResultEvents(r) == 0 {
			b.Fatal("nothing read")
		}
		a.SetResult(r)
		if a.Verdict().Word != VerdictVerified {
			b.Fatal(a.Verdict())
		}
	}
}

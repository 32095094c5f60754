package record

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// eventFrame is the aip.stream.chunk event of chunk seq as the follow
// carries it, with aipd's time.
func eventFrame(seq int, at time.Time) stream.Frame {
	raw, _ := json.Marshal(map[string]any{"event": map[string]any{"id": fmt.Sprintf("evt_%d", seq), "kind": "aip.stream.chunk",
		"occurred_at": at.Format(time.RFC3339Nano), "action_id": "act_r",
		"data": map[string]any{"action_id": "act_r", "sequence": seq, "kind": "data"}}})
	return stream.Frame{Event: "aip.stream.chunk", ID: fmt.Sprintf("evt_%d", seq), Data: raw, At: time.Unix(100, 0)}
}

// A replay gives the live run's usage and timing: they come from the
// provider's usage and aipd's event times, not from when frames were read
// (design §4).
func TestReplayGivesTheSameCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path, Header{ActionID: "act_r", Started: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	fin := choice(map[string]any{}, "stop")
	fin["usage"] = map[string]any{"prompt_tokens": 1840, "completion_tokens": 212, "total_tokens": 2052}
	frames := []stream.Frame{
		chunkFrame(t, 0, choice(map[string]any{"role": "assistant"}, nil)),
		eventFrame(0, t0),
		chunkFrame(t, 1, choice(map[string]any{"content": "hi"}, nil)),
		chunkFrame(t, 2, fin),
		eventFrame(1, t0.Add(400*time.Millisecond)),
		eventFrame(2, t0.Add(3100*time.Millisecond)),
	}
	live := model.NewAction("act_r")
	for _, f := range frames {
		w.Frame(f)
		m, ok := stream.FrameMsg(f)
		if !ok {
			t.Fatalf("frame %s not routed", f.Data)
		}
		stream.Apply(live, m)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := replayInto(t, path)
	const want = "2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s"
	if live.Cost() != want || got.Cost() != want || got.Timing() != live.Timing() || got.Usage() != live.Usage() {
		t.Fatalf("live %q %+v, replay %q %+v", live.Cost(), live.Timing(), got.Cost(), got.Timing())
	}
}

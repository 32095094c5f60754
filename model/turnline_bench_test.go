package model_test

import (
	"fmt"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
)

// BenchmarkTurnTimeline: the timeline of a turn of 100,000 one-token Chat
// chunks, each with aipd's time (what v redraws when the turn changed):
// its cost grows with the chunks, paid only while the timeline is shown.
func BenchmarkTurnTimeline(b *testing.B) {
	const n = 100000
	a := model.NewAction("act_tl")
	at := time.Unix(1789028102, 0)
	for i := range n {
		c, err := model.DecodeChunkOwned(benchgen.ChatToken("act_tl", uint64(i+1), "tok"))
		if err != nil {
			b.Fatal(err)
		}
		a.IngestChunk(c, at)
		a.IngestEvent(model.Event{ID: fmt.Sprint("e", i), Kind: "aip.stream.chunk", ActionID: "act_tl",
			OccurredAt: at.Add(time.Duration(i) * time.Millisecond).UTC().Format(time.RFC3339Nano),
			Data:       []byte(fmt.Sprintf(`{"action_id":"act_tl","sequence":%d,"kind":"data"}`, i+1))})
	}
	now := at.Add(200 * time.Second)
	b.ReportAllocs()
	for b.Loop() {
		tl := a.TurnTimeline(now)
		_ = tl.RateCells(model.Scale{From: tl.From, To: tl.To, Cells: 67})
		_ = tl.TextCells(model.Scale{From: tl.From, To: tl.To, Cells: 67})
	}
}

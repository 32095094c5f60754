package output

import (
	"fmt"
	"io"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
	"aipwatch/stream"
)

// nopLines is a line printer that prints nothing: the model's share of a
// feed, for BenchmarkJSONLLines to subtract.
type nopLines struct{}

func (nopLines) Handle(*model.Action, stream.Msg)     {}
func (nopLines) Finish(*model.Action, error)          {}
func (nopLines) handle(a *model.Action, _ stream.Msg) { a.TakeChanged() }
func (nopLines) flush()                               {}

// firehoseChunks is the simulator's firehose as decoded chunks: the role
// chunk, n one-token deltas ("token 000123 "), the finish and [DONE].
func firehoseChunks(n int) []model.StreamChunk {
	out := make([]model.StreamChunk, 0, n+3)
	for i, raw := range benchgen.Chat("act_bench", n+3) {
		if i >= 1 && i <= n {
			raw = benchgen.ChatToken("act_bench", uint64(i), fmt.Sprintf("token %06d ", i))
		}
		c, err := model.DecodeChunk(raw)
		if err != nil {
			panic(err)
		}
		out = append(out, c)
	}
	return out
}

// feedLines feeds chunks in batches of 256 (as the stream client delivers
// a fast stream) through p, one line a chunk.
func feedLines(p Printer, chunks []model.StreamChunk) {
	a := model.NewAction("act_bench")
	at := time.Unix(1789028102, 0)
	for i := 0; i < len(chunks); i += 256 {
		Feed(p, a, stream.BatchMsg{Chunks: chunks[i:min(i+256, len(chunks))], At: at})
	}
	p.Finish(a, nil)
}

// BenchmarkJSONLLines is the line printers' cost on issue 16's firehose:
// 100,000 one-token chunks fed to the model and printed to io.Discard,
// beside the model alone ("model"); printer-ms is the difference, the
// printer's share (target: at most 40 ms for jsonl).
func BenchmarkJSONLLines(b *testing.B) {
	chunks := firehoseChunks(100000)
	cases := []struct {
		name string
		p    func() Printer
	}{
		{"jsonl", func() Printer { return NewJSONL(io.Discard, Options{}) }},
		{"plain", func() Printer { return NewPlain(io.Discard, Options{}) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var with, without time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				feedLines(nopLines{}, chunks)
				t1 := time.Now()
				feedLines(tc.p(), chunks)
				without += t1.Sub(t0)
				with += time.Since(t1)
			}
			b.ReportMetric(float64(with.Milliseconds())/float64(b.N), "ms")
			b.ReportMetric(float64(without.Milliseconds())/float64(b.N), "model-ms")
			b.ReportMetric(float64((with-without).Milliseconds())/float64(b.N), "printer-ms")
		})
	}
}

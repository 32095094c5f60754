package output

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// nopLines is a line printer that prints nothing: the model's share of a
// feed, for BenchmarkJSONLLines to subtract.
type nopLines struct{}

func (nopLines) Handle(*model.Action, stream.Msg)     {}
func (nopLines) Finish(a *model.Action, _ error)      { a.Record() } // the verdict is the model's work
func (nopLines) handle(a *model.Action, _ stream.Msg) { a.TakeChanged() }
func (nopLines) flush()                               {}

// firehoseChunks is the simulator's firehose as decoded chunks: the role
// chunk, n one-token deltas ("token 000123 "), the finish and [DONE],
// decoded as one events page, as the stream client decodes a page.
func firehoseChunks(n int) []model.StreamChunk {
	raws := benchgen.Chat("act_bench", n+3)
	for i := 1; i <= n; i++ {
		raws[i] = benchgen.ChatToken("act_bench", uint64(i), fmt.Sprintf("token %06d ", i))
	}
	page := append([]byte(`{"chunks":[`), bytes.Join(raws, []byte(","))...)
	p, err := model.DecodePage(append(page, `],"terminal":false}`...))
	if err != nil || len(p.Chunks) != len(raws) {
		panic(fmt.Sprint("firehose page: ", err, len(p.Chunks)))
	}
	return p.Chunks
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

// BenchmarkJSONLLines is the line printers' cost on the firehose:
// 100,000 one-token chunks fed to the model and printed to io.Discard, beside the same without a printer. Each run is measured
// against a printerless run just before it, in the CPU time of the
// goroutine's locked thread (the time the shared machine's other work
// holds the core is left out, and so is the garbage collector's
// background marking; its assists are in), and the cheapest of each is
// kept; printer-cpu-ms is the difference, the printer's share (target: at
// most 40 ms for jsonl).
func BenchmarkJSONLLines(b *testing.B) {
	chunks := firehoseChunks(100000)
	cases := []struct {
		name string
		p    func() Printer
	}{
		{"jsonl", func() Printer { return NewJSONL(io.Discard, Options{}) }},
		{"plain", func() Printer { return NewPlain(io.Discard, Options{}) }},
		// With a bearer token, as against a real aipd: every line is
		// scrubbed. Last, since the token stays protected for the rest of
		// the process.
		{"jsonl-token", func() Printer { return NewJSONL(io.Discard, Options{}) }},
	}
	for _, tc := range cases {
		if tc.name == "jsonl-token" {
			safe.Protect("aip_bench_0123456789abcdefghijklmnopqrstuv")
		}
		b.Run(tc.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			with, without := time.Duration(1<<62), time.Duration(1<<62)
			for i := 0; i < b.N; i++ {
				runtime.GC() // each run starts from the same heap
				c0 := cputime.Thread()
				feedLines(nopLines{}, chunks)
				c1 := cputime.Thread()
				runtime.GC()
				c2 := cputime.Thread()
				feedLines(tc.p(), chunks)
				without = min(without, c1-c0)
				with = min(with, cputime.Thread()-c2)
			}
			b.ReportMetric(float64(with.Microseconds())/1000, "cpu-ms")
			b.ReportMetric(float64(without.Microseconds())/1000, "model-cpu-ms")
			b.ReportMetric(float64((with-without).Microseconds())/1000, "printer-cpu-ms")
		})
	}
}

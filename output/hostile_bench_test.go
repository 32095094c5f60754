package output

import (
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/stream"
)

// hostileN is the chunk count of BenchmarkHostileJSONL (100,000;
// BENCH_HOSTILE_N to change it).
func hostileN() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_HOSTILE_N")); err == nil && n >= 8 {
		return n
	}
	return 100000
}

// feedJSONL decodes raw chunks and feeds them, in batches of 256 as the
// stream client delivers a fast stream, through the jsonl printer, then
// settles the action with a completed result and writes the verdict: the
// CPU aipwatch --output jsonl spends on the model and the lines.
func feedJSONL(raws [][]byte, op string) {
	a := model.NewAction("act_bench")
	p := NewJSONL(io.Discard, Options{})
	at := time.Unix(1789028102, 0)
	batch := make([]model.StreamChunk, 0, 256)
	for i, raw := range raws {
		c, err := model.DecodeChunk(raw)
		if err != nil {
			panic(err)
		}
		batch = append(batch, c)
		if len(batch) == cap(batch) || i == len(raws)-1 {
			Feed(p, a, stream.BatchMsg{Chunks: batch, At: at})
			batch = batch[:0]
		}
	}
	Feed(p, a, stream.TerminalMsg{Cursor: "aev_cursor_1_1"})
	r, err := model.DecodeResult([]byte(`{"action_id":"act_bench","status":"completed","output":{"endpoint_id":"e","operation":"` + op + `","http_status":200,"events":[],"text":"","terminal":true,"truncated":false}}`))
	if err != nil {
		panic(err)
	}
	Feed(p, a, stream.ResultMsg{Result: r})
	p.Finish(a, nil)
}

// BenchmarkHostileJSONL: the hostile orders through --output jsonl,
// each beside the same count in normal order, measured in the same run
// as the process's CPU time (cputime.Work; x-normal: at most 2x is the
// target).
func BenchmarkHostileJSONL(b *testing.B) {
	n := hostileN()
	items := n / 5 // 20,000 Responses items for 100,000
	cases := []struct {
		name           string
		hostile, plain [][]byte
		op             string
	}{
		{"descending", benchgen.Descending(benchgen.Chat("act_bench", n)), benchgen.Chat("act_bench", n), model.OpChat},
		{"conflicting", benchgen.Conflicting("act_bench", n), benchgen.Chat("act_bench", n), model.OpChat},
		{"responses-items", benchgen.ResponsesItems("act_bench", items), benchgen.ResponsesOneItem("act_bench", 3*items+2), model.OpResponses},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var hostile, plain time.Duration
			for i := 0; i < b.N; i++ {
				plain += cputime.Work(func() { feedJSONL(tc.plain, tc.op) })
				hostile += cputime.Work(func() { feedJSONL(tc.hostile, tc.op) })
			}
			b.ReportMetric(float64(hostile.Milliseconds())/float64(b.N), "hostile-ms")
			b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "normal-ms")
			b.ReportMetric(float64(hostile)/float64(plain), "x-normal")
		})
	}
}

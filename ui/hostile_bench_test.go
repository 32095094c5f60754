package ui

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/stream"
)

func hostileN() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_HOSTILE_N")); err == nil && n >= 8 {
		return n
	}
	return 100000
}

func decodeAll(tb testing.TB, raws [][]byte) []model.StreamChunk {
	out := make([]model.StreamChunk, len(raws))
	for i, r := range raws {
		c, err := model.DecodeChunk(r)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = c
	}
	return out
}

// feedTUI decodes raw chunks and runs them through the TUI model in
// batches of 256, a frame (View) per batch as the 33 ms batching gives a
// fast stream, then the terminal frame, the result and a last frame.
func feedTUI(tb testing.TB, raws [][]byte, op string) *harness {
	h := newHarness(tb, 120, 40)
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1})
	chunks := decodeAll(tb, raws)
	for i := 0; i < len(chunks); i += 256 {
		h.m.Update(stream.BatchMsg{Chunks: chunks[i:min(i+256, len(chunks))], At: t0})
		_ = h.m.View()
	}
	h.m.Update(stream.TerminalMsg{Cursor: "aev_cursor_1_1"})
	r, err := model.DecodeResult([]byte(`{"action_id":"` + testAction + `","status":"completed","output":{"endpoint_id":"e","operation":"` + op + `","http_status":200,"events":[],"text":"","terminal":true,"truncated":false}}`))
	if err != nil {
		tb.Fatal(err)
	}
	h.m.Update(stream.ResultMsg{Result: r})
	_ = h.m.View()
	return h
}

// BenchmarkHostileTUI: the hostile orders through the TUI model
// (Update and a View per batch), each beside the same count in normal
// order in the same run (x-normal: at most 2x is the target), as the
// process's CPU time (cputime.Work).
func BenchmarkHostileTUI(b *testing.B) {
	n := hostileN()
	items := n / 5
	cases := []struct {
		name           string
		hostile, plain [][]byte
		op             string
	}{
		{"descending", benchgen.Descending(benchgen.Chat(testAction, n)), benchgen.Chat(testAction, n), model.OpChat},
		{"conflicting", benchgen.Conflicting(testAction, n), benchgen.Chat(testAction, n), model.OpChat},
		{"responses-items", benchgen.ResponsesItems(testAction, items), benchgen.ResponsesOneItem(testAction, 3*items+2), model.OpResponses},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var hostile, plain time.Duration
			for i := 0; i < b.N; i++ {
				plain += cputime.Work(func() { feedTUI(b, tc.plain, tc.op) })
				hostile += cputime.Work(func() { feedTUI(b, tc.hostile, tc.op) })
			}
			b.ReportMetric(float64(hostile.Milliseconds())/float64(b.N), "hostile-ms")
			b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "normal-ms")
			b.ReportMetric(float64(hostile)/float64(plain), "x-normal")
		})
	}
}

// BenchmarkFrameItems: View() at 120x40 with 20,000 Responses items (the
// hostile many-items turn, settled), each op a scroll step and its frame;
// p99 as BenchmarkFrame reports it (target < 1 ms).
func BenchmarkFrameItems(b *testing.B) {
	items := hostileN() / 5
	h := feedTUI(b, benchgen.ResponsesItems(testAction, items), model.OpResponses)
	var views, cpu []time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	i := 0
	for b.Loop() {
		i++
		k := "k"
		if i%200 < 100 {
			k = "j"
		}
		h.m.Update(keyMsg(k))
		t0, c0 := time.Now(), cputime.Thread()
		_ = h.m.View()
		cpu = append(cpu, cputime.Thread()-c0)
		views = append(views, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(p99ms(views), "p99-ms")
	b.ReportMetric(p99ms(cpu), "p99-cpu-ms")
	b.ReportMetric(pct(views, 50), "p50-ms")
}

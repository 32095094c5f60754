package model_test

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
)

// BenchmarkChunkMemory (target 3): the live heap of a model fed
// 1,000,000 one-token Chat chunks (BENCH_MEMORY_N to change it) with the
// default raw cap: heap-MB (target at most 350), bytes a chunk beyond the
// raw bytes kept, and raw-MB (what the cap bounds). The chunks are made
// and decoded one at a time, so only the model holds them.
func BenchmarkChunkMemory(b *testing.B) {
	n := 1000000
	if v, err := strconv.Atoi(os.Getenv("BENCH_MEMORY_N")); err == nil && v > 0 {
		n = v
	}
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		a := model.NewAction("act_mem")
		at := time.Unix(1789028102, 0)
		for i := 0; i < n; i++ {
			c, err := model.DecodeChunkOwned(benchgen.ChatToken("act_mem", uint64(i+1), "tok"))
			if err != nil {
				b.Fatal(err)
			}
			a.IngestChunk(c, at)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(heap/1e6, "heap-MB")
		b.ReportMetric(float64(a.RawBytes())/1e6, "raw-MB")
		b.ReportMetric((heap-float64(a.RawBytes()))/float64(n), "B/chunk-beyond-raw")
		runtime.KeepAlive(a)
	}
}

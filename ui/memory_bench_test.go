package ui

import (
	"context"
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
)

// BenchmarkFirehoseMemory (memory): the simulator's 100,000-chunk
// firehose through the real stream.Client over loopback into a model
// in-process: the plain/jsonl model alone (model.Action through
// stream.Apply), and the TUI's (the same through Update, with its
// transcript). After the run the heap is collected and the model's share
// measured as the live heap with it minus the live heap once it is
// dropped (the simulator in the same process holds the whole action
// too); model-cap16MiB runs with a 16 MiB raw cap, so the oldest raw
// bytes are dropped. heap-MB is that share, raw-MB what a.RawBytes() retains, and
// x-limit heap-MB / (3 x raw-MB + 20): the target is ≤ 1. Run it with
// -benchtime 1x.
func BenchmarkFirehoseMemory(b *testing.B) {
	for _, tc := range []struct {
		name string
		tui  bool
		cap  int64
	}{{"model", false, 0}, {"tui", true, 0}, {"model-cap16MiB", false, 16 << 20}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				heap, raw, dropped := firehoseHeap(b, tc.tui, tc.cap)
				b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
				b.ReportMetric(float64(raw)/(1<<20), "raw-MB")
				b.ReportMetric(float64(dropped), "raw-dropped-chunks")
				b.ReportMetric(float64(heap)/(3*float64(raw)+20<<20), "x-limit")
			}
		})
	}
}

func firehoseHeap(b *testing.B, tui bool, rawCap int64) (heap, raw int64, dropped int) {
	c, srv := simClient(b, "firehose", sim.Knobs{})
	var a *model.Action
	var m *prog
	var sink stream.Sink
	if tui {
		m = newModel(context.Background(), Options{ActionID: srv.ActionID(), Keys: realKeys(b), RawCap: rawCap})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		a = m.action
		sink = stream.SinkFunc(func(x stream.Msg) { m.Update(x) })
	} else {
		a = model.NewAction(srv.ActionID())
		a.SetRawCap(rawCap)
		sink = stream.SinkFunc(func(x stream.Msg) { stream.Apply(a, x) })
	}
	if err := c.Run(context.Background(), sink); err != nil {
		b.Fatal(err)
	}
	if v := a.Verdict(); v.Word != model.VerdictVerified {
		b.Fatalf("verdict %s %v", v.Word, v.Reasons)
	}
	if n := a.ChunkCount(); n < 100000 {
		b.Fatalf("%d chunks", n)
	}
	raw, dropped = a.RawBytes(), a.RawDropped()
	with := liveHeap()
	runtime.KeepAlive(a)
	runtime.KeepAlive(m)
	a, m, sink = nil, nil, nil //nolint:ineffassign // drop the references before measuring the heap without them
	without := liveHeap()
	runtime.KeepAlive(srv)
	return int64(with) - int64(without), raw, dropped
}

func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

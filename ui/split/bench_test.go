package split

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// BenchmarkSplitStream (design §12: four panes at 1,000 deltas a second
// each stay as smooth as one): a 240x60 split view of four live Chat
// streams, each fed 1,000 deltas a second in 33 ms batches (as
// stream.DefaultBatchInterval delivers them), beside one pane fed the same
// total, 4,000 a second. One op is one second of stream: 30 ticks, each a
// batch a pane, each batch one Update and the frame it causes, one after
// the other as the event loop runs them. The panes' clock runs at the
// stream's pace (33 ms a tick), so what moves with the clock (the elapsed
// time, the last byte's age) is drawn as often as it would be live.
//
//   - delta-p99-ms: a delta's wait from its arrival to the frame that shows
//     it: the rest of its 33 ms batch, the frames of the panes before its
//     own in that tick, then its own Update and View;
//   - frame-p99-ms (and frame-p99-cpu-ms, the thread's CPU): one Update and
//     View;
//   - cpu-ms/s: the process's CPU (the GC's included) per second of stream;
//   - heap-MB: the live heap at the end (the panes' models and screens).
//
// Run it alone: go test -run '^$' -bench SplitStream -benchtime 20x ./ui/split/
func BenchmarkSplitStream(b *testing.B) {
	for _, c := range []struct {
		name         string
		panes, delta int // deltas a second a pane
	}{{"4panes", 4, 1000}, {"1pane", 1, 4000}} {
		b.Run(c.name, func(b *testing.B) { benchSplit(b, c.panes, c.delta) })
	}
}

func benchSplit(b *testing.B, panes, perSecond int) {
	const tick = 33 * time.Millisecond
	perBatch := perSecond * 33 / 1000
	now := time.Now()
	clock := func() time.Time { return now }
	var opts []ui.Options
	for i := range panes {
		opts = append(opts, ui.Options{ActionID: fmt.Sprintf("act_bench_pane_%d", i), Keys: liveKeys(b), NoColor: true, Clock: clock})
	}
	s := New(context.Background(), opts, liveKeys(b), true)
	defer s.Close()
	s.SetSize(240, 60)
	feeds := make([]*feed, panes)
	at := now
	for i, p := range s.Panes() {
		feeds[i] = &feed{tb: b, id: opts[i].ActionID}
		feeds[i].start(p, at)
	}
	_ = s.View(240, 60)
	// The batches, made before the clock runs: one a pane a tick.
	batches := make([][]stream.BatchMsg, panes)
	for i := range batches {
		for range 30 * b.N {
			chunks := make([]model.StreamChunk, perBatch)
			for k := range chunks {
				chunks[k] = feeds[i].delta("tok ")
			}
			batches[i] = append(batches[i], stream.BatchMsg{Chunks: chunks, At: at})
		}
	}
	var lat, frames, frameCPU []time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	cpu0 := cputime.Process()
	n := 0
	b.ResetTimer()
	for range b.N {
		for range 30 {
			now = now.Add(tick)
			queue := time.Duration(0)
			for i, p := range s.Panes() {
				t0, c0 := time.Now(), cputime.Thread()
				p.Update(batches[i][n])
				_ = s.View(240, 60)
				work, cpu := time.Since(t0), cputime.Thread()-c0
				frames, frameCPU = append(frames, work), append(frameCPU, cpu)
				for k := range perBatch {
					// The delta that came k/perBatch of the way into the
					// batch waited for the rest of it, the frames before
					// its own, then its own.
					lat = append(lat, tick-tick*time.Duration(k)/time.Duration(perBatch)+queue+work)
				}
				queue += work
			}
			n++
		}
	}
	b.StopTimer()
	cpuPerSecond := float64(cputime.Process()-cpu0) / float64(time.Millisecond) / float64(n/30)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(cputime.Pct(lat, 99), "delta-p99-ms")
	b.ReportMetric(cputime.Pct(frames, 99), "frame-p99-ms")
	b.ReportMetric(cputime.Pct(frameCPU, 99), "frame-p99-cpu-ms")
	b.ReportMetric(cpuPerSecond, "cpu-ms/s")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
}

// feed makes one action's Chat chunks as the Hermes connector frames them
// (internal/benchgen).
type feed struct {
	tb  testing.TB
	id  string
	seq uint64
}

func (f *feed) decode(raw []byte) model.StreamChunk {
	f.seq++
	c, err := model.DecodeChunk(raw)
	if err != nil {
		f.tb.Fatal(err)
	}
	return c
}

// start makes p's action a streaming Chat turn: its status, the
// connection, the role chunk and a delta for each of words.
func (f *feed) start(p *ui.Live, at time.Time, words ...string) {
	p.Update(stream.StatusMsg{Status: model.ActionStatus{ActionID: f.id, CapabilityID: "hermes_agent.chat_stream", State: "streaming"}})
	p.Update(stream.ConnectedMsg{Attempt: 1})
	chunks := []model.StreamChunk{f.role()}
	for _, w := range words {
		chunks = append(chunks, f.delta(w))
	}
	p.Update(stream.BatchMsg{Chunks: chunks, At: at})
}

func (f *feed) role() model.StreamChunk { return f.decode(benchgen.Chat(f.id, 4)[0]) }

func (f *feed) delta(s string) model.StreamChunk { return f.decode(benchgen.ChatToken(f.id, f.seq, s)) }

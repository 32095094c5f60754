package split

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/internal/benchgen"
	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// BenchmarkSplitStream (design §12: four panes at 1,000 deltas a second
// each stay as smooth as one): a 240x60 split view of four live Chat
// streams, each fed 1,000 deltas a second in 33 ms batches (as
// stream.DefaultBatchInterval delivers them, on the process's beat), beside
// one pane fed the same total, 4,000 a second. One op is one second of
// stream: 30 ticks; in each, every pane's stream hands its batch to its
// view's runner (the backend's sink, as a stream does), the split view's
// gather takes them (ui.Gather: one message, each pane's part), and the
// split view's Update and View make the tick's one frame, as the event loop
// runs them. The panes' clock runs at the stream's pace (33 ms a tick), so
// what moves with the clock (the elapsed time, the last byte's age) is
// drawn as often as it would be live.
//
//   - delta-p99-ms: a delta's wait from its arrival to the frame that shows
//     it: the rest of its 33 ms batch, then the tick's gather, Update and
//     View;
//   - frame-p99-ms (and frame-p99-cpu-ms, the thread's CPU): one tick's
//     gather, Update and View;
//   - cpu-ms/s: the process's CPU (the GC's included) per second of stream;
//   - heap-MB: the live heap at the end (the panes' models and screens).
//
// 4vs1 runs a second of each in turns, op by op, and reports x-1pane: four
// panes' process CPU over one pane's, the median of the ops (the target:
// at most 1.5x, docs/performance.md), and each side's cpu-ms/s.
//
// Run it alone: go test -run '^$' -bench SplitStream -benchtime 20x ./ui/split/
func BenchmarkSplitStream(b *testing.B) {
	for _, c := range []struct {
		name         string
		panes, delta int // deltas a second a pane
	}{{"4panes", 4, 1000}, {"1pane", 1, 4000}} {
		b.Run(c.name, func(b *testing.B) { benchSplit(b, c.panes, c.delta) })
	}
	b.Run("4vs1", benchSplitTurns)
}

func benchSplit(b *testing.B, panes, perSecond int) {
	r := newSplitRig(b, panes, perSecond, b.N)
	defer r.s.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		r.second()
	}
	b.StopTimer()
	cpuPerSecond := float64(cputime.Process()-cpu0) / float64(time.Millisecond) / float64(b.N)
	r.batches = nil // the heap is the panes'
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(cputime.Pct(r.lat, 99), "delta-p99-ms")
	b.ReportMetric(cputime.Pct(r.frames, 99), "frame-p99-ms")
	b.ReportMetric(cputime.Pct(r.frameCPU, 99), "frame-p99-cpu-ms")
	b.ReportMetric(cpuPerSecond, "cpu-ms/s")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
}

// benchSplitTurns: a second of four panes, then a second of one, op by
// op, each side's process CPU measured around its own second.
func benchSplitTurns(b *testing.B) {
	four, one := newSplitRig(b, 4, 1000, b.N), newSplitRig(b, 1, 4000, b.N)
	defer four.s.Close()
	defer one.s.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	var ratios []float64
	var cpu4, cpu1 time.Duration
	b.ResetTimer()
	for range b.N {
		c0 := cputime.Process()
		four.second()
		c1 := cputime.Process()
		one.second()
		c2 := cputime.Process()
		cpu4, cpu1 = cpu4+c1-c0, cpu1+c2-c1
		ratios = append(ratios, float64(c1-c0)/float64(max(c2-c1, 1)))
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "x-1pane")
	b.ReportMetric(float64(cpu4)/float64(time.Millisecond)/float64(b.N), "cpu4-ms/s")
	b.ReportMetric(float64(cpu1)/float64(time.Millisecond)/float64(b.N), "cpu1-ms/s")
}

// splitRig is a split view of live panes whose streams the benchmark
// feeds: each pane's backend hands the benchmark its sink.
type splitRig struct {
	s        *Split
	sinks    []stream.Sink
	batches  [][]stream.BatchMsg // a pane's, one a tick
	perBatch int
	n        int // ticks run
	now      time.Time

	lat, frames, frameCPU []time.Duration
}

const benchTick = 33 * time.Millisecond

func newSplitRig(b *testing.B, panes, perSecond, seconds int) *splitRig {
	r := &splitRig{perBatch: perSecond * 33 / 1000, now: time.Now()}
	clock := func() time.Time { return r.now }
	var opts []ui.Options
	var backends []*sinkBackend
	for i := range panes {
		be := &sinkBackend{sinks: make(chan stream.Sink, 1)}
		backends = append(backends, be)
		opts = append(opts, ui.Options{ActionID: fmt.Sprintf("act_bench_pane_%d", i), Backend: be, Keys: liveKeys(b), NoColor: true, Clock: clock})
	}
	r.s = New(context.Background(), opts)
	r.s.SetSize(240, 60)
	feeds := make([]*feed, panes)
	for i, p := range r.s.Panes() {
		// The pane's start: its backend runs (the gather listens for it;
		// the benchmark runs the gather's listen itself, and the pane's
		// clock tick is left out: the clock moves with the ticks).
		go runCmds(p.Init())
		r.sinks = append(r.sinks, <-backends[i].sinks)
		feeds[i] = &feed{tb: b, id: opts[i].ActionID}
		feeds[i].start(p, r.now)
	}
	_ = r.s.View(240, 60)
	// The batches, made before the clock runs: one a pane a tick.
	r.batches = make([][]stream.BatchMsg, panes)
	for i := range r.batches {
		for range 30 * seconds {
			chunks := make([]model.StreamChunk, r.perBatch)
			for k := range chunks {
				chunks[k] = feeds[i].delta("tok ")
			}
			r.batches[i] = append(r.batches[i], stream.BatchMsg{Chunks: chunks, At: r.now})
		}
	}
	return r
}

// second is one second of stream: 30 ticks, each every pane's batch
// handed over, gathered, and the tick's one Update and View.
func (r *splitRig) second() {
	for range 30 {
		r.now = r.now.Add(benchTick)
		for i, sink := range r.sinks {
			sink.Send(r.batches[i][r.n])
		}
		t0, c0 := time.Now(), cputime.Thread()
		msg := r.s.gather.Listen()()
		r.s.Update(msg)
		_ = r.s.View(240, 60)
		work, cpu := time.Since(t0), cputime.Thread()-c0
		r.frames, r.frameCPU = append(r.frames, work), append(r.frameCPU, cpu)
		for k := range r.perBatch {
			// The delta that came k/perBatch of the way into the batch
			// waited for the rest of it, then the tick's frame.
			r.lat = append(r.lat, benchTick-benchTick*time.Duration(k)/time.Duration(r.perBatch)+work)
		}
		r.n++
	}
}

// sinkBackend is a pane's stream: it hands its sink to the benchmark and
// runs until the pane is closed.
type sinkBackend struct{ sinks chan stream.Sink }

func (s *sinkBackend) Run(ctx context.Context, sink stream.Sink) error {
	s.sinks <- sink
	<-ctx.Done()
	return ctx.Err()
}

func (s *sinkBackend) Cancel(context.Context, string) stream.CancelMsg { return stream.CancelMsg{} }

// runCmds runs cmd and the commands of a batch it makes, each on its own
// goroutine, and drops their messages (the pane's start and its tick).
func runCmds(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if batch, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range batch {
			go runCmds(c)
		}
	}
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

package ui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/internal/cputime"
	"aipwatch/model"
	"aipwatch/stream"
)

// Frame cost (item 3 of the performance issue): View() while following a
// streaming reply, at two screen sizes, on transcripts of 10 KB to 50 MB.
// Each op is one delta batch and the frame it causes; p99-ms is the 99th
// percentile of the View() calls alone (p50-ms the median), view-allocs
// the allocations of one View(). The heap is collected before the timed
// loop, so building the transcript's garbage is not charged to it; run
// with -benchtime 2000x or more so the p99 is not the 2nd-worst of 200.
// Timing goals live here, never in tests.

var frameSizes = []struct {
	name string
	n    int
}{{"10KB", 10 << 10}, {"1MB", 1 << 20}, {"10MB", 10 << 20}, {"50MB", 50 << 20}}

// bigHarness is a following screen whose reply already holds about n bytes
// of text (paragraphs of prose, fed in 64 KiB deltas).
func bigHarness(tb testing.TB, w, h, n int) *harness {
	hs := newHarness(tb, w, h)
	f := hs.f
	hs.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()))
	para := longText(8) + "\n\n"
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(para)
	}
	piece := b.String()
	for done := 0; done < n; done += len(piece) {
		hs.m.Update(f.batch(f.delta(piece)))
	}
	return hs
}

func BenchmarkFrame(b *testing.B) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {200, 60}} {
		for _, tr := range frameSizes {
			b.Run(fmt.Sprintf("%dx%d/%s", sz.w, sz.h, tr.name), func(b *testing.B) {
				h := bigHarness(b, sz.w, sz.h, tr.n)
				f := h.f
				views := make([]time.Duration, 0, 4096)
				cpu := make([]time.Duration, 0, 4096)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				runtime.GC()
				for b.Loop() {
					h.m.Update(f.batch(f.delta("word ")))
					t0, c0 := time.Now(), cputime.Thread()
					_ = h.m.View()
					cpu = append(cpu, cputime.Thread()-c0)
					views = append(views, time.Since(t0))
				}
				b.StopTimer()
				b.ReportMetric(p99ms(views), "p99-ms")
				b.ReportMetric(p99ms(cpu), "p99-cpu-ms")
				b.ReportMetric(pct(views, 50), "p50-ms")
				b.ReportMetric(testing.AllocsPerRun(100, func() { _ = h.m.View() }), "view-allocs")
			})
		}
	}
}

// BenchmarkResize is a resize of the 10 MB transcript (a width change,
// so every line re-wraps), alternating between two widths. p99-cpu-ms
// (and the frames' too) is the p99 of the thread's CPU time for the same
// calls: on the shared 2-core box the wall-clock p99 is set by how long
// other work holds the core, not by the code.
func BenchmarkResize(b *testing.B) {
	h := bigHarness(b, 120, 40, 10<<20)
	var d, cpu []time.Duration
	w := 120
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	for b.Loop() {
		w = 239 - w // 120 ↔ 119
		t0, c0 := time.Now(), cputime.Thread()
		h.m.Update(tea.WindowSizeMsg{Width: w, Height: 40})
		_ = h.m.View()
		cpu = append(cpu, cputime.Thread()-c0)
		d = append(d, time.Since(t0))
	}
	b.ReportMetric(p99ms(d), "p99-ms")
	b.ReportMetric(pct(d, 50), "p50-ms")
	b.ReportMetric(p99ms(cpu), "p99-cpu-ms")
}

// BenchmarkLatency (item 4): deltas arriving at 1,000 a second through the
// client's batching (a batch at most every 33 ms) into Update and View;
// delta-p99-ms is how long the slowest 1 % of deltas waited from arrival
// until a frame showing them was drawn. The wait of the batching itself
// is simulated (each delta's arrival time inside its 33 ms batch); the
// work is real.
func BenchmarkLatency(b *testing.B) {
	h := bigHarness(b, 120, 40, 1<<20)
	f := h.f
	const perBatch = 33 // 1,000 deltas/s in 33 ms batches
	var lat []time.Duration
	for b.Loop() {
		chunks := make([]model.StreamChunk, perBatch)
		for i := range chunks {
			chunks[i] = f.delta("tok ")
		}
		t0 := time.Now()
		h.m.Update(f.batch(chunks...))
		_ = h.m.View()
		work := time.Since(t0)
		for i := range perBatch {
			// The delta that arrived i ms after the batch opened waited
			// (33 - i) ms for the flush, then the work.
			lat = append(lat, time.Duration(perBatch-i)*time.Millisecond+work)
		}
	}
	b.ReportMetric(p99ms(lat), "delta-p99-ms")
}

func p99ms(d []time.Duration) float64 { return pct(d, 99) }

// pct is the p-th percentile of d in milliseconds.
func pct(d []time.Duration, p int) float64 { return cputime.Pct(d, p) }

// Package gcfloor keeps the garbage collector's heap goal above a floor
// while the live heap is small, for the line modes (main.go).
//
// With the default GOGC of 100 the goal is twice the live heap, and at
// least 4 MB: following a firehose, the live heap stays a few MB while
// the follow stream's frames and pages come and go, so the collector ran
// about 25 times before the chunks began to stay, each cycle with its
// fixed costs (its phases, a wake-up of its worker on the one processor
// the line modes run on). A floor of 32 MB there: 12–18% less CPU for
// the whole run (medians of 5–7 interleaved runs), slightly fewer page
// faults, and 15–25 MB more peak memory (docs/performance.md). Once the
// live heap is half the floor, the goal is the default's again: the floor
// costs a small action at most the floor, and a large one nothing.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// defaultPercent is GOGC's default.
const defaultPercent = 100

// minHeap is the runtime's smallest heap goal at GOGC=100 (4 MB; it
// scales with GOGC).
const minHeap = 4 << 20

// Percent is the GOGC that puts the next heap goal at floor, or the
// default once its goal is there already. The runtime's goal is the
// larger of live + (live + roots) × GOGC/100 (roots: the goroutine stacks
// and the globals it scans) and its minimum heap, 4 MB × GOGC/100: the
// percent that brings the minimum heap to the floor is the most it may be
// (more would raise the floor with it), less when the first term reaches
// the floor sooner. Before the first collection live is 0: only the
// minimum heap counts.
func Percent(live, roots, floor uint64) int {
	p := int(defaultPercent * floor / minHeap)
	if live > 0 {
		if live >= floor {
			return defaultPercent
		}
		p = min(p, int(defaultPercent*(floor-live)/(live+roots)))
	}
	return max(defaultPercent, p)
}

// Floor is one floor in force: Start sets it, Stop ends it.
type Floor struct {
	bytes   uint64
	sample  []metrics.Sample
	mu      sync.Mutex // after and Stop: a stopped floor sets GOGC no more
	stopped bool
}

// cycle is an object of its own for each collection: its cleanup runs
// after the collection that found it unreachable, and sets the GOGC for
// the next one.
type cycle struct{ _ *byte } // a pointer: never a tiny allocation, whose cleanup may not run

// Start puts the floor in force for the whole process (GOGC is
// process-wide), from now until Stop.
func Start(bytes uint64) *Floor {
	f := &Floor{bytes: bytes, sample: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	debug.SetGCPercent(Percent(0, 0, bytes))
	f.arm()
	return f
}

func (f *Floor) arm() {
	runtime.AddCleanup(&cycle{}, func(f *Floor) { f.after() }, f)
}

// after runs once a collection is over: the next goal follows the live
// heap it found.
func (f *Floor) after() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	metrics.Read(f.sample)
	live, roots := f.sample[0].Value.Uint64(), f.sample[1].Value.Uint64()+f.sample[2].Value.Uint64()
	debug.SetGCPercent(Percent(live, roots, f.bytes))
	f.arm()
}

// Stop ends the floor and puts GOGC back to its default.
func (f *Floor) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	debug.SetGCPercent(defaultPercent)
}

// Package gcfloor keeps the garbage collector's heap goal above a floor
// while the live heap is small, for a run of one action, in the TUI and
// the line modes (main.go).
//
// With the default GOGC of 100 the goal is twice the live heap, and at
// least 4 MB: following a firehose, the live heap stays a few MB while
// the follow stream's frames and pages come and go, so the collector ran
// about 25 times before the chunks began to stay, each cycle with its
// fixed costs (its phases, a wake-up of its worker, on the one processor
// the line modes run on or beside the TUI's drawing). A floor of 32 MB
// there: 12–18% less CPU for the whole run in jsonl and about 12% in the
// TUI (medians of 5–16 interleaved runs), slightly fewer page faults, and
// 15–25 MB more peak memory (docs/performance.md). Once the
// live heap is half the floor, the default's goal is the floor or more:
// the floor retires and GOGC is the default's from then on, so a large
// action is run as without it.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
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

// watchEvery is how often the watch checks for a collection the cleanup
// chain missed.
const watchEvery = 50 * time.Millisecond

// Floor is one floor in force: Start sets it, Stop ends it. The percent
// is set again after each collection, by two ways that may both see one:
// a cleanup of an object of its own for each collection (at once, but an
// object allocated while a collection marks survives it, so that
// collection passes unseen and the percent would stay one collection
// late), and a watch of the collections' count every watchEvery.
type Floor struct {
	bytes  uint64
	sample []metrics.Sample
	before int           // GOGC when Start was called, put back by Stop
	done   chan struct{} // closed when the floor retires or stops

	mu     sync.Mutex
	cycles uint64 // collections done when the percent was last set
	ended  bool   // retired or stopped: GOGC is not set again
}

// cycle is an object of its own for each collection: its cleanup runs
// after the collection that found it unreachable.
type cycle struct{ _ *byte } // a pointer: never a tiny allocation, whose cleanup may not run

// Start puts the floor in force for the whole process (GOGC is
// process-wide), from now until Stop, or until the live heap is half
// the floor.
func Start(bytes uint64) *Floor {
	f := &Floor{bytes: bytes, done: make(chan struct{}), sample: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}}
	f.before = debug.SetGCPercent(defaultPercent)
	f.mu.Lock()
	f.set()
	f.mu.Unlock()
	f.arm()
	go f.watch()
	return f
}

func (f *Floor) arm() {
	runtime.AddCleanup(&cycle{}, func(f *Floor) { f.after() }, f)
}

// after runs once a collection is over, from the cleanup chain.
func (f *Floor) after() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended {
		return
	}
	f.set()
	if !f.ended {
		f.arm()
	}
}

// watch sets the percent for any collection the cleanup chain has not.
func (f *Floor) watch() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			return
		case <-t.C:
		}
		f.mu.Lock()
		if !f.ended {
			metrics.Read(f.sample[3:])
			if f.sample[3].Value.Uint64() != f.cycles {
				f.set()
			}
		}
		f.mu.Unlock()
	}
}

// set sets the percent for the live heap the last collection found (with
// f.mu held), and retires the floor once that is the default's.
func (f *Floor) set() {
	metrics.Read(f.sample)
	live := f.sample[0].Value.Uint64()
	roots := f.sample[1].Value.Uint64() + f.sample[2].Value.Uint64()
	f.cycles = f.sample[3].Value.Uint64()
	if live > 0 && 2*live >= f.bytes {
		debug.SetGCPercent(f.before)
		f.end()
		return
	}
	debug.SetGCPercent(Percent(live, roots, f.bytes))
}

func (f *Floor) end() {
	if !f.ended {
		f.ended = true
		close(f.done)
	}
}

// Stop ends the floor and puts back the GOGC that was in force before it.
func (f *Floor) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ended {
		debug.SetGCPercent(f.before)
		f.end()
	}
}

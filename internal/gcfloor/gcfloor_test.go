package gcfloor

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, roots, floor uint64
		want               int
	}{
		{0, 0, 32 * mb, 800},            // before the first cycle: the minimum heap, 4 MB at 100, scaled to 32 MB
		{0, 0, 2 * mb, 100},             // a floor under the runtime's minimum changes nothing
		{2 * mb, 0, 32 * mb, 800},       // 2 MB live: the minimum heap is the floor (2 + 2 × 8 is less)
		{2 * mb, 4 * mb, 32 * mb, 500},  // with 4 MB of roots: 2 + 6 × 5
		{8 * mb, 0, 32 * mb, 300},       // 8 + 8 × 3
		{15 * mb, 0, 32 * mb, 113},      // just under half: 15 + 15 × 1.13
		{12 * mb, 4 * mb, 32 * mb, 125}, // 12 + 16 × 1.25
		{14 * mb, 4 * mb, 32 * mb, 100}, // 14 + 18 × 1: the default's goal is past the floor
		{16 * mb, 0, 32 * mb, 100},      // half the floor: the default's goal is the floor
		{90 * mb, 4 * mb, 32 * mb, 100}, // a large heap: the default
	} {
		if got := Percent(tc.live, tc.roots, tc.floor); got != tc.want {
			t.Errorf("Percent(%d MB, %d MB, %d MB) = %d, want %d", tc.live/mb, tc.roots/mb, tc.floor/mb, got, tc.want)
		}
	}
}

// churn allocates n bytes of garbage, 64 KiB at a time, beside a small
// live heap, and returns how many collections ran meanwhile.
func churn(n int) uint32 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.NumGC
	keep := make([][]byte, 8)
	for i := 0; i < n>>16; i++ {
		keep[i%len(keep)] = make([]byte, 64<<10)
	}
	runtime.KeepAlive(keep)
	runtime.ReadMemStats(&ms)
	return ms.NumGC - before
}

// With the floor in force, churning a small heap takes a few collections
// where the default takes one every 4 MB; after Stop, the default's again.
func TestFloorFewerCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const n = 256 << 20
	plain := churn(n)
	f := Start(64 << 20)
	floored := churn(n)
	f.Stop()
	after := churn(n)
	t.Logf("collections for %d MB of garbage: default %d, floor 64 MB %d, after Stop %d", n>>20, plain, floored, after)
	if plain < 20 || floored*3 > plain || floored < 2 {
		t.Fatalf("collections: default %d, with the floor %d (want a third or fewer, and at least 2: the floor is a floor, not GOGC=off)", plain, floored)
	}
	// The count after Stop is not the default's at once (the default's
	// goal follows a marked heap the floor's long cycles made larger):
	// GOGC is what says the floor is gone.
	if gogc() != 100 {
		t.Fatalf("GOGC %d after Stop", gogc())
	}
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// eventually waits (polling, up to 10 s: a loaded box) for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC %d, heap goal %.1f MB", what, gogc(), float64(heapGoal())/(1<<20))
		}
		time.Sleep(time.Millisecond)
	}
}

// After each collection the goal is the floor again for the live heap it
// found, until the live heap is half the floor: then the floor retires
// and GOGC is the default's for good. On one processor, as in the line
// modes, a collection's cleanup can run only after the next collection
// has begun, and that one passes without a cleanup of its own: the watch
// sets the percent for it.
func TestFloorFollowsTheLiveHeap(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const floor = 64 << 20
	atFloor := func() bool { g := heapGoal(); return gogc() > 100 && g >= floor-floor/16 && g <= floor+floor/16 }
	f := Start(floor)
	defer f.Stop()
	for _, mb := range []int{4, 12, 24} {
		held = make([]byte, mb<<20)
		runtime.GC()
		runtime.KeepAlive(held)
		eventually(t, fmt.Sprintf("%d MB live: the goal is not the floor", mb), atFloor)
	}
	// Two collections back to back, the live heap changed between them:
	// the first one's cleanup comes while the second marks.
	held = make([]byte, 24<<20)
	runtime.GC()
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	runtime.KeepAlive(held)
	eventually(t, "after two collections in a row: the goal is not the floor", atFloor)
	held = make([]byte, 40<<20) // over half the floor
	runtime.GC()
	runtime.KeepAlive(held)
	eventually(t, "40 MB live: the floor did not retire", func() bool {
		select {
		case <-f.done:
			return gogc() == 100
		default:
			return false
		}
	})
	held = nil
	runtime.GC()
	runtime.GC()
	runtime.KeepAlive(held)
	time.Sleep(3 * watchEvery)
	if gogc() != 100 {
		t.Fatalf("the retired floor set GOGC %d", gogc())
	}
}

// held is a live heap of the test's size: a global, so that the compiler
// cannot drop a value it sees never read.
var held []byte

// Percent's reading of the runtime's goal is the runtime's: set after a
// collection, the goal it gives is the floor, at a few floors, with a
// small live heap (where the minimum heap decides) and a larger one.
func TestPercentGivesTheFloor(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	for _, keepMB := range []int{0, 6} {
		keep := make([]byte, keepMB<<20)
		for _, floor := range []uint64{16 << 20, 32 << 20, 64 << 20} {
			runtime.GC()
			metrics.Read(s)
			live, roots := s[0].Value.Uint64(), s[1].Value.Uint64()+s[2].Value.Uint64()
			debug.SetGCPercent(Percent(live, roots, floor))
			metrics.Read(s)
			if goal := s[3].Value.Uint64(); goal < floor-floor/32 || goal > floor+floor/32 {
				t.Errorf("floor %d MB: goal %.1f MB (live %.1f MB, roots %.1f MB)", floor>>20, float64(goal)/(1<<20), float64(live)/(1<<20), float64(roots)/(1<<20))
			}
		}
		runtime.KeepAlive(keep)
	}
}

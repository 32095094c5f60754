package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// runEnd is how a run ends after its chunks: every way of ending the follow
// (aip.stream.terminal seen) without settling the action, and for contrast
// the ways that settle it or stop the viewer.
type runEnd struct {
	name   string
	result []byte // a result to decode and set, when it decodes
	state  string // a state to set ("" = none)
	frame  bool   // aip.stream.terminal seen
	stop   bool   // the viewer stops (PhaseStopped)
}

// apply ends the run on a. When nothing said the chunks are over (no
// terminal frame, result, terminal state or stop), the follow is still on
// and a read may lag behind late chunks (IngestChunk's credit): Sync, as a
// live consumer may, is then what makes it exact.
func (e runEnd) apply(a *Action) {
	ended := e.frame || e.stop || TerminalState(e.state)
	if r, err := DecodeResult(e.result); len(e.result) > 0 && err == nil && r.Status != "" {
		a.SetResult(r)
		ended = true
	}
	if e.state != "" {
		a.SetStatus(ActionStatus{ActionID: a.ID, State: e.state})
	}
	if e.frame {
		a.MarkTerminalFrame()
	}
	if e.stop {
		a.Stop()
	}
	if !ended {
		a.Sync()
	}
}

// drawRunEnd draws an end for a scenario whose result is raw: the result
// cut at any byte (mid-array, mid-string: it no longer decodes), a result
// that is not an outcome, a state that settles nothing, no answer at all,
// or the whole result / a stop.
func drawRunEnd(t *rapid.T, raw []byte) runEnd {
	states := []string{"", StateUnknown, StateAccepted, StateQueued, StateRunning, StateStreaming,
		StatePendingApproval, StateCancelling, StateCompleted, StateFailed, StateExpired, StateCancelled}
	state := rapid.SampledFrom(states).Draw(t, "state")
	frame := rapid.IntRange(0, 3).Draw(t, "terminal frame") > 0
	switch rapid.IntRange(0, 4).Draw(t, "end") {
	case 0:
		cut := rapid.IntRange(0, max(0, len(raw)-1)).Draw(t, "cut")
		return runEnd{name: "result cut", result: raw[:cut], state: state, frame: frame}
	case 1:
		return runEnd{name: "result pending_approval",
			result: []byte(`{"action_id":"x","status":"pending_approval","output":{"approval_id":"apr_1"}}`), state: state, frame: frame}
	case 2:
		return runEnd{name: "no result", state: state, frame: frame}
	case 3:
		return runEnd{name: "whole result", result: raw, state: state, frame: frame}
	}
	return runEnd{name: "stopped", state: state, frame: frame, stop: true}
}

// The class behind FuzzIngest's 73ccadb3fc5a371f: chunks arriving below the
// highest sequence wait for a rebuild that later chunks pay for
// (IngestChunk's credit), and only a settled or stopped action used to
// apply the rest. A run whose follow ended (terminal frame) without
// settling (its result cut mid-array or otherwise undecodable, a
// pending_approval result, a state that settles nothing, no result at all)
// kept the late chunks out for every reader: the transcript depended on the
// arrival order. Every chunk order, with every such end, gives the model
// the same chunks give in order.
func TestPropertyOrderFreeWhateverTheEnd(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob(filepath.Join("testdata", "*.chunks.jsonl"))
	if len(names) == 0 {
		t.Fatal("no scenarios")
	}
	type fixture struct {
		chunks []StreamChunk
		result []byte
	}
	fixtures := map[string]fixture{}
	var scenarios []string
	for _, p := range names {
		name := strings.TrimSuffix(filepath.Base(p), ".chunks.jsonl")
		raw, err := os.ReadFile(filepath.Join("testdata", name+".result.json"))
		if err != nil {
			t.Fatal(err)
		}
		fixtures[name] = fixture{loadChunks(t, name), raw}
		scenarios = append(scenarios, name)
	}
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(scenarios).Draw(rt, "scenario")
		fx := fixtures[name]
		end := drawRunEnd(rt, fx.result)

		want := NewAction(fx.chunks[0].ActionID)
		feed(t, want, fx.chunks)
		end.apply(want)

		a := NewAction(fx.chunks[0].ActionID)
		read := rapid.Bool().Draw(rt, "read between arrivals")
		for _, ar := range drawArrivals(rt, len(fx.chunks)) {
			c := fx.chunks[ar.idx]
			if ar.reencode {
				c = reencode(t, c)
			}
			a.IngestChunk(c, t0)
			if read {
				_ = a.Text() // reads never decide what is applied
			}
		}
		end.apply(a)
		if got, w := snapshot(a), snapshot(want); got != w {
			rt.Fatalf("%s: arrival order changed the model\n--- got\n%s--- in order\n%s", end.name, got, w)
		}
	})
}

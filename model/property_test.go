package model

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

var propertyScenarios = []string{
	"chat_stop", "chat_old_tool", "chat_length", "chat_upstream_closed",
	"responses_completed", "responses_gap", "responses_mismatch",
}

// reencode gives the same chunk with other bytes: indented, keys sorted.
func reencode(t testing.TB, c StreamChunk) StreamChunk {
	var v any
	if err := json.Unmarshal(c.Raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(v, "", " ")
	re, err := DecodeChunk(b)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

type arrival struct {
	idx      int  // index into the scenario's chunks
	reencode bool // an equal chunk with other bytes
}

// drawArrivals: every chunk at least once, some repeated (byte-identical or
// re-encoded), in any order. Any order other than ascending makes the model
// take its rebuild path.
func drawArrivals(t *rapid.T, n int) []arrival {
	var list []arrival
	for i := 0; i < n; i++ {
		copies := rapid.IntRange(1, 3).Draw(t, "copies")
		for k := 0; k < copies; k++ {
			list = append(list, arrival{idx: i, reencode: k > 0 && rapid.Bool().Draw(t, "reencode")})
		}
	}
	if rapid.Bool().Draw(t, "shuffle") {
		list = rapid.Permutation(list).Draw(t, "order")
	}
	return list
}

// Any interleaving of replays and duplicates of a valid chunk sequence,
// including out-of-order arrival, gives the same final model and verdict as
// the sequence applied once in order.
func TestPropertyReplayAndOrderInvariance(t *testing.T) {
	t.Parallel()
	type fixture struct {
		chunks []StreamChunk
		result ActionResult
		want   string
	}
	fixtures := map[string]fixture{}
	for _, name := range propertyScenarios {
		chunks := loadChunks(t, name)
		ref := NewAction(chunks[0].ActionID)
		feed(t, ref, chunks)
		ref.SetResult(loadResult(t, name))
		fixtures[name] = fixture{chunks, loadResult(t, name), snapshot(ref)}
	}
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(propertyScenarios).Draw(rt, "scenario")
		fx := fixtures[name]
		a := NewAction(fx.chunks[0].ActionID)
		seen := map[int]bool{}
		for _, ar := range drawArrivals(rt, len(fx.chunks)) {
			c := fx.chunks[ar.idx]
			if ar.reencode {
				c = reencode(t, c)
			}
			got := a.IngestChunk(c, t0)
			want := Applied
			if seen[ar.idx] {
				want = Replayed
			}
			if got != want {
				rt.Fatalf("chunk %d: %v, want %v", ar.idx, got, want)
			}
			seen[ar.idx] = true
		}
		a.SetResult(fx.result)
		if got := snapshot(a); got != fx.want {
			rt.Fatalf("model differs from the in-order model\n--- got\n%s--- want\n%s", got, fx.want)
		}
	})
}

// A conflicting repeat (same sequence, other content, after the original)
// never changes the text, the items or the tools; each is one anomaly.
func TestPropertyConflictNeverChangesText(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(propertyScenarios).Draw(rt, "scenario")
		chunks := loadChunks(t, name)
		ref := NewAction(chunks[0].ActionID)
		feed(t, ref, chunks)

		list := drawArrivals(rt, len(chunks))
		type step struct {
			arrival
			forged bool
		}
		steps := make([]step, 0, len(list))
		for _, ar := range list {
			steps = append(steps, step{arrival: ar})
		}
		conflicts := rapid.IntRange(1, 4).Draw(rt, "conflicts")
		for k := 0; k < conflicts; k++ {
			j := rapid.IntRange(0, len(chunks)-1).Draw(rt, "target")
			first := 0
			for first < len(steps) && (steps[first].idx != j || steps[first].forged) {
				first++
			}
			at := rapid.IntRange(first+1, len(steps)).Draw(rt, "at")
			steps = append(steps[:at], append([]step{{arrival: arrival{idx: j}, forged: true}}, steps[at:]...)...)
		}

		a := NewAction(chunks[0].ActionID)
		for _, s := range steps {
			c := chunks[s.idx]
			if s.forged {
				c = hermes(c.ActionID, c.Sequence, "", "", content("FORGED TEXT"))
				if got := a.IngestChunk(c, t0); got != Conflict {
					rt.Fatalf("forged chunk %d: %v, want Conflict", s.idx, got)
				}
				continue
			}
			if s.reencode {
				c = reencode(t, c)
			}
			a.IngestChunk(c, t0)
		}
		// Chunks that arrived late may wait for a rebuild until the action
		// settles (IngestChunk's credit); the property is about content.
		a.Sync()
		if a.Text() != ref.Text() || strings.Contains(a.Text(), "FORGED") {
			rt.Fatalf("text %q, want %q", a.Text(), ref.Text())
		}
		if got, want := itemsAndTools(a), itemsAndTools(ref); got != want {
			rt.Fatalf("items/tools changed:\n%s\nwant\n%s", got, want)
		}
		if n := countAnomalies(a, AnomalyConflict); n != conflicts {
			rt.Fatalf("%d conflict anomalies, want %d", n, conflicts)
		}
		a.SetResult(loadResult(t, name))
		ref.SetResult(loadResult(t, name))
		if rv, v := ref.Verdict(), a.Verdict(); rv.Row >= 12 && (v.Word != VerdictIncomplete || v.Row != 12) {
			rt.Fatalf("a conflict over a %s (row %d) stream gave %s row %d", rv.Word, rv.Row, v.Word, v.Row)
		}
	})
}

func itemsAndTools(a *Action) string {
	s := snapshot(a)
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "item ") || strings.HasPrefix(line, "  part ") || strings.HasPrefix(line, "tool ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

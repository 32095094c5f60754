package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzArrival is one chunk arrival drawn from the fuzz input.
type fuzzArrival struct {
	idx    int  // into the decoded chunks
	spaced bool // the same chunk with other spacing (json.Indent)
}

// fuzzArrivals reads the order bytes: none means every chunk once, in
// script order; otherwise each byte picks a chunk (any order, any number of
// repeats) and whether it comes re-spaced.
func fuzzArrivals(n int, order []byte) []fuzzArrival {
	if n == 0 {
		return nil
	}
	var out []fuzzArrival
	if len(order) == 0 {
		for i := 0; i < n; i++ {
			out = append(out, fuzzArrival{idx: i})
		}
		return out
	}
	for _, b := range order[:min(len(order), 512)] {
		out = append(out, fuzzArrival{idx: int(b>>1) % n, spaced: b&1 == 1})
	}
	return out
}

// respace is the same JSON with other whitespace (keys and their order
// kept), so it must always be a replay of the original.
func respace(t *testing.T, c StreamChunk) StreamChunk {
	var buf bytes.Buffer
	if err := json.Indent(&buf, c.Raw, " ", "\t"); err != nil {
		t.Fatalf("indent of a decoded chunk: %v", err)
	}
	re, err := DecodeChunk(buf.Bytes())
	if err != nil {
		t.Fatalf("re-spaced chunk does not decode: %v", err)
	}
	return re
}

// observe calls everything a renderer or printer reads, and returns the
// record as JSON.
func observe(t *testing.T, a *Action) string {
	rec := a.Record()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatalf("record does not marshal: %v", err)
	}
	if rec.Tools == nil || rec.Reasons == nil {
		t.Fatalf("record with null tools or reasons: %s", b)
	}
	v := a.Verdict()
	if rec.Verdict != v.Word || rec.UnconfirmedToolEffects != v.UnconfirmedToolEffects || rec.Chunks != len(a.Sequences()) {
		t.Fatalf("record %s disagrees with verdict %+v", b, v)
	}
	if v.Final != a.Settled() {
		t.Fatalf("verdict final=%v but settled=%v", v.Final, a.Settled())
	}
	if v.Final {
		if _, ok := exitCodes[v.Word]; !ok || v.Row < 1 || v.Row > 13 {
			t.Fatalf("settled verdict %+v", v)
		}
	} else if v.Word != LiveFollowing && v.Word != LiveAwaitingResult && v.Word != VerdictPending {
		t.Fatalf("live verdict %+v", v)
	}
	_ = a.Text()
	for _, it := range a.Items() {
		_, _, _ = it.Text(), it.StreamedText(), it.TextLen()
	}
	_ = a.Tools()
	_ = a.Notes()
	_ = a.Anomalies()
	_ = a.CancelOutcome()
	_, _ = a.Reconcile()
	_, _ = a.LastSequence()
	return string(b)
}

// derivedView is the snapshot without what ingestion alone decides
// (conflict, foreign and raw_dropped anomalies, and so the record and the
// verdict), plus the interpretation anomalies, order-free.
func derivedView(a *Action) string {
	var keep []string
	for _, line := range strings.Split(snapshot(a), "\n") {
		if !strings.HasPrefix(line, "record=") && !strings.HasPrefix(line, "verdict=") && !strings.HasPrefix(line, "anomalies=") {
			keep = append(keep, line)
		}
	}
	var anoms []string
	for _, an := range a.Anomalies() {
		if an.Kind != AnomalyConflict && an.Kind != AnomalyForeignChunk && an.Kind != AnomalyDroppedRaw {
			anoms = append(anoms, fmt.Sprintf("%s@%d %s", an.Kind, an.Sequence, an.Detail))
		}
	}
	slices.Sort(anoms)
	return strings.Join(keep, "\n") + "\n" + strings.Join(anoms, "\n")
}

func ingestOnly(a *Action) bool {
	for _, an := range a.Anomalies() {
		if an.Kind == AnomalyConflict || an.Kind == AnomalyForeignChunk {
			return true
		}
	}
	return false
}

// recordWithoutDropNotice is a's record as JSON with the one raw_dropped
// anomaly taken off its count.
func recordWithoutDropNotice(a *Action) string {
	r := a.Record()
	if a.RawDropped() > 0 {
		r.Anomalies--
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// FuzzIngest: arbitrary chunk JSON (one object a line), arriving in any
// order with any repeats, plus an arbitrary result (or a state). Nothing
// panics; every read is deterministic and does not change what follows;
// re-sending what was kept (byte-identical or re-spaced) is a replay that
// changes nothing; the model equals one fed only the kept chunks once, in
// sequence order; and one that keeps no raw bytes at all (a raw cap of one
// byte) decides every replay and conflict alike and ends the same, but for
// its one raw_dropped notice.
func FuzzIngest(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.chunks.jsonl"))
	for _, p := range names {
		script, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		res, _ := os.ReadFile(strings.TrimSuffix(p, ".chunks.jsonl") + ".result.json")
		f.Add(script, []byte(nil), res)
		// Backwards, every chunk twice, every other one re-spaced.
		n := bytes.Count(script, []byte("\n")) + 1
		var order []byte
		for i := n - 1; i >= 0; i-- {
			order = append(order, byte(i<<1), byte(i<<1|1))
		}
		f.Add(script, order, res)
	}
	f.Add([]byte(`{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"hi"}}
{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"forged"}}
{"action_id":"act_other","sequence":1,"kind":"done"}
{"action_id":"act_g","sequence":2,"kind":"done","data":{"reason":"x","operation":"chat_stream"}}
{"action_id":"act_g","sequence":1,"kind":"tool","data":{"tool":"t"}}`), []byte{0, 2, 4, 8, 6, 1}, []byte("expired"))
	f.Add([]byte(`{"sequence":18446744073709551615,"kind":"error","data":{"hermes_sse":{"data":{"type":"response.output_text.delta","output_index":9223372036854775807,"delta":"x"},"raw_data":"","terminal":true}}}`),
		[]byte(nil), []byte(`{"status":"completed","output":{"operation":"responses_stream","terminal":true}}`))

	f.Fuzz(func(t *testing.T, script, order, result []byte) {
		var chunks []StreamChunk
		for _, line := range bytes.Split(script, []byte("\n")) {
			if c, err := DecodeChunk(line); err == nil {
				chunks = append(chunks, c)
			}
		}
		id := "act_fuzz"
		if len(chunks) > 0 {
			id = chunks[0].ActionID
		}
		arrivals := fuzzArrivals(len(chunks), order)
		finish := func(a *Action) {
			if r, err := DecodeResult(result); err == nil && r.Status != "" {
				a.SetResult(r)
			} else if len(result) > 0 && len(result) < 32 {
				a.SetStatus(ActionStatus{ActionID: id, State: string(result)})
			}
			a.MarkTerminalFrame()
		}

		// a is observed after every arrival; b never until the end; capped
		// drops every chunk's raw bytes as soon as it can.
		a, b, capped := NewAction(id), NewAction(id), NewAction(id)
		capped.SetRawCap(1)
		for _, ar := range arrivals {
			c := chunks[ar.idx]
			if ar.spaced {
				c = respace(t, c)
			}
			got := a.IngestChunk(c, t0)
			b.IngestChunk(c, t0)
			if cg := capped.IngestChunk(c, t0); cg != got {
				t.Fatalf("chunk %d without raw bytes kept: %v, with them: %v\n%s", c.Sequence, cg, got, c.Raw)
			}
			observe(t, a)
		}
		if sa, sb := snapshot(a), snapshot(b); sa != sb {
			t.Fatalf("reading the model changed it:\n%s\n---\n%s", sa, sb)
		}
		finish(a)
		finish(b)
		finish(capped)
		recA := observe(t, a)
		observe(t, capped)
		if got := recordWithoutDropNotice(capped); got != recA {
			t.Fatalf("dropping raw bytes changed the record:\n%s\n%s", recA, got)
		}
		if got, want := derivedView(capped), derivedView(a); got != want {
			t.Fatalf("dropping raw bytes changed the model:\n%s\n--- with them:\n%s", got, want)
		}
		if again := observe(t, a); again != recA {
			t.Fatalf("Record is not deterministic:\n%s\n%s", recA, again)
		}
		if recB := observe(t, b); recB != recA {
			t.Fatalf("same input, other record:\n%s\n%s", recA, recB)
		}
		if a.Text() != b.Text() || snapshot(a) != snapshot(b) {
			t.Fatal("not deterministic")
		}

		// Replays of what was kept change nothing, in any order.
		before, v := snapshot(a), a.Version
		seqs := a.Sequences()
		for i := len(seqs) - 1; i >= 0; i-- {
			kept, _ := a.ChunkAt(seqs[i])
			for _, c := range []StreamChunk{kept.StreamChunk, respace(t, kept.StreamChunk)} {
				if got := a.IngestChunk(c, t0); got != Replayed {
					t.Fatalf("replay of kept chunk %d: %v\n%s", seqs[i], got, c.Raw)
				}
				if got := capped.IngestChunk(c, t0); got != Replayed {
					t.Fatalf("replay of kept chunk %d without raw bytes kept: %v\n%s", seqs[i], got, c.Raw)
				}
			}
		}
		if after := snapshot(a); after != before || a.Version != v {
			t.Fatalf("replays changed the model:\n%s\n---\n%s", before, after)
		}

		// The kept chunks once, in sequence order, give the same model.
		in := NewAction(id)
		for _, s := range seqs {
			kept, _ := a.ChunkAt(s)
			if got := in.IngestChunk(kept.StreamChunk, t0); got != Applied {
				t.Fatalf("kept chunk %d in order: %v", s, got)
			}
		}
		finish(in)
		if got, want := derivedView(in), derivedView(a); got != want {
			t.Fatalf("arrival order changed the model:\n%s\n--- in order:\n%s", want, got)
		}
		if !ingestOnly(a) {
			if got := observe(t, in); got != recA {
				t.Fatalf("arrival order changed the record:\n%s\n%s", recA, got)
			}
		}
	})
}

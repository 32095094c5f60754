package model

import (
	"strings"
	"testing"
)

// Contract §3: evidence that contradicts itself is never verified. A second
// finish or terminal frame that disagrees with the first is a conflict (row
// 12) unless a row above already decided, and the worse finish counts.
func TestVerdictContradictingFinishes(t *testing.T) {
	failedFinish := finish("error", obj{"error": obj{"message": "boom", "type": "server_error"},
		"hermes": obj{"completed": false, "failed": true}})
	cases := []struct {
		name     string
		frames   []any
		word     string
		row      int
		conflict bool
	}{
		{"stop then error with an error object and hermes.failed", []any{role(), content("x"), finish("stop", nil), failedFinish, "[DONE]"},
			VerdictFailed, 9, true},
		{"error then stop: the worse still counts", []any{role(), content("x"), failedFinish, finish("stop", nil), "[DONE]"},
			VerdictFailed, 9, true},
		{"stop then length", []any{role(), content("x"), finish("stop", nil), finish("length", nil), "[DONE]"},
			VerdictPartial, 8, true},
		{"length then stop", []any{role(), content("x"), finish("length", nil), finish("stop", nil), "[DONE]"},
			VerdictPartial, 8, true},
		{"stop then a stop carrying hermes.failed", []any{role(), content("x"), finish("stop", nil),
			finish("stop", obj{"hermes": obj{"failed": true}}), "[DONE]"}, VerdictFailed, 9, true},
		{"stop then content_filter", []any{role(), content("x"), finish("stop", nil), finish("content_filter", nil), "[DONE]"},
			VerdictIncomplete, 7, true},
		{"stop, [DONE], then an error finish after the terminal chunk", []any{role(), content("x"), finish("stop", nil), "[DONE]", failedFinish},
			VerdictFailed, 9, true},
		{"no finish, [DONE], then a stop finish after it: still row 7", []any{role(), content("x"), "[DONE]", finish("stop", nil)},
			VerdictIncomplete, 7, false},
		{"stop then stop agrees", []any{role(), content("x"), finish("stop", nil), finish("stop", nil), "[DONE]"},
			VerdictVerified, 13, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAction("act_c")
			feed(t, a, chatSeq("act_c", tc.frames...))
			a.SetResult(completedResult("act_c", OpChat))
			v := a.Verdict()
			if v.Word != tc.word || v.Row != tc.row {
				t.Fatalf("verdict %s row %d %v, want %s row %d", v.Word, v.Row, v.Reasons, tc.word, tc.row)
			}
			if got := hasAnomaly(a, AnomalyConflict); got != tc.conflict {
				t.Fatalf("conflict anomaly %v, want %v: %+v", got, tc.conflict, a.Anomalies())
			}
			// Arrival order does not matter: reversed, the same verdict.
			b := NewAction("act_c")
			chunks := chatSeq("act_c", tc.frames...)
			for i := len(chunks) - 1; i >= 0; i-- {
				b.IngestChunk(chunks[i], t0)
			}
			b.SetResult(completedResult("act_c", OpChat))
			if w := b.Verdict(); w.Word != v.Word || w.Row != v.Row {
				t.Fatalf("reversed arrival: %s row %d, in order %s row %d", w.Word, w.Row, v.Word, v.Row)
			}
		})
	}
	// With nothing above deciding, the conflict itself is row 12: two
	// finishes that disagree only in a reason the contract does not rank
	// apart.
	a := NewAction("act_c")
	feed(t, a, chatSeq("act_c", role(), content("x"), finish("content_filter", nil), finish("tool_calls", nil), "[DONE]"))
	a.SetResult(completedResult("act_c", OpChat))
	if v := a.Verdict(); v.Row != 7 || v.Word != VerdictIncomplete {
		t.Fatalf("two unranked finishes: %+v", v)
	}
}

func TestVerdictContradictingResponsesTerminals(t *testing.T) {
	frames := func(second string, secondKind ChunkKind) []StreamChunk {
		chunks := respSeq("act_r",
			obj{"type": "response.created", "response": obj{"id": "resp_1", "status": "in_progress"}},
			obj{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "hi"},
			obj{"type": "response.failed", "response": obj{"id": "resp_1", "status": "failed", "error": obj{"message": "x"}}},
		)
		// The first terminal frame as a hostile server may label it: kind data.
		chunks[2] = hermes("act_r", 2, KindData, "response.failed",
			obj{"type": "response.failed", "sequence_number": 2, "response": obj{"id": "resp_1", "status": "failed"}})
		return append(chunks, hermes("act_r", 3, secondKind, second,
			obj{"type": second, "sequence_number": 3, "response": obj{"id": "resp_1", "status": strings.TrimPrefix(second, "response.")}}))
	}
	for _, tc := range []struct {
		name   string
		chunks []StreamChunk
		word   string
		row    int
	}{
		{"failed then completed (both data)", frames("response.completed", KindData), VerdictFailed, 10},
		{"failed then completed (done)", frames("response.completed", KindDone), VerdictFailed, 10},
		{"failed then incomplete", frames("response.incomplete", KindData), VerdictFailed, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAction("act_r")
			feed(t, a, tc.chunks)
			a.SetResult(completedResult("act_r", OpResponses))
			if v := a.Verdict(); v.Word != tc.word || v.Row != tc.row {
				t.Fatalf("verdict %s row %d %v", v.Word, v.Row, v.Reasons)
			}
			if !hasAnomaly(a, AnomalyConflict) {
				t.Fatalf("no conflict anomaly: %+v", a.Anomalies())
			}
		})
	}
	// completed then incomplete: the worse (incomplete, row 11) counts.
	a := NewAction("act_r")
	feed(t, a, respSeq("act_r",
		obj{"type": "response.created", "response": obj{"id": "resp_1", "status": "in_progress"}},
		obj{"type": "response.completed", "response": obj{"id": "resp_1", "status": "completed"}},
	))
	a.IngestChunk(hermes("act_r", 2, KindData, "response.incomplete",
		obj{"type": "response.incomplete", "sequence_number": 2, "response": obj{"status": "incomplete"}}), t0)
	a.SetResult(completedResult("act_r", OpResponses))
	if v := a.Verdict(); v.Word != VerdictIncomplete || v.Row != 11 {
		t.Fatalf("completed then incomplete: %+v", v)
	}
	if !hasAnomaly(a, AnomalyConflict) {
		t.Fatalf("no conflict anomaly: %+v", a.Anomalies())
	}
	// The standard failed fixture followed by a completed done chunk: the
	// terminal error and done chunks contradict each other.
	b := scenario(t, "responses_failed", false)
	last, _ := b.LastSequence()
	b.IngestChunk(hermes(b.ID, last+1, "", "response.completed",
		obj{"type": "response.completed", "sequence_number": 99, "response": obj{"status": "completed"}}), t0)
	b.SetResult(completedResult(b.ID, OpResponses))
	if v := b.Verdict(); v.Word != VerdictFailed || v.Row != 10 {
		t.Fatalf("fixture failed then completed: %+v", v)
	}
	if !hasAnomaly(b, AnomalyConflict) {
		t.Fatalf("no conflict anomaly: %+v", b.Anomalies())
	}
}

// A done chunk and an error chunk in one stream are a conflict, once,
// whichever arrives first; with nothing above deciding it is row 12.
func TestTerminalKindsDisagree(t *testing.T) {
	done := rawChunk(t, `{"action_id":"act_k","sequence":1,"kind":"done"}`)
	errc := rawChunk(t, `{"action_id":"act_k","sequence":2,"kind":"error","data":{"message":"late failure"}}`)
	text := rawChunk(t, `{"action_id":"act_k","sequence":0,"kind":"data","part":{"type":"text","text":"hi","format":"plain"}}`)
	for _, order := range [][]StreamChunk{{text, done, errc}, {errc, done, text}, {text, errc, done}} {
		a := NewAction("act_k")
		for _, c := range order {
			if got := a.IngestChunk(c, t0); got != Applied {
				t.Fatalf("chunk %d: %v", c.Sequence, got)
			}
		}
		if n := countAnomalies(a, AnomalyConflict); n != 1 {
			t.Fatalf("order %d,%d,%d: %d conflicts %+v", order[0].Sequence, order[1].Sequence, order[2].Sequence, n, a.Anomalies())
		}
		a.SetResult(ActionResult{ActionID: "act_k", Status: ResultCompleted})
		if v := a.Verdict(); v.Word != VerdictIncomplete || v.Row != 12 {
			t.Fatalf("verdict %+v", v)
		}
	}
	// Two done chunks agree: no conflict.
	a := NewAction("act_k")
	a.IngestChunk(text, t0)
	a.IngestChunk(done, t0)
	a.IngestChunk(rawChunk(t, `{"action_id":"act_k","sequence":2,"kind":"done"}`), t0)
	if hasAnomaly(a, AnomalyConflict) {
		t.Fatalf("two done chunks: %+v", a.Anomalies())
	}
}

// Contract §3: an undecodable chunk is an anomaly and, for the verdict, a
// conflict (row 12), unless a row above already decided.
func TestUndecodableChunkIsConflict(t *testing.T) {
	a := scenario(t, "chat_stop", true)
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("before: %+v", v)
	}
	ver := a.Version
	a.UndecodableChunk(0, "nothing")
	if a.Version != ver || len(a.Anomalies()) != 0 {
		t.Fatal("zero undecodable chunks recorded something")
	}
	a.UndecodableChunk(2, "2 undecodable chunk items in an events page")
	if a.Version == ver {
		t.Fatal("Version did not move")
	}
	if !hasAnomaly(a, AnomalyUndecodable) {
		t.Fatalf("no anomaly: %+v", a.Anomalies())
	}
	v := a.Verdict()
	if v.Word != VerdictIncomplete || v.Row != 12 || !containsReason(v, "2 undecodable chunks") {
		t.Fatalf("verdict %+v", v)
	}
	// A row above still decides.
	b := scenario(t, "chat_length", true)
	b.UndecodableChunk(1, "undecodable chunk")
	if v := b.Verdict(); v.Word != VerdictPartial || v.Row != 8 {
		t.Fatalf("row 8 with an undecodable chunk: %+v", v)
	}
	// Rebuilding after a late chunk keeps it.
	c := NewAction("act_chat_stop")
	chunks := loadChunks(t, "chat_stop")
	c.UndecodableChunk(1, "undecodable chunk")
	feed(t, c, chunks[1:])
	feed(t, c, chunks[:1])
	c.SetResult(loadResult(t, "chat_stop"))
	if v := c.Verdict(); v.Row != 12 || !containsReason(v, "1 undecodable chunk") {
		t.Fatalf("after a rebuild: %+v", v)
	}
}

// A repeat that changes only the kind (data → done, the
// same data) is a conflict, with the raw bytes and under the raw cap.
func TestKindOnlyChangeIsConflict(t *testing.T) {
	chunks := loadChunks(t, "chat_stop")
	for _, capped := range []bool{false, true} {
		for i, to := range map[int]string{2: "done", 6: "data"} {
			c := chunks[i]
			from := `"kind":"` + string(c.Kind) + `"`
			if !strings.Contains(string(c.Raw), from) || string(c.Kind) == to {
				t.Fatalf("fixture chunk %d is %s", i, c.Kind)
			}
			alt := rawChunk(t, strings.Replace(string(c.Raw), from, `"kind":"`+to+`"`, 1))
			a := NewAction(c.ActionID)
			if capped {
				a.SetRawCap(1)
			}
			feed(t, a, chunks)
			if kept, _ := a.chunks.get(c.Sequence); capped && !kept.RawDropped() {
				t.Fatal("the cap kept the raw bytes")
			}
			if got := a.IngestChunk(alt, t0); got != Conflict {
				t.Fatalf("capped=%v chunk %d %s → %s: %v, want Conflict", capped, i, c.Kind, to, got)
			}
			a.SetResult(loadResult(t, "chat_stop"))
			if v := a.Verdict(); v.Row != 12 {
				t.Fatalf("capped=%v: verdict %+v", capped, v)
			}
			// Only the kind differed: the same chunk re-spaced is a replay.
			if got := a.IngestChunk(respaced(t, c), t0); got != Replayed {
				t.Fatalf("capped=%v: re-spaced original %v", capped, got)
			}
		}
	}
	// The same for a chunk without data at all, and for the action id.
	a := NewAction("")
	a.IngestChunk(rawChunk(t, `{"sequence":0,"kind":"data"}`), t0)
	if got := a.IngestChunk(rawChunk(t, `{"sequence":0,"kind":"done"}`), t0); got != Conflict {
		t.Fatalf("bare kind change: %v", got)
	}
	if got := a.IngestChunk(rawChunk(t, `{"action_id":"act_z","sequence":0,"kind":"data"}`), t0); got != Conflict {
		t.Fatalf("action id change: %v", got)
	}
}

// A lower terminal chunk arriving after a higher one
// moves the terminal point back; the chunks between become after-terminal.
func TestLowerTerminalAfterHigherTerminal(t *testing.T) {
	a := NewAction("act_x")
	a.IngestChunk(hermes("act_x", 0, "", "", content("a")), t0)
	a.IngestChunk(hermes("act_x", 2, "", "", content("c")), t0)
	a.IngestChunk(hermes("act_x", 3, "", "", "[DONE]"), t0)
	if a.Text() != "ac" || hasAnomaly(a, AnomalyAfterTerminal) {
		t.Fatalf("text %q anomalies %+v", a.Text(), a.Anomalies())
	}
	a.IngestChunk(hermes("act_x", 1, "", "", "[DONE]"), t0)
	if a.Text() != "a" {
		t.Fatalf("text after the lower done %q, want %q", a.Text(), "a")
	}
	var seqs []uint64
	for _, an := range a.Anomalies() {
		if an.Kind == AnomalyAfterTerminal {
			seqs = append(seqs, an.Sequence)
			if !strings.Contains(an.Detail, "terminal done chunk 1") {
				t.Fatalf("detail %q", an.Detail)
			}
		}
	}
	if len(seqs) != 2 || seqs[0] != 2 || seqs[1] != 3 {
		t.Fatalf("after-terminal anomalies at %v, want [2 3]: %+v", seqs, a.Anomalies())
	}
	// A chunk arriving later above it is after-terminal too, against 1.
	a.IngestChunk(hermes("act_x", 4, "", "", content("d")), t0)
	if countAnomalies(a, AnomalyAfterTerminal) != 3 || a.Text() != "a" {
		t.Fatalf("anomalies %+v text %q", a.Anomalies(), a.Text())
	}
}

// A connector without Hermes envelopes whose data names
// an upstream close never counts its done chunk as terminal evidence.
func TestGenericUpstreamClosedThenDone(t *testing.T) {
	for _, lines := range [][]string{
		{ // the reason on a data chunk, then done
			`{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"Hello","format":"plain"}}`,
			`{"action_id":"act_g","sequence":1,"kind":"data","data":{"reason":"upstream closed"}}`,
			`{"action_id":"act_g","sequence":2,"kind":"done"}`,
		},
		{ // the reason on the done chunk itself
			`{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"Hello","format":"plain"}}`,
			`{"action_id":"act_g","sequence":1,"kind":"done","data":{"reason":"upstream closed"}}`,
		},
	} {
		a := NewAction("act_g")
		for _, l := range lines {
			a.IngestChunk(rawChunk(t, l), t0)
		}
		if a.UpstreamEnd() != "upstream closed" || a.Operation() != "" {
			t.Fatalf("upstream end %q op %q", a.UpstreamEnd(), a.Operation())
		}
		a.SetResult(ActionResult{ActionID: "act_g", Status: ResultCompleted})
		if v := a.Verdict(); v.Word != VerdictIncomplete || v.Row != 6 {
			t.Fatalf("verdict %+v, want incomplete row 6", v)
		}
	}
}

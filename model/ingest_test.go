package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestIngestReplayIsDroppedSilently(t *testing.T) {
	chunks := loadChunks(t, "chat_stop")
	a := NewAction("act_chat_stop")
	feed(t, a, chunks)
	before := a.Record()
	v := a.Version
	for _, c := range chunks {
		if got := a.IngestChunk(c, t0); got != Replayed {
			t.Fatalf("identical repeat of %d: %v, want Replayed", c.Sequence, got)
		}
	}
	if a.ReplayCount() != len(chunks) {
		t.Fatalf("ReplayCount %d, want %d", a.ReplayCount(), len(chunks))
	}
	if len(a.Anomalies()) != 0 {
		t.Fatalf("replays recorded anomalies: %+v", a.Anomalies())
	}
	if a.Version != v {
		t.Fatalf("a replay changed Version %d -> %d", v, a.Version)
	}
	if a.ChunkCount() != len(chunks) {
		t.Fatalf("ChunkCount %d", a.ChunkCount())
	}
	if got := a.Record(); !recordsEqual(before, got) {
		t.Fatalf("replays changed the record:\n%+v\n%+v", before, got)
	}
}

func recordsEqual(x, y VerdictRecord) bool {
	bx, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(bx, by)
}

// A repeat re-encoded with other spacing and key order is the same content,
// so it is a replay, not a conflict.
func TestIngestReencodedRepeatIsReplay(t *testing.T) {
	chunks := loadChunks(t, "responses_completed")
	a := NewAction("act_responses_completed")
	feed(t, a, chunks)
	for _, c := range chunks {
		var v any
		if err := json.Unmarshal(c.Raw, &v); err != nil {
			t.Fatal(err)
		}
		pretty, _ := json.MarshalIndent(v, "", "  ") // sorted keys, spaces, newlines
		if bytes.Equal(pretty, c.Raw) {
			t.Fatal("re-encoding did not change the bytes")
		}
		re, err := DecodeChunk(pretty)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.IngestChunk(re, t0); got != Replayed {
			t.Fatalf("re-encoded repeat of %d: %v, want Replayed", c.Sequence, got)
		}
	}
	if hasAnomaly(a, AnomalyConflict) {
		t.Fatal("re-encoded repeats recorded a conflict")
	}
}

// A repeat whose json part is only re-encoded is still a replay.
func TestIngestReencodedJSONPartIsReplay(t *testing.T) {
	a := NewAction("act_g")
	first := rawChunk(t, `{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"json","data":{"a":1,"b":[1,2]}}}`)
	again := rawChunk(t, `{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"json","data":{ "b": [1, 2], "a": 1 }}}`)
	other := rawChunk(t, `{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"json","data":{"a":2,"b":[1,2]}}}`)
	if got := a.IngestChunk(first, t0); got != Applied {
		t.Fatal(got)
	}
	if got := a.IngestChunk(again, t0); got != Replayed {
		t.Fatalf("re-encoded json part: %v, want Replayed", got)
	}
	if got := a.IngestChunk(other, t0); got != Conflict {
		t.Fatalf("other json part: %v, want Conflict", got)
	}
}

func TestIngestConflictKeepsFirst(t *testing.T) {
	chunks := loadChunks(t, "chat_stop")
	a := NewAction("act_chat_stop")
	feed(t, a, chunks)
	a.SetResult(loadResult(t, "chat_stop"))
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("before the conflict: %s %v", v.Word, v.Reasons)
	}
	text := a.Text()
	forged := hermes("act_chat_stop", 4, "", "", content("something else entirely"))
	if got := a.IngestChunk(forged, t0); got != Conflict {
		t.Fatalf("conflicting repeat: %v, want Conflict", got)
	}
	if a.Text() != text {
		t.Fatalf("conflict changed the text: %q", a.Text())
	}
	c, _ := a.ChunkAt(4)
	if !bytes.Equal(c.Raw, chunks[4].Raw) {
		t.Fatal("the first chunk was not kept")
	}
	if countAnomalies(a, AnomalyConflict) != 1 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
	if a.ChunkCount() != len(chunks) {
		t.Fatalf("ChunkCount %d", a.ChunkCount())
	}
	v := a.Verdict()
	if v.Word != VerdictIncomplete || v.Row != 12 {
		t.Fatalf("verdict %s row %d, want incomplete row 12", v.Word, v.Row)
	}
	// Same sequence, other kind: also a conflict.
	if got := a.IngestChunk(StreamChunk{ActionID: "act_chat_stop", Sequence: 6, Kind: KindError}, t0); got != Conflict {
		t.Fatalf("other kind: %v", got)
	}
}

func TestIngestAfterTerminalIsAnomalyAndIgnored(t *testing.T) {
	chunks := loadChunks(t, "chat_stop")
	a := NewAction("act_chat_stop")
	feed(t, a, chunks)
	text := a.Text()
	late := hermes("act_chat_stop", 7, "", "", content(" and a late postscript"))
	if got := a.IngestChunk(late, t0); got != Applied {
		t.Fatalf("late chunk: %v (it is retained as evidence)", got)
	}
	if a.Text() != text {
		t.Fatalf("a chunk after [DONE] changed the text: %q", a.Text())
	}
	if countAnomalies(a, AnomalyAfterTerminal) != 1 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
	if a.ChunkCount() != len(chunks)+1 {
		t.Fatalf("ChunkCount %d", a.ChunkCount())
	}
	// A gap below it is filled later: the rebuild keeps exactly one
	// after-terminal anomaly and still ignores the late chunk.
	b := NewAction("act_chat_stop")
	for i, c := range chunks {
		if i != 2 {
			b.IngestChunk(c, t0)
		}
	}
	b.IngestChunk(late, t0)
	b.IngestChunk(chunks[2], t0)
	if b.Text() != text {
		t.Fatalf("after rebuild: %q", b.Text())
	}
	if countAnomalies(b, AnomalyAfterTerminal) != 1 {
		t.Fatalf("after rebuild anomalies %+v", b.Anomalies())
	}
	if len(b.Tools()) != 1 || b.Tools()[0].Status != ToolCompleted {
		t.Fatalf("tools after rebuild %+v", b.Tools())
	}
}

// A terminal chunk that arrives late but with a lower sequence moves the
// terminal point back: chunks above it become after-terminal.
func TestIngestLateLowerTerminal(t *testing.T) {
	a := NewAction("act_x")
	a.IngestChunk(hermes("act_x", 0, "", "", content("a")), t0)
	a.IngestChunk(hermes("act_x", 2, "", "", content("c")), t0)
	if a.Text() != "ac" {
		t.Fatalf("text %q", a.Text())
	}
	a.IngestChunk(hermes("act_x", 1, "", "", "[DONE]"), t0)
	if a.Text() != "a" {
		t.Fatalf("text after the lower done %q, want %q", a.Text(), "a")
	}
	if countAnomalies(a, AnomalyAfterTerminal) != 1 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
}

func TestIngestOutOfOrderRebuilds(t *testing.T) {
	chunks := loadChunks(t, "responses_completed")
	want := NewAction("act_responses_completed")
	feed(t, want, chunks)

	a := NewAction("act_responses_completed")
	// Reverse order: every chunk but the first lands below the highest.
	for i := len(chunks) - 1; i >= 0; i-- {
		if got := a.IngestChunk(chunks[i], t0); got != Applied {
			t.Fatal(got)
		}
	}
	// Late chunks may wait for a rebuild until the action settles.
	want.SetResult(loadResult(t, "responses_completed"))
	a.SetResult(loadResult(t, "responses_completed"))
	if a.Text() != want.Text() {
		t.Fatalf("text %q, want %q", a.Text(), want.Text())
	}
	if got, w := snapshot(a), snapshot(want); got != w {
		t.Fatalf("model differs after out-of-order arrival:\n%s\nwant\n%s", got, w)
	}
	if len(a.Anomalies()) != 0 {
		t.Fatalf("anomalies %+v", a.Anomalies())
	}
	if seqs := a.Sequences(); len(seqs) != len(chunks) || seqs[0] != 0 || seqs[len(seqs)-1] != uint64(len(chunks)-1) {
		t.Fatalf("Sequences %v", seqs)
	}
	if last, ok := a.LastSequence(); !ok || last != uint64(len(chunks)-1) {
		t.Fatalf("LastSequence %d %v", last, ok)
	}
}

// Chunks in descending order: before the action settles a reader may see
// the transcript without the late chunks (never anything else), the late
// chunks are caught up with as the credit allows, and a settled or stopped
// action shows them all.
func TestIngestDescendingCatchesUp(t *testing.T) {
	frames := []any{role()}
	for i := 0; i < 200; i++ {
		frames = append(frames, content(fmt.Sprintf("w%d ", i)))
	}
	frames = append(frames, finish("stop", obj{"usage": usageObj(1, 2)}), "[DONE]")
	chunks := chatSeq("act_desc", frames...)

	for _, end := range []string{"settle", "stop"} {
		want := NewAction("act_desc")
		feed(t, want, chunks)
		a := NewAction("act_desc")
		caughtUp := 0
		for i := len(chunks) - 1; i >= 0; i-- {
			a.IngestChunk(chunks[i], t0)
			text := a.Text()
			if !strings.HasSuffix(want.Text(), text) && text != "" {
				// Only whole late chunks are missing, and they are the
				// lowest ones: what is shown is a tail of the reply.
				t.Fatalf("%s: after chunk %d the text is %q", end, chunks[i].Sequence, text)
			}
			if len(text) > caughtUp {
				caughtUp = len(text)
			}
		}
		if caughtUp == 0 {
			t.Fatalf("%s: no late chunk was applied before the end", end)
		}
		if end == "settle" {
			a.SetResult(completedResult("act_desc", OpChat))
			want.SetResult(completedResult("act_desc", OpChat))
		} else {
			a.Stop()
			want.Stop()
		}
		if a.Text() != want.Text() || snapshot(a) != snapshot(want) {
			t.Fatalf("%s: model differs:\n%s\nwant\n%s", end, snapshot(a), snapshot(want))
		}
	}
}

func TestIngestForeignChunk(t *testing.T) {
	a := NewAction("act_mine")
	if got := a.IngestChunk(hermes("act_other", 0, "", "", content("x")), t0); got != Foreign {
		t.Fatalf("%v, want Foreign", got)
	}
	if a.ChunkCount() != 0 || a.Text() != "" || !hasAnomaly(a, AnomalyForeignChunk) {
		t.Fatalf("foreign chunk was used: %d %q %+v", a.ChunkCount(), a.Text(), a.Anomalies())
	}
}

func TestIngestEventsDedupedByID(t *testing.T) {
	a := NewAction("act_e")
	e1 := Event{ID: "evt_1", Kind: "aip.action.updated", ActionID: "act_e"}
	e2 := Event{ID: "evt_2", Kind: "aip.action.result", ActionID: "act_e", Data: json.RawMessage(`{"status":"completed"}`)}
	if !a.IngestEvent(e1) || !a.IngestEvent(e2) {
		t.Fatal("new events refused")
	}
	if a.IngestEvent(e1) || a.IngestEvent(Event{ID: "evt_2", Kind: "something.else"}) {
		t.Fatal("a repeated id was accepted")
	}
	if got := a.Events(); len(got) != 2 || got[0].ID != "evt_1" || got[1].ID != "evt_2" || got[1].Kind != "aip.action.result" {
		t.Fatalf("events %+v", got)
	}
	if a.Cancel.EventSeen {
		t.Fatal("cancel event seen without one")
	}
	a.IngestEvent(Event{ID: "evt_3", Kind: "aip.action.cancelled"})
	if !a.Cancel.EventSeen {
		t.Fatal("aip.action.cancelled not noted")
	}
}

// Unknown chunk kinds, undecodable data and odd payloads are never fatal:
// they stay visible generically and the rest of the stream still works.
func TestIngestNeverFatal(t *testing.T) {
	a := NewAction("act_odd")
	odd := []string{
		`{"action_id":"act_odd","sequence":0,"kind":"telemetry","data":{"message":"warming up"}}`,
		`{"action_id":"act_odd","sequence":1,"kind":"data","data":"just a string"}`,
		`{"action_id":"act_odd","sequence":2,"kind":"data","data":{"hermes_sse":{"data":{"choices":"not a list"},"raw_data":"x","terminal":false}}}`,
		`{"action_id":"act_odd","sequence":3,"kind":"data","data":{"hermes_sse":{"event":"hermes.tool.progress","data":{"tool":5},"raw_data":"x","terminal":false}}}`,
		`{"action_id":"act_odd","sequence":4,"kind":"data","data":{"hermes_sse":{"event":"response.output_text.delta","data":{"type":"response.output_text.delta","delta":7},"raw_data":"x","terminal":false}}}`,
		`{"action_id":"act_odd","sequence":5,"kind":"data","data":{"hermes_sse":{"data":null,"raw_data":"","terminal":false}}}`,
		`{"action_id":"act_odd","sequence":6,"kind":"data","data":{"hermes_sse":"not an object"}}`,
		`{"action_id":"act_odd","sequence":7,"kind":"data","data":[1,2,3]}`,
		`{"action_id":"act_odd","sequence":8,"kind":"data","data":{"hermes_sse":{"data":"plain text frame","raw_data":"plain text frame","terminal":false}}}`,
		`{"action_id":"act_odd","sequence":9,"kind":"progress"}`,
	}
	for _, s := range odd {
		a.IngestChunk(rawChunk(t, s), t0)
	}
	if a.ChunkCount() != len(odd) {
		t.Fatalf("ChunkCount %d", a.ChunkCount())
	}
	if !hasAnomaly(a, AnomalyUndecodable) {
		t.Fatalf("no undecodable anomaly: %+v", a.Anomalies())
	}
	// The unknown kind is shown as a notice carrying its message.
	var notice bool
	for _, it := range a.Items() {
		if it.Kind == ItemNotice && it.Label == "telemetry" && it.Text() == "warming up" {
			notice = true
		}
	}
	if !notice {
		t.Fatalf("unknown kind not visible: %+v", itemsDump(a))
	}
	// The stream goes on working afterwards.
	a.IngestChunk(hermes("act_odd", 10, "", "", content("still here")), t0)
	if !strings.Contains(a.Text(), "still here") {
		t.Fatalf("text %q", a.Text())
	}
	_ = a.Verdict()
	_ = a.Record()
	if _, err := DecodeChunk([]byte(`{"action_id":`)); err == nil {
		t.Fatal("DecodeChunk accepted broken JSON")
	}
}

func itemsDump(a *Action) []string {
	var out []string
	for _, it := range a.Items() {
		out = append(out, it.Kind.String()+"/"+it.Label+":"+it.Text())
	}
	return out
}

// aipd leaves data out when it is null: "data":null and no data at all are
// the same chunk.
func TestIngestNullDataEqualsAbsentData(t *testing.T) {
	a := NewAction("act_n")
	a.IngestChunk(rawChunk(t, `{"action_id":"act_n","sequence":0,"kind":"progress"}`), t0)
	if got := a.IngestChunk(rawChunk(t, `{"action_id":"act_n","sequence":0,"kind":"progress","data":null}`), t0); got != Replayed {
		t.Fatalf("explicit null data: %v, want Replayed", got)
	}
	if got := a.IngestChunk(rawChunk(t, `{"action_id":"act_n","sequence":0,"kind":"progress","data":{}}`), t0); got != Conflict {
		t.Fatalf("other data: %v, want Conflict", got)
	}
}

// TakeChanged hands out what changed since the last call, in display order
// (Chat reasoning before the answer, Responses items by output_index), once.
func TestTakeChanged(t *testing.T) {
	a := NewAction("act_chat")
	feed(t, a, chatSeq("act_chat", role(), content("Hi"), reasoning("think")))
	items, _ := a.TakeChanged()
	if len(items) != 2 || items[0].Kind != ItemReasoning || items[1].Kind != ItemMessage {
		t.Fatalf("changed %v", itemsDump(a))
	}
	if items, tools := a.TakeChanged(); len(items)+len(tools) != 0 {
		t.Fatalf("changed again: %d items, %d tools", len(items), len(tools))
	}
	a.IngestChunk(chatSeq("act_chat", role(), content("Hi"), reasoning("think"), content(" there"))[3], t0)
	if items, _ := a.TakeChanged(); len(items) != 1 || items[0].Kind != ItemMessage || items[0].Text() != "Hi there" {
		t.Fatalf("changed %d items", len(items))
	}

	r := NewAction("act_r")
	feed(t, r, respSeq("act_r",
		obj{"type": "response.created", "response": obj{"id": "resp_1", "status": "in_progress"}},
		obj{"type": "response.output_item.added", "output_index": 2, "item": obj{"id": "m2", "type": "message", "role": "assistant"}},
		obj{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "m0", "type": "message", "role": "assistant"}},
		obj{"type": "response.output_item.added", "output_index": 1, "item": obj{"id": "f1", "type": "function_call", "call_id": "c1", "name": "ls"}},
	))
	items, tools := r.TakeChanged()
	if len(items) != 3 || items[0].Key != "m0" || items[1].Key != "f1" || items[2].Key != "m2" || len(tools) != 1 {
		t.Fatalf("changed %d items, %d tools: %v", len(items), len(tools), itemsDump(r))
	}
	for i, it := range r.Items() {
		if it != items[i] {
			t.Fatalf("Items()[%d] is %s, TakeChanged gave %s", i, it.Key, items[i].Key)
		}
	}
}

// TestEventLogInArrivalOrder: events are kept in arrival order, many of
// them, a repeated id dropped; aip.stream.chunk events give
// their chunks' times (the first that parses) and are not kept.
func TestEventLogInArrivalOrder(t *testing.T) {
	a := NewAction("act_1")
	const n = 2*1024 + 7
	for i := range n {
		if !a.IngestEvent(Event{ID: fmt.Sprintf("evt_%d", i), Kind: "aip.action.updated"}) {
			t.Fatalf("event %d refused", i)
		}
		a.IngestEvent(Event{ID: fmt.Sprintf("evt_stream_%d", i), Kind: chunkEventKind,
			OccurredAt: fmt.Sprintf("2026-01-01T00:00:%02d.%06dZ", i%60, i), Data: json.RawMessage(fmt.Sprintf(`{"sequence":%d}`, i))})
	}
	if a.IngestEvent(Event{ID: "evt_1", Kind: "dup"}) { // a repeat is dropped
		t.Fatal("a repeated id was kept")
	}
	got := a.Events()
	if len(got) != n {
		t.Fatalf("%d events, want %d", len(got), n)
	}
	for i, e := range got {
		if e.ID != fmt.Sprintf("evt_%d", i) {
			t.Fatalf("event %d is %s", i, e.ID)
		}
	}
	for _, seq := range []uint64{0, 1023, 1024, n - 1} {
		at, ok := a.Occurred(seq)
		want := time.Date(2026, 1, 1, 0, 0, int(seq%60), int(seq)*1000, time.UTC)
		if !ok || !at.Equal(want) {
			t.Fatalf("Occurred(%d) = %v %v, want %v", seq, at, ok, want)
		}
	}
	if _, ok := a.Occurred(n); ok {
		t.Fatal("a time for a chunk without an event")
	}
}

// TestChunkEventTimes: the first parsable occurred_at of a sequence is its
// time, a later one does not replace it, one that does not parse or lacks
// a sequence gives none; far sequences (a hostile 2^60) are kept too.
func TestChunkEventTimes(t *testing.T) {
	a := NewAction("act_1")
	ev := func(seq uint64, at string) Event {
		return Event{ID: fmt.Sprintf("evt_%d_%s", seq, at), Kind: chunkEventKind, OccurredAt: at,
			Data: json.RawMessage(fmt.Sprintf(`{"action_id":"act_1","sequence":%d,"kind":"data"}`, seq))}
	}
	steps := []struct {
		e   Event
		new bool
	}{
		{ev(3, "not a time"), false},
		{ev(3, "2026-01-01T00:00:03Z"), true},
		{ev(3, "2026-01-01T00:00:09Z"), false}, // the first time stays
		{ev(1<<60, "2026-01-01T00:01:00+02:00"), true},
		{ev(5000, "2026-01-01T00:00:05Z"), true},
		{Event{ID: "evt_noseq", Kind: chunkEventKind, OccurredAt: "2026-01-01T00:00:00Z", Data: json.RawMessage(`{}`)}, false},
		{ev(7, ""), false},
	}
	for i, s := range steps {
		v := a.Version
		if got := a.IngestEvent(s.e); got != s.new || (a.Version != v) != s.new {
			t.Fatalf("step %d (%+v): new %v, version %d→%d", i, s.e, got, v, a.Version)
		}
	}
	want := map[uint64]time.Time{
		3:       time.Date(2026, 1, 1, 0, 0, 3, 0, time.UTC),
		1 << 60: time.Date(2025, 12, 31, 22, 1, 0, 0, time.UTC),
		5000:    time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC),
	}
	for seq, w := range want {
		if at, ok := a.Occurred(seq); !ok || !at.Equal(w) {
			t.Fatalf("Occurred(%d) = %v %v, want %v", seq, at, ok, w)
		}
	}
	for _, seq := range []uint64{0, 4, 7, 4999, 1<<60 - 1} {
		if at, ok := a.Occurred(seq); ok {
			t.Fatalf("Occurred(%d) = %v without an event", seq, at)
		}
	}
	if len(a.Events()) != 0 {
		t.Fatalf("chunk events kept: %+v", a.Events())
	}
}

// TestPageEventsKeptAsCopies: a page's events are views of its bytes
// until ingested; the events kept own theirs, so a page is not held (nor
// changed under them) by an event.
func TestPageEventsKeptAsCopies(t *testing.T) {
	page := []byte(`{"events":[{"id":"evt_a","kind":"aip.action.updated","occurred_at":"2026-01-01T00:00:00Z","session_id":"ses_1","action_id":"act_1","correlation_id":"cor_1","actor":{"id":"x"},"data":{"state":"running"}},` +
		`{"id":"evt_s","kind":"aip.stream.chunk","occurred_at":"2026-01-01T00:00:01Z","action_id":"act_1","data":{"sequence":0}}],"cursor":"c1"}`)
	p, err := DecodePage(page)
	if err != nil || len(p.Events) != 2 {
		t.Fatalf("page: %v %+v", err, p)
	}
	a := NewAction("act_1")
	for _, e := range p.Events {
		a.IngestEvent(e)
	}
	want := fmt.Sprintf("%+v", a.Events())
	for i := range page {
		page[i] = 'X'
	}
	if got := fmt.Sprintf("%+v", a.Events()); got != want || a.Events()[0].ID != "evt_a" || string(a.Events()[0].Data) != `{"state":"running"}` {
		t.Fatalf("kept event changed with the page:\n%s\nwant\n%s", got, want)
	}
	if at, ok := a.Occurred(0); !ok || !at.Equal(time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)) {
		t.Fatalf("chunk time %v %v", at, ok)
	}
}

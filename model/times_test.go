package model

import (
	"fmt"
	"testing"
	"time"
)

func chunkOccurredEvent(action string, seq uint64, at time.Time) Event {
	return Event{ID: fmt.Sprintf("evt_stream_%d", seq), Kind: chunkEventKind, OccurredAt: at.Format(time.RFC3339Nano),
		ActionID: action, Data: []byte(fmt.Sprintf(`{"action_id":%q, "sequence" : %d,"kind":"data"}`, action, seq))}
}

// A tool is timed by aipd's event times when they are known, else by the
// local receive times.
func TestToolDurationFromEventTimes(t *testing.T) {
	const act = "act_times"
	chunks := chatSeq(act, role(),
		progress(obj{"tool": "terminal", "toolCallId": "call_1", "status": "running", "label": "ls"}),
		progress(obj{"tool": "terminal", "toolCallId": "call_1", "status": "completed"}))
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	a := NewAction(act)
	for i, c := range chunks { // all read at once, as in a review
		a.IngestEvent(chunkOccurredEvent(act, c.Sequence, base.Add(time.Duration(i)*1500*time.Millisecond)))
		a.IngestChunk(c, base.Add(time.Hour))
	}
	tools := a.Tools()
	if len(tools) != 1 {
		t.Fatalf("%d tools", len(tools))
	}
	if d := a.ToolDuration(tools[0], base.Add(2*time.Hour)); d != 1500*time.Millisecond {
		t.Errorf("duration %v, want 1.5s from occurred_at", d)
	}
	if d := tools[0].Duration(time.Time{}); d != 0 {
		t.Errorf("local duration %v, want 0 (read at once)", d)
	}

	b := NewAction(act) // no events: the local times
	b.IngestChunk(chunks[0], base)
	b.IngestChunk(chunks[1], base)
	b.IngestChunk(chunks[2], base.Add(2*time.Second))
	if d := b.ToolDuration(b.Tools()[0], base.Add(time.Hour)); d != 2*time.Second {
		t.Errorf("duration without events %v, want 2s", d)
	}
}

func TestChunkEventSeq(t *testing.T) {
	for in, want := range map[string]uint64{`{"sequence":7}`: 7, `{"a":1, "sequence" :  42 ,"kind":"x"}`: 42} {
		if got, ok := chunkEventSeq([]byte(in)); !ok || got != want {
			t.Errorf("%s: %d %v", in, got, ok)
		}
	}
	for _, in := range []string{`{}`, `{"sequence":"7"}`, `{"sequence":}`} {
		if _, ok := chunkEventSeq([]byte(in)); ok {
			t.Errorf("%s: accepted", in)
		}
	}
}

// TestOccurredKeepsTheInstant: aipd's times are kept as instants (no
// location pointer a chunk): the same instant comes back, in UTC, for
// aipd's own form, for an offset, and for the Unix epoch itself (the
// index's zero value is "no time", so the epoch must not read as one).
func TestOccurredKeepsTheInstant(t *testing.T) {
	a := NewAction("act_1")
	at := map[int]string{
		0: "2026-12-03T15:22:03.45713526Z",
		1: "2026-12-03T17:22:03.5+02:00",
		2: "1970-01-01T00:00:00Z",
		3: "1969-12-31T23:59:59.999999999Z",
	}
	for seq, s := range at {
		a.IngestEvent(chunkEvent(fmt.Sprintf("evt_%d", seq), seq, s))
	}
	for seq, s := range at {
		want, _ := time.Parse(time.RFC3339Nano, s)
		got, ok := a.Occurred(uint64(seq))
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("seq %d (%s): %v %v, want %v in UTC", seq, s, got, ok, want)
		}
	}
	if _, ok := a.Occurred(4); ok {
		t.Fatal("a time for a chunk with no event")
	}
}

package model

import (
	"testing"
	"time"
)

// RunSpan: the earlier of started_at and the first chunk's event time,
// the later of completed_at and the last chunk's.
func TestRunSpan(t *testing.T) {
	const act = "act_span"
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	chunks := chatSeq(act, role(), progress(obj{"tool": "terminal", "toolCallId": "call_1", "status": "running"}))
	a := NewAction(act)
	if s, e := a.RunSpan(); !s.IsZero() || !e.IsZero() {
		t.Fatalf("nothing known: %v %v", s, e)
	}
	for i, c := range chunks {
		a.IngestEvent(chunkOccurredEvent(act, c.Sequence, base.Add(time.Duration(i)*5400*time.Millisecond)))
		a.IngestChunk(c, base.Add(time.Hour))
	}
	if s, e := a.RunSpan(); !s.Equal(base) || !e.Equal(base.Add(5400*time.Millisecond)) {
		t.Errorf("events only: %v %v", s, e)
	}
	// A synchronous record: both times at the settling.
	at := base.Add(6 * time.Second).Format(time.RFC3339Nano)
	a.Status = &ActionStatus{ActionID: act, StartedAt: at, CompletedAt: at}
	if s, e := a.RunSpan(); !s.Equal(base) || !e.Equal(base.Add(6*time.Second)) {
		t.Errorf("sync record: %v %v", s, e)
	}
	// An asynchronous record that began before the first chunk.
	a.Status.StartedAt = base.Add(-time.Second).Format(time.RFC3339Nano)
	if s, _ := a.RunSpan(); !s.Equal(base.Add(-time.Second)) {
		t.Errorf("async record: %v", s)
	}
}

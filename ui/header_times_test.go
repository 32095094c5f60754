package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// A review of a synchronous action that settled an hour ago: its record
// has started_at = completed_at (it is written when the action settles),
// and only the chunk events' occurred_at tell the turn took 5.4 s. The
// header's elapsed time is that, not 0.0s.
func TestReviewElapsedFromEventTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30)
	f := h.f
	ran := t0.Add(-time.Hour) // when the turn settled
	chunks := append([]model.StreamChunk{f.role()}, f.deltas(chatText1)...)
	chunks = append(chunks, f.finish("stop", false), f.done())
	var events []model.Event
	for i, c := range chunks {
		at := ran.Add(-5400 * time.Millisecond)
		if i == len(chunks)-1 {
			at = ran
		}
		events = append(events, model.Event{ID: fmt.Sprintf("evt_%d", c.Sequence), Kind: "aip.stream.chunk", ActionID: testAction,
			OccurredAt: at.Format(time.RFC3339Nano), Data: []byte(fmt.Sprintf(`{"action_id":%q,"sequence":%d,"kind":"data"}`, testAction, c.Sequence))})
	}
	settled := model.ActionStatus{ActionID: testAction, CapabilityID: "cap:hermes_agent:sim:chat_stream", State: model.StateCompleted,
		StartedAt: ran.Format(time.RFC3339Nano), CompletedAt: ran.Format(time.RFC3339Nano)}
	h.feed(stream.StatusMsg{Status: settled}, stream.ModeMsg{Review: true},
		stream.BatchMsg{Chunks: chunks, Events: events, At: t0},
		stream.TerminalMsg{Cursor: cursorA}, result(t, model.ResultCompleted, model.OpChat, "", true, false),
		stream.StatusMsg{Status: settled, Final: true}, stream.DoneMsg{})
	if !h.m.action.Settled() {
		t.Fatal("not settled")
	}
	if e := h.m.elapsed(); e != 5400*time.Millisecond {
		t.Errorf("elapsed %v, want 5.4s from the chunk events", e)
	}
	if head := strings.SplitN(h.screen(), "\n", 2)[0]; !strings.Contains(head, "elapsed 5.4s") {
		t.Errorf("header: %q", head)
	}
}

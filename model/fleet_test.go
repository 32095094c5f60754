package model

import (
	"encoding/json"
	"testing"
	"time"
)

func chunkEvent(id string, seq int, at string) Event {
	d, _ := json.Marshal(map[string]any{"action_id": id, "sequence": seq, "kind": "data"})
	return Event{ID: "evt_" + id, Kind: "aip.stream.chunk", OccurredAt: at, ActionID: id, Data: d}
}

func TestFleetMergesListEventsAndJournal(t *testing.T) {
	f := NewFleet()
	f.SetList([]ActionStatus{
		{ActionID: "act_async", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: StateRunning, QueuedState: StateRunning,
			UpdatedAt: "2026-01-01T00:00:10Z", Lease: &Lease{WorkerID: "w1", ExpiresAt: "2026-01-01T00:00:05Z"}, Retry: &Retry{Attempts: 2}},
		{ActionID: "act_done", CapabilityID: "cap:hermes_agent:prod:responses_stream", State: StateCompleted, ResultStatus: ResultCompleted,
			UpdatedAt: "2026-01-01T00:00:01Z"},
	})
	// A synchronous action streams: only the global log shows it.
	f.AddEvents([]Event{chunkEvent("act_sync", 0, "2026-01-01T00:00:20Z"), chunkEvent("act_sync", 7, "2026-01-01T00:00:21Z")})
	f.MarkJournal([]string{"act_done", "act_gone"})

	rows := f.Rows(Filter{})
	var order []string
	for _, r := range rows {
		order = append(order, r.ActionID)
	}
	if got := order; len(got) != 4 || got[0] != "act_sync" || got[1] != "act_async" {
		t.Fatalf("not newest first: %v", got)
	}
	byID := map[string]ActionRow{}
	for _, r := range rows {
		byID[r.ActionID] = r
	}
	if s := byID["act_sync"]; !s.LiveSync || s.State != StateStreaming || s.LastSeq != 7 || s.Listed {
		t.Fatalf("sync %+v", s)
	}
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	if a := byID["act_async"]; !a.LeaseStuck(now) || a.Attempts != 2 || a.Endpoint() != "prod" || a.Operation() != "chat_stream" {
		t.Fatalf("async %+v", a)
	}
	if g := byID["act_gone"]; !g.Journal || g.Listed {
		t.Fatalf("journal entry not listed: %+v", g)
	}
	// Filters: by text, by state.
	if r := f.Rows(Filter{Query: "RESPONSES"}); len(r) != 1 || r[0].ActionID != "act_done" {
		t.Fatalf("%+v", r)
	}
	if r := f.Rows(Filter{States: []string{StateRunning, StateStreaming}}); len(r) != 2 {
		t.Fatalf("%+v", r)
	}
	// The sync action settles and is listed; an unlisted row the journal
	// does not know disappears; a journalled one stays, marked.
	f.AddEvents([]Event{{Kind: "aip.action.result", ActionID: "act_sync", OccurredAt: "2026-01-01T00:00:30Z", Data: json.RawMessage(`{"status":"completed"}`)}})
	f.SetList([]ActionStatus{{ActionID: "act_sync", State: StateCompleted, ResultStatus: ResultCompleted, UpdatedAt: "2026-01-01T00:00:30Z"}})
	byID = map[string]ActionRow{}
	for _, r := range f.Rows(Filter{}) {
		byID[r.ActionID] = r
	}
	if _, ok := byID["act_async"]; ok {
		t.Fatal("a row no one knows any more stayed")
	}
	if d, ok := byID["act_done"]; !ok || d.Listed || !d.Journal {
		t.Fatalf("journalled row: %+v", d)
	}
	if s := byID["act_sync"]; s.LiveSync || !s.Listed || s.State != StateCompleted {
		t.Fatalf("settled sync: %+v", s)
	}
}

// TestShortAgeUnits: each unit starts exactly at its boundary.
func TestShortAgeUnits(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ago  time.Duration
		want string
	}{
		{-time.Second, "0s"}, {0, "0s"}, {59 * time.Second, "59s"}, {time.Minute, "1m"},
		{59*time.Minute + 59*time.Second, "59m"}, {time.Hour, "1h"}, {47*time.Hour + 59*time.Minute, "47h"},
		{48 * time.Hour, "2d"}, {100 * time.Hour, "4d"},
	} {
		if got := ShortAge(now, now.Add(-c.ago)); got != c.want {
			t.Errorf("ShortAge(%v ago) = %q, want %q", c.ago, got, c.want)
		}
	}
	if got := ShortAge(now, time.Time{}); got != "" {
		t.Errorf("ShortAge(no time) = %q, want empty", got)
	}
}

// design §7: a poll's window (live and recent) is what the fleet holds,
// with the older pages the operator asked for, the journal's rows and the
// streams the global log shows live; an action first seen already settled
// in one batch of events (the window the global log is joined with) gets
// no row.
func TestFleetWindowIsBounded(t *testing.T) {
	f := NewFleet()
	st := func(id, state string) ActionStatus {
		return ActionStatus{ActionID: id, State: state, UpdatedAt: "2026-01-01T00:00:10Z"}
	}
	f.SetWindow([]ActionStatus{st("act_live", StateRunning)}, []ActionStatus{st("act_r1", StateCompleted), st("act_r2", StateCompleted)})
	f.AddOlder([]ActionStatus{st("act_old", StateFailed)})
	f.AddEvents([]Event{chunkEvent("act_sync", 0, "2026-01-01T00:00:20Z")})
	old := chunkEvent("act_hist", 3, "2025-12-01T00:00:00Z")
	res := Event{Kind: "aip.action.result", ActionID: "act_hist", OccurredAt: "2025-12-01T00:00:01Z", Data: json.RawMessage(`{"status":"completed"}`)}
	f.AddEvents([]Event{old, res})
	if f.Len() != 5 {
		t.Fatalf("%d rows, want 5 (no row for a history action settled within the batch)", f.Len())
	}
	// The next poll: act_r1 fell out of the tail, act_live settled.
	f.SetWindow(nil, []ActionStatus{st("act_r2", StateCompleted), st("act_live", StateCompleted), st("act_r3", StateCompleted)})
	ids := map[string]bool{}
	for _, r := range f.Rows(Filter{}) {
		ids[r.ActionID] = true
	}
	for id, want := range map[string]bool{"act_r1": false, "act_r2": true, "act_r3": true, "act_live": true, "act_old": true, "act_sync": true} {
		if ids[id] != want {
			t.Errorf("%s held: %v, want %v", id, ids[id], want)
		}
	}
}

// Issue 46 item 8: before a context's list has been read, a chunk on its
// global log cannot tell a synchronous stream from an async action the list
// will show running: it makes no "(sync) streaming" row. Once that
// context's list is read, a chunk of an action it lacks is a live sync
// stream; another context's first read says nothing of this one's.
func TestFleetNoLiveSyncGuessBeforeTheContextsList(t *testing.T) {
	f := NewFleet()
	ev := func(ctx, id string) Event {
		e := chunkEvent(id, 3, "2026-01-01T00:00:20Z")
		e.Context = ctx
		return e
	}
	f.AddEvents([]Event{ev("west", "act_async_running")})
	if r, ok := f.RowByKey(rowKey("west", "act_async_running")); ok {
		t.Fatalf("a chunk before west's list made a row: %+v", r)
	}
	f.SetWindowOf("east", []ActionStatus{{ActionID: "act_e", Context: "east", State: StateRunning}}, nil)
	f.AddEvents([]Event{ev("west", "act_async_running")})
	if _, ok := f.RowByKey(rowKey("west", "act_async_running")); ok {
		t.Fatal("east's list read made west's chunk a sync stream")
	}
	f.SetWindowOf("west", []ActionStatus{{ActionID: "act_async_running", Context: "west", State: StateRunning}}, nil)
	f.AddEvents([]Event{ev("west", "act_async_running"), ev("west", "act_sync")})
	if r, _ := f.RowByKey(rowKey("west", "act_async_running")); r.LiveSync || r.State != StateRunning {
		t.Fatalf("the listed async action: %+v", r)
	}
	if r, _ := f.RowByKey(rowKey("west", "act_sync")); !r.LiveSync || r.State != StateStreaming {
		t.Fatalf("the unlisted one after the list's read: %+v", r)
	}
	// SetWindowOf touches its own context's rows only.
	f.SetWindowOf("west", nil, nil)
	if _, ok := f.RowByKey(rowKey("east", "act_e")); !ok {
		t.Fatal("west's poll dropped east's row")
	}
	f.MarkUnreachable("east", "list: no answer within 10s", time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	if r, _ := f.RowByKey(rowKey("east", "act_e")); r.ActionID != "act_e" {
		t.Fatal("an unreachable daemon's rows were dropped")
	}
	if r, _ := f.RowByKey(rowKey("east", "")); r.Unreachable != "list: no answer within 10s" {
		t.Fatalf("the unreachable row: %+v", r)
	}
}

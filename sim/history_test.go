package sim

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

type logPage struct {
	S struct {
		Events []struct {
			ID       string         `json:"id"`
			Kind     string         `json:"kind"`
			At       string         `json:"occurred_at"`
			ActionID string         `json:"action_id"`
			Data     map[string]any `json:"data"`
		} `json:"events"`
		Next string `json:"next_cursor"`
	} `json:"event_stream"`
}

func logT(t *testing.T, u, query string) logPage {
	t.Helper()
	r := get(t, u+"/aip/v1/events?"+query)
	if r.status != http.StatusOK {
		t.Fatalf("events: %d %s", r.status, r.body)
	}
	var p logPage
	mustJSON(t, r.body, &p)
	return p
}

// protocol §2.1: the history's rows come first, ordered by
// updated_at ascending and offset-paged, then the members'; a state filter
// finds exactly the rows in that state; total_size counts them all.
func TestHistoryList(t *testing.T) {
	const n = 97
	_, u := startFleet(t, FleetKnobs{History: History{Actions: n, Events: 1000}},
		Member{"async-long", Knobs{Speed: 1, ActionID: "act_live_async"}},
		Member{"chat-tools", Knobs{Finished: true, ActionID: "act_done_chat"}})
	var all []map[string]any
	cursor := ""
	for range 10 {
		l := listT(t, u, "limit=40"+cursor)
		if l.L.Total != n+2 {
			t.Fatalf("total_size %d, want %d", l.L.Total, n+2)
		}
		all = append(all, l.L.Actions...)
		if l.L.Cursor == nil {
			break
		}
		cursor = "&cursor=" + *l.L.Cursor
	}
	if len(all) != n+2 {
		t.Fatalf("%d rows paged, want %d", len(all), n+2)
	}
	byState := map[string]int{}
	seen := map[string]bool{}
	prev := ""
	for i, a := range all {
		up := a["updated_at"].(string)
		pt, _ := time.Parse(time.RFC3339Nano, prev)
		ut, _ := time.Parse(time.RFC3339Nano, up)
		if prev != "" && ut.Before(pt) {
			t.Fatalf("row %d updated %s before %s", i, up, prev)
		}
		prev = up
		id := a["action_id"].(string)
		if seen[id] || !strings.HasPrefix(id, "act_") {
			t.Fatalf("row %d: id %q (seen %v)", i, id, seen[id])
		}
		seen[id] = true
		byState[a["state"].(string)]++
	}
	if all[n]["action_id"] != "act_live_async" && all[n+1]["action_id"] != "act_live_async" {
		t.Fatalf("the members do not come last: %v %v", all[n]["action_id"], all[n+1]["action_id"])
	}
	for st, want := range byState {
		if l := listT(t, u, "limit=1000&state="+st); l.L.Total != want || len(l.L.Actions) != want {
			t.Fatalf("state=%s: total %d rows %d, want %d", st, l.L.Total, len(l.L.Actions), want)
		} else {
			for _, a := range l.L.Actions {
				if a["state"] != st {
					t.Fatalf("state=%s gave %v", st, a)
				}
			}
		}
	}
	if byState["failed"] == 0 || byState["dead_lettered"] == 0 || byState["cancelled"] == 0 {
		t.Fatalf("states %v", byState)
	}
	// The tail: total_size names the last page's offset.
	tail := listT(t, u, fmt.Sprintf("limit=10&cursor=offset:%d", n+2-10))
	if len(tail.L.Actions) != 10 || tail.L.Cursor != nil {
		t.Fatalf("tail %+v", tail.L)
	}
	// A history action's own route answers in the state its row shows.
	for _, a := range all[:20] {
		if st := statusT(t, u, a["action_id"].(string)); st["state"] != a["state"] {
			t.Fatalf("status %v, row %v", st, a)
		}
	}
}

// protocol §2.2, B9: positions are evt_cursor_<n> in the
// global log, the history's events first, each action's chunks then its
// result; the head answers an empty page with its own cursor; a cursor
// past it is 400 stream.cursor_expired (open point 9), or with
// PastHeadEmpty an empty page with the head's cursor.
func TestHistoryLogPositions(t *testing.T) {
	t.Parallel()
	const events = 1000
	f, u := startFleet(t, FleetKnobs{GlobalEvents: true, History: History{Actions: 30, Events: events}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
	p := logT(t, u, "limit=40")
	if len(p.S.Events) != 40 || p.S.Next != "evt_cursor_40" {
		t.Fatalf("first page: %d events, next %s", len(p.S.Events), p.S.Next)
	}
	// 1000 over 30 actions: the first ten have 34 events, the rest 33.
	if p.S.Events[33].Kind != "aip.action.result" || p.S.Events[32].Data["kind"] != "done" || p.S.Events[34].ActionID == p.S.Events[33].ActionID {
		t.Fatalf("action boundary: %+v %+v", p.S.Events[32], p.S.Events[33])
	}
	live := len(f.memberLog())
	head := events + live
	at := logT(t, u, fmt.Sprintf("cursor=evt_cursor_%d", head-1))
	if len(at.S.Events) != 1 || at.S.Events[0].ActionID != "act_done" || at.S.Next != fmt.Sprintf("evt_cursor_%d", head) {
		t.Fatalf("last event: %+v", at.S)
	}
	if e := logT(t, u, fmt.Sprintf("cursor=evt_cursor_%d", head)); len(e.S.Events) != 0 || e.S.Next != fmt.Sprintf("evt_cursor_%d", head) {
		t.Fatalf("at the head: %+v", e.S)
	}
	pe := envelopeError(t, get(t, u+fmt.Sprintf("/aip/v1/events?cursor=evt_cursor_%d", head+1)), http.StatusBadRequest)
	if pe.Code != "stream.cursor_expired" {
		t.Fatalf("past the head: %+v", pe)
	}
	// A kinds filter skips the chunks without reading them as events.
	r := logT(t, u, "kinds=aip.action.result&limit=1000")
	if len(r.S.Events) != 31 {
		t.Fatalf("%d results, want 31", len(r.S.Events))
	}

	_, u2 := startFleet(t, FleetKnobs{GlobalEvents: true, PastHeadEmpty: true, History: History{Actions: 3, Events: 30}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
	if e := logT(t, u2, "cursor=evt_cursor_999999"); len(e.S.Events) != 0 || e.S.Next == "evt_cursor_999999" {
		t.Fatalf("PastHeadEmpty: %+v", e.S)
	}
	_, u3 := startFleet(t, FleetKnobs{GlobalEvents: true, EventCursors: CursorsPostgres, History: History{Actions: 3, Events: 30}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
	if pe := envelopeError(t, get(t, u3+"/aip/v1/events?cursor=evt_cursor_5"), http.StatusBadRequest); pe.Code != "query.invalid_cursor" {
		t.Fatalf("postgres: %+v", pe)
	}
	if p := logT(t, u3, "limit=5"); len(p.S.Events) != 5 {
		t.Fatalf("postgres without a cursor: %+v", p.S)
	}
}

// A restart on a new store: the history is gone, positions start again,
// and the old head is past the new one.
func TestHistoryRestartLog(t *testing.T) {
	t.Parallel()
	f, u := startFleet(t, FleetKnobs{GlobalEvents: true, History: History{Actions: 10, Events: 500}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
	head := logT(t, u, "cursor=evt_cursor_400&limit=1000").S.Next
	f.RestartLog()
	pe := envelopeError(t, get(t, u+"/aip/v1/events?cursor="+head), http.StatusBadRequest)
	if pe.Code != "stream.cursor_expired" {
		t.Fatalf("%+v", pe)
	}
	if l := listT(t, u, ""); l.L.Total != 1 {
		t.Fatalf("after the restart %d listed", l.L.Total)
	}
	if p := logT(t, u, ""); len(p.S.Events) != 0 || p.S.Next != "evt_cursor_0" {
		t.Fatalf("after the restart: %+v", p.S)
	}
}

// The faults: a total_size that lies, list cursors that go backwards.
func TestHistoryListFaults(t *testing.T) {
	t.Parallel()
	_, u := startFleet(t, FleetKnobs{History: History{Actions: 50}, TotalSizeSkew: 1000, ListCursorsBackwards: true},
		Member{"chat-tools", Knobs{Finished: true, ActionID: "act_done_chat"}})
	l := listT(t, u, "limit=10&cursor=offset:20")
	if l.L.Total != 1051 || l.L.Cursor == nil || *l.L.Cursor != "offset:10" {
		t.Fatalf("%+v", l.L)
	}
}

// The production fleet holds neither its history's rows nor its events:
// 100,000 actions and 10,000,000 events cost little memory, and the list's
// tail and the log's head are read at once.
func TestHistoryProductionSizeMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := ProductionFleet(1, History{Actions: 100_000, Events: 10_000_000})
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := listT(t, u, "limit=1")
	tail := listT(t, u, fmt.Sprintf("limit=100&cursor=offset:%d", l.L.Total-100))
	if l.L.Total < 100_000 || len(tail.L.Actions) != 100 {
		t.Fatalf("total %d, tail %d", l.L.Total, len(tail.L.Actions))
	}
	p := logT(t, u, "cursor=evt_cursor_9999000&limit=1000")
	if len(p.S.Events) != 1000 {
		t.Fatalf("%d events near the head", len(p.S.Events))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
		t.Fatalf("the fleet holds %d MB", grew>>20)
	}
	if st := f.Stats(); st.ListRequests != 2 || st.EventRequests != 1 || st.EventBytes < 1000*200 {
		t.Fatalf("stats %+v", st)
	}
}

// protocol §7.1: each chunk's Event carries occurred_at, the daemon's time
// of storing it, one chunk per provider frame as it arrived (§8.2). A
// history action's review reads the times its run had: its first content
// some hundreds of milliseconds to seconds after the opening frame, its
// chunks spread over seconds, its result at the row's updated_at; the same
// at every read and on every fleet; not one instant for the whole run.
func TestHistoryReviewHasTheRunsTimes(t *testing.T) {
	t.Parallel()
	const n = 40
	read := func() (map[string][]time.Time, map[string]string) {
		_, u := startFleet(t, FleetKnobs{History: History{Actions: n, Events: 400}},
			Member{"chat-tools", Knobs{Finished: true, ActionID: "act_done_chat"}})
		times, updated := map[string][]time.Time{}, map[string]string{}
		for _, a := range listT(t, u, "limit=1000&state=completed").L.Actions {
			id := a["action_id"].(string)
			if !strings.HasPrefix(id, "act_") || id == "act_done_chat" {
				continue
			}
			updated[id] = a["updated_at"].(string)
			p, _ := readPageT(t, u, id, "limit=1000")
			for _, e := range p.Events {
				at, err := time.Parse(time.RFC3339Nano, e.OccurredAt)
				if err != nil {
					t.Fatalf("%s: occurred_at %q: %v", id, e.OccurredAt, err)
				}
				times[id] = append(times[id], at)
			}
		}
		return times, updated
	}
	// Each fleet's history ends when it starts: its times are compared
	// from each action's first event.
	offsets := func(ts []time.Time) []time.Duration {
		var d []time.Duration
		for _, at := range ts {
			d = append(d, at.Sub(ts[0]))
		}
		return d
	}
	times, updated := read()
	again, _ := read()
	if len(times) < 20 {
		t.Fatalf("%d completed history actions read", len(times))
	}
	var durations []time.Duration
	for id, ts := range times {
		if len(ts) < 10 {
			t.Fatalf("%s: %d events", id, len(ts))
		}
		if fmt.Sprint(offsets(ts)) != fmt.Sprint(offsets(again[id])) {
			t.Fatalf("%s: another fleet, other times: %v, %v", id, offsets(ts), offsets(again[id]))
		}
		for i := 1; i < len(ts); i++ {
			if ts[i].Before(ts[i-1]) {
				t.Fatalf("%s: event %d at %s before %s", id, i, ts[i], ts[i-1])
			}
		}
		if end := ts[len(ts)-1].Format(time.RFC3339Nano); end != updated[id] {
			t.Fatalf("%s: the result at %s, the row's updated_at %s", id, end, updated[id])
		}
		// The opening frame, then the first content at least 200 ms later.
		if think := ts[1].Sub(ts[0]); think < 200*time.Millisecond || think > 10*time.Second {
			t.Fatalf("%s: first content %s after the opening frame", id, think)
		}
		durations = append(durations, ts[len(ts)-1].Sub(ts[0]))
	}
	slices.Sort(durations)
	if lo, hi := durations[0], durations[len(durations)-1]; lo < time.Second || hi > 2*time.Minute || hi < 3*lo {
		t.Fatalf("durations from %s to %s: not seconds to a minute, or all alike", lo, hi)
	}
}

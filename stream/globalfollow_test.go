package stream

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
)

// globalRecorder keeps what a global follow sends, and signals each Live.
type globalRecorder struct {
	mu       sync.Mutex
	events   []model.Event
	causes   []string
	progress []GlobalProgressMsg
	live     chan struct{}
}

func newGlobalRecorder() *globalRecorder { return &globalRecorder{live: make(chan struct{}, 16)} }

func (g *globalRecorder) Send(m Msg) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch m := m.(type) {
	case GlobalEventsMsg:
		g.events = append(g.events, m.Events...)
	case GlobalProgressMsg:
		g.progress = append(g.progress, m)
	case GlobalLinkMsg:
		if m.Live {
			select {
			case g.live <- struct{}{}:
			default:
			}
		} else {
			g.causes = append(g.causes, m.Cause)
		}
	}
}

func (g *globalRecorder) waitLive(t *testing.T) {
	t.Helper()
	select {
	case <-g.live:
	case <-time.After(60 * time.Second):
		t.Fatal("the global follow never went live")
	}
}

func (g *globalRecorder) eventsOf(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, e := range g.events {
		if e.ActionID == id {
			n++
		}
	}
	return n
}

func followGlobal(t *testing.T, c *Client, o GlobalOptions) (*globalRecorder, func()) {
	t.Helper()
	rec := newGlobalRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.FollowGlobal(ctx, o, rec)
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return rec, stop
}

var productionLive = []sim.Member{
	{Scenario: "long", Knobs: sim.Knobs{Speed: 4, ActionID: "act_live_sync"}},
	{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async"}},
}

// design §7: the global follow joins the log near its head. Against
// 1,000,000 history events it reads a window before the head, a fraction
// of a percent of the log, keeps at most the window, and follows the live
// synchronous stream.
func TestGlobalFollowJoinsNearTheHead(t *testing.T) {
	t.Parallel()
	f, c := historyFleet(t, sim.FleetKnobs{GlobalEvents: true, History: sim.History{Actions: 1000, Events: 1_000_000},
		PollInterval: 5 * time.Millisecond}, productionLive...)
	rec, stop := followGlobal(t, c, GlobalOptions{Kinds: []string{"aip.stream.chunk", "aip.action.result"}, Window: 200})
	rec.waitLive(t)
	deadline := time.Now().Add(30 * time.Second)
	for rec.eventsOf("act_live_sync") == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if rec.eventsOf("act_live_sync") == 0 {
		t.Fatal("no chunk event of the live synchronous stream")
	}
	st := f.Stats()
	if hist := f.HistoryBytes(); st.EventBytes*100 > hist {
		t.Fatalf("read %d bytes of a %d-byte history", st.EventBytes, hist)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// The first events are the window before the head: the newest
	// history actions', none of the oldest.
	if len(rec.events) == 0 || len(rec.events) > 200+10_000 {
		t.Fatalf("%d events", len(rec.events))
	}
	var d struct {
		Sequence uint64 `json:"sequence"`
	}
	_ = json.Unmarshal(rec.events[0].Data, &d)
	first := rec.events[0]
	if first.ActionID == "act_live_sync" || d.Sequence < 1000-200-1 {
		t.Fatalf("the first event is %s seq %d: not near the head", first.ActionID, d.Sequence)
	}
	if st.EventRequests > 45 {
		t.Fatalf("%d global-log requests", st.EventRequests)
	}
}

// A daemon that refuses a position as a cursor (a Postgres store, A2): the
// log is read from its start with progress shown, and only the window's
// events are kept and handed over.
func TestGlobalFollowSeekRefused(t *testing.T) {
	t.Parallel()
	_, c := historyFleet(t, sim.FleetKnobs{GlobalEvents: true, EventCursors: sim.CursorsPostgres,
		History: sim.History{Actions: 100, Events: 20_000}, PollInterval: 5 * time.Millisecond},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_done"}})
	rec, stop := followGlobal(t, c, GlobalOptions{Window: 50})
	rec.waitLive(t)
	stop()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.causes) == 0 || !strings.Contains(rec.causes[0], "refused a seek") || !strings.Contains(rec.causes[0], "keeping the last 50 events") {
		t.Fatalf("causes %q", rec.causes)
	}
	if len(rec.progress) == 0 || !rec.progress[len(rec.progress)-1].FromStart {
		t.Fatalf("progress %+v", rec.progress)
	}
	if len(rec.events) != 50 || rec.events[49].ActionID != "act_done" {
		t.Fatalf("%d events handed over, the last of %s", len(rec.events), rec.events[len(rec.events)-1].ActionID)
	}
}

// Both answers to a cursor past the head (open point 9): the seek finds
// the head with either.
func TestGlobalFollowPastHeadEitherAnswer(t *testing.T) {
	t.Parallel()
	for _, empty := range []bool{false, true} {
		f, c := historyFleet(t, sim.FleetKnobs{GlobalEvents: true, PastHeadEmpty: empty,
			History: sim.History{Actions: 100, Events: 300_000}, PollInterval: 5 * time.Millisecond},
			sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_done"}})
		head, n, err := c.seekHead(context.Background())
		if err != nil || head != 300_000+int64(eventsOfMember(t, f)) || n > 45 {
			t.Fatalf("PastHeadEmpty %v: head %d in %d requests, %v", empty, head, n, err)
		}
	}
}

func eventsOfMember(t *testing.T, f *sim.Fleet) int {
	t.Helper()
	c, err := NewDaemon(Config{BaseURL: f.URL()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0 // the member's events, after the history's
	for p := int64(300_000); ; p++ {
		kind, _, e := c.probe(context.Background(), p)
		if e != nil {
			t.Fatal(e)
		}
		if kind != probeBefore {
			break
		}
		n++
	}
	return n
}

// A log that restarts its positions (the daemon on a new store): the old
// cursor is past the new head, and the follow joins it again at its head,
// saying why, and goes on with the new events.
func TestGlobalFollowLogRestarts(t *testing.T) {
	t.Parallel()
	f, c := historyFleet(t, sim.FleetKnobs{GlobalEvents: true, History: sim.History{Actions: 100, Events: 10_000},
		PollInterval: 5 * time.Millisecond}, productionLive...)
	rec, stop := followGlobal(t, c, GlobalOptions{Window: 100})
	rec.waitLive(t)
	f.RestartLog()
	rec.waitLive(t)
	before := rec.eventsOf("act_live_sync")
	deadline := time.Now().Add(30 * time.Second)
	for rec.eventsOf("act_live_sync") == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if rec.eventsOf("act_live_sync") == before {
		t.Fatal("no new event after the restart")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	joined := false
	for _, c := range rec.causes {
		joined = joined || strings.Contains(c, "restarted on a new store?): joining it again at its head")
	}
	if !joined {
		t.Fatalf("causes %q", rec.causes)
	}
}

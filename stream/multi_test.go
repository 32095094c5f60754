package stream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"aipwatch/sim"
)

// Multi polls every daemon with its own client, marks each row and event
// with its context, gives a daemon that cannot be read as one row of its
// own, and fails only when none could be read.
func TestMultiTagsRowsAndKeepsGoing(t *testing.T) {
	t.Parallel()
	east := fleetClient(t, sim.FleetKnobs{GlobalEvents: true, PollInterval: 20 * time.Millisecond},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_east_1"}})
	west := fleetClient(t, sim.FleetKnobs{GlobalEvents: true, PollInterval: 20 * time.Millisecond},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Speed: 20, ActionID: "act_west_1"}})
	down, err := NewDaemon(Config{BaseURL: "http://127.0.0.1:1", BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m := &Multi{Sources: []MultiSource{{Name: "east", Poller: east.NewPoller(0)}, {Name: "west", Poller: west.NewPoller(0)},
		{Name: "down", Poller: down.NewPoller(0)}, {Name: "broken", Err: errors.New("context broken: token_file: no such file")}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := m.Poll(ctx)
	if err != nil {
		t.Fatalf("two daemons answered: %v", err)
	}
	byCtx := map[string][]string{}
	for _, st := range append(w.Live, w.Recent.Rows...) {
		if st.Unreachable != "" {
			byCtx[st.Context] = append(byCtx[st.Context], "unreachable")
			continue
		}
		byCtx[st.Context] = append(byCtx[st.Context], st.ActionID)
	}
	if got := byCtx["east"]; len(got) != 1 || got[0] != "act_east_1" {
		t.Errorf("east: %v", got)
	}
	if got := byCtx["down"]; len(got) != 1 || got[0] != "unreachable" {
		t.Errorf("down: %v", got)
	}
	if got := byCtx["broken"]; len(got) != 1 || got[0] != "unreachable" {
		t.Errorf("broken: %v", got)
	}
	// None answers: still rows, each with its error; the poll itself does
	// not fail (a console across contexts stops on no daemon's error).
	none := &Multi{Sources: []MultiSource{{Name: "down", Poller: down.NewPoller(0)}}}
	if w, err := none.Poll(ctx); err != nil || len(w.Live) != 1 || w.Live[0].Unreachable == "" {
		t.Errorf("no daemon answered: %v %+v", err, w.Live)
	}

	// The global logs: every event marked with its daemon's context.
	var mu sync.Mutex
	seen := map[string]string{}
	fctx, fcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- (&Multi{Sources: m.Sources[:2]}).FollowGlobal(fctx, GlobalOptions{Kinds: []string{"aip.stream.chunk"}}, SinkFunc(func(msg Msg) {
			if ev, ok := msg.(GlobalEventsMsg); ok {
				mu.Lock()
				for _, e := range ev.Events {
					seen[e.ActionID] = e.Context
				}
				n := len(seen)
				mu.Unlock()
				if n >= 2 {
					fcancel()
				}
			}
		}))
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("follow ended: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the follow did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["act_east_1"] != "east" || seen["act_west_1"] != "west" {
		t.Errorf("events' contexts: %v", seen)
	}
}

// Issue 46 item 8: each daemon of a Multi is polled on its own (Parts): a
// daemon that accepts and never answers holds back no other's window, and
// its own read ends at the Multi's bound with an error that says so.
func TestMultiPartsArePolledApart(t *testing.T) {
	t.Parallel()
	east := fleetClient(t, sim.FleetKnobs{GlobalEvents: true},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_east_1"}})
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	hc, err := NewDaemon(Config{BaseURL: hung.URL})
	if err != nil {
		t.Fatal(err)
	}
	m := &Multi{Timeout: time.Hour, Sources: []MultiSource{{Name: "hung", Poller: hc.NewPoller(0)}, {Name: "east", Poller: east.NewPoller(0)}}}
	parts := m.Parts()
	if len(parts) != 2 || parts[0].Name != "hung" || parts[1].Name != "east" {
		t.Fatalf("%+v", parts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hungDone := make(chan error, 1)
	go func() {
		_, err := parts[0].Poll(ctx)
		hungDone <- err
	}()
	w, err := parts[1].Poll(ctx) // while hung's read is out: its bound is an hour
	if err != nil || len(w.Recent.Rows) != 1 || w.Recent.Rows[0].Context != "east" {
		t.Fatalf("east's part: %v %+v", err, w.Recent.Rows)
	}
	select {
	case err := <-hungDone:
		t.Fatalf("the hung part answered: %v", err)
	default:
	}
	// A part's own bound: no answer within it is said so.
	m.Timeout = 50 * time.Millisecond
	_, err = m.Parts()[0].Poll(context.Background())
	var na NoAnswerError
	if !errors.As(err, &na) || err.Error() != "list: no answer within 50ms" {
		t.Fatalf("%T %v", err, err)
	}
	cancel()
	if err := <-hungDone; err != nil {
		t.Logf("the hung read ended: %v", err)
	}
}

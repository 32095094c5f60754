package stream

import (
	"context"
	"errors"
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

package stream

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"aipwatch/sim"
)

func fleetClient(t *testing.T, k sim.FleetKnobs, members ...sim.Member) *Client {
	t.Helper()
	f, err := sim.NewFleet(k, members...)
	if err != nil {
		t.Fatal(err)
	}
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	c, err := NewDaemon(Config{BaseURL: u, Token: k.Token, BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The whole list, newest first, through its offset pages (ls --all).
func TestNewestReadsEveryPage(t *testing.T) {
	t.Parallel()
	var members []sim.Member
	for i := range 1003 {
		members = append(members, sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_x_" + itoa(i)}})
	}
	c := fleetClient(t, sim.FleetKnobs{}, members...)
	walk := c.NewNewest(nil, "", 1000)
	seen := map[string]bool{}
	for {
		st, ok, err := walk.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if seen[st.ActionID] {
			t.Fatalf("%s twice", st.ActionID)
		}
		seen[st.ActionID] = true
	}
	if len(seen) != 1003 {
		t.Fatalf("%d rows", len(seen))
	}
	if rows, _, _ := c.ReadState(context.Background(), ListQuery{State: "running"}); len(rows) != 0 {
		t.Fatalf("state filter: %d", len(rows))
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// The global-log follow shows a live synchronous stream; without the scope
// it stops at once, saying so (a Denied link message).
func TestFollowEvents(t *testing.T) {
	c := fleetClient(t, sim.FleetKnobs{GlobalEvents: true, PollInterval: 5 * time.Millisecond},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 20, ActionID: "act_sync_live"}})
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var live, sawSync bool
	done := make(chan error, 1)
	go func() {
		done <- c.FollowEvents(ctx, []string{"aip.stream.chunk"}, SinkFunc(func(m Msg) {
			mu.Lock()
			defer mu.Unlock()
			switch m := m.(type) {
			case GlobalLinkMsg:
				live = live || m.Live
			case GlobalEventsMsg:
				for _, e := range m.Events {
					sawSync = sawSync || e.ActionID == "act_sync_live"
				}
			}
		}))
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		ok := live && sawSync
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live %v, sync chunk events %v", live, sawSync)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}

	denied := fleetClient(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true}})
	var msgs []Msg
	err := denied.FollowEvents(context.Background(), nil, SinkFunc(func(m Msg) { msgs = append(msgs, m) }))
	var e *Error
	if !errors.As(err, &e) || e.Code != "auth.not_authorized" || len(msgs) != 1 || !msgs[0].(GlobalLinkMsg).Denied {
		t.Fatalf("%v %+v", err, msgs)
	}
}

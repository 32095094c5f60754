package console

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/sim"
	"aipwatch/stream"
)

// productionConsole is a console on a simulated daemon with a settled
// history h and two live actions, after its first poll and once its
// global follow is live.
func productionConsole(t *testing.T, h sim.History) (*Console, *sim.Fleet) {
	t.Helper()
	f, err := sim.ProductionFleet(4, h)
	if err != nil {
		t.Fatal(err)
	}
	c := fleetConsole(t, f)
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	c.Update(c.listCmd()())
	c.globalCmd()()
	deadline := time.After(60 * time.Second)
	for !strings.HasSuffix(c.globalNote, ": live") {
		msgc := make(chan tea.Msg, 1)
		go func() { msgc <- c.listen()() }()
		select {
		case m := <-msgc:
			c.Update(m)
		case <-deadline:
			t.Fatalf("the global follow never went live: %s", c.globalNote)
		}
	}
	c.Update(c.listCmd()()) // the live sync action's rows settle into the window
	return c, f
}

// design §7: what the console holds follows what is live and recent, not
// the daemon's history: its rows and its heap are the same, within a
// margin, on a history a hundred times larger.
func TestConsoleMemoryFlatInHistory(t *testing.T) {
	measure := func(h sim.History) (rows int, heap uint64) {
		c, f := productionConsole(t, h)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		rows = c.fleet.Len()
		c.Close()
		f.Close()
		return rows, ms.HeapAlloc
	}
	smallRows, smallHeap := measure(sim.History{Actions: 1000, Events: 20_000})
	bigRows, bigHeap := measure(sim.History{Actions: 100_000, Events: 2_000_000})
	if bigRows > 110 || smallRows > 110 {
		t.Fatalf("the console holds %d rows (small history: %d), want the live and the last 100", bigRows, smallRows)
	}
	if bigHeap > smallHeap+16<<20 {
		t.Fatalf("heap %d MB on the large history, %d MB on the small one", bigHeap>>20, smallHeap>>20)
	}
}

// One poll costs the live states and the tail, not the history's pages;
// scrolling past the last row reads the one older page before it.
func TestConsolePollAndOlderPage(t *testing.T) {
	t.Parallel()
	c, f := productionConsole(t, sim.History{Actions: 100_000, Events: 1000})
	before := f.Stats().ListRequests
	c.Update(c.listCmd()())
	if n := f.Stats().ListRequests - before; n > 5 {
		t.Fatalf("a poll made %d list requests", n)
	}
	if !strings.Contains(screenOf(c), "of 100001 listed") {
		t.Fatalf("the title does not say the list is larger:\n%s", screenOf(c))
	}
	shown := len(c.rows)
	c.table.GotoBottom()
	cmd := c.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if cmd == nil || !c.loading {
		t.Fatal("a key past the last row read nothing")
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, sub := range b {
			if sub != nil {
				if m, ok := sub().(olderMsg); ok {
					msg = m
				}
			}
		}
	}
	older, ok := msg.(olderMsg)
	if !ok || older.err != nil || len(older.page.Rows) != olderPage {
		t.Fatalf("%T %+v", msg, older.err)
	}
	c.Update(older)
	if len(c.rows) != shown+olderPage || c.loading {
		t.Fatalf("%d rows after an older page, %d before", len(c.rows), shown)
	}
	// The older rows stay through the next poll.
	c.Update(c.listCmd()())
	if len(c.rows) != shown+olderPage {
		t.Fatalf("%d rows after a poll", len(c.rows))
	}
}

// The status line while the global follow catches up, and once live.
func TestConsoleCatchingUpGolden(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 100, 12)
	c.onGlobal(stream.GlobalProgressMsg{Read: 1_234_567, Of: 2_000_000})
	up := screenOf(c)
	c.onGlobal(stream.GlobalProgressMsg{Read: 45_000, FromStart: true})
	fromStart := screenOf(c)
	c.onGlobal(stream.GlobalLinkMsg{Live: true})
	live := screenOf(c)
	if !strings.Contains(up, "catching up: 1.2M of 2.0M events") || !strings.Contains(fromStart, "45.0K events read") || !strings.Contains(live, "live") {
		t.Fatalf("%s\n%s\n%s", up, fromStart, live)
	}
	golden.RequireEqual(t, []byte(fmt.Sprintf("%s\n----\n%s\n----\n%s\n", up, fromStart, live)))
}

// A list whose total_size lies: the console still shows the tail, and its
// footer says what was wrong.
func TestConsoleListFaultOnTheStatusLine(t *testing.T) {
	t.Parallel()
	f, err := sim.NewFleet(sim.FleetKnobs{History: sim.History{Actions: 3000}, TotalSizeSkew: 50_000},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async"}})
	if err != nil {
		t.Fatal(err)
	}
	c := fleetConsole(t, f)
	c.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
	c.Update(c.listCmd()())
	s := screenOf(c)
	if !strings.Contains(s, "list: the list's total_size (53001) is past its last row (3001)") || !strings.Contains(s, "act_live_async") {
		t.Fatalf("%s", s)
	}
}

// fleetConsole starts f and a console on its daemon, both closed with the
// test.
func fleetConsole(t *testing.T, f *sim.Fleet) *Console {
	t.Helper()
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	client, err := stream.NewDaemon(stream.Config{BaseURL: u})
	if err != nil {
		t.Fatal(err)
	}
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t),
		LiveKeys: realKeys(t), NoColor: true})
	t.Cleanup(c.Close)
	return c
}

package console

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// orderHarness is a console over a daemon whose list the test changes,
// with a clock the test moves.
func orderHarness(t *testing.T, list []model.ActionStatus) (*Console, *fakeDaemon, *testClock, *holdBackend) {
	t.Helper()
	clk := &testClock{t: t0}
	d := &fakeDaemon{list: list}
	b := newHold()
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return b }, Clock: clk.now, NoColor: true})
	t.Cleanup(c.Close)
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	c.Update(c.listCmd()())
	return c, d, clk, b
}

// touch makes the action with this ID the most recently updated one.
func touch(list []model.ActionStatus, id string, at time.Time) {
	for i := range list {
		if list[i].ActionID == id {
			list[i].UpdatedAt = at.Format(time.RFC3339Nano)
		}
	}
}

// The rows hold their places under a key sequence: g j c read the second
// row on screen, and a poll between the keys that reorders the list by
// update time does not move another action under the cursor. Once the
// keys stop, the list is sorted again and the selection follows its
// action.
func TestConsoleRowsHoldUnderKeys(t *testing.T) {
	t.Parallel()
	c, d, clk, _ := orderHarness(t, consoleList())
	second := c.rows[1].ActionID
	press(c, "g")
	clk.t = clk.t.Add(time.Second)
	touch(d.list, "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f73", clk.t) // the last row becomes the newest
	c.Update(c.listCmd()())
	press(c, "j")
	if got := c.selectedID(); got != second {
		t.Fatalf("j selected %s, not %s, the second row on screen when g was pressed", got, second)
	}
	press(c, "c")
	if c.split == nil || c.split.Focused().Action().ID != second {
		t.Fatalf("c opened the cancel of another action than %s", second)
	}
	press(c, "esc", "esc")
	if c.split != nil || c.selectedID() != second {
		t.Fatalf("back in the list the selection is %s", c.selectedID())
	}
	// Idle: the next poll sorts by update time, the selection follows.
	clk.t = clk.t.Add(orderHold)
	c.Update(c.listCmd()())
	if c.rows[0].ActionID != "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f73" {
		t.Fatalf("not sorted again once idle: top %s", c.rows[0].ActionID)
	}
	if c.selectedID() != second {
		t.Fatalf("the selection left %s for %s", second, c.selectedID())
	}
}

// A new action that arrives while the order is held comes in below, so
// no row moves; a filter the operator sets is sorted at once.
func TestConsoleNewRowBelowWhileHeld(t *testing.T) {
	t.Parallel()
	c, d, clk, _ := orderHarness(t, consoleList())
	before := append([]model.ActionRow(nil), c.rows...)
	press(c, "down")
	clk.t = clk.t.Add(time.Second)
	d.list = append(d.list, model.ActionStatus{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7a",
		CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "running", UpdatedAt: clk.t.Format(time.RFC3339Nano)})
	c.Update(c.listCmd()())
	for i := range before {
		if c.rows[i].ActionID != before[i].ActionID {
			t.Fatalf("row %d moved: %s, was %s", i, c.rows[i].ActionID, before[i].ActionID)
		}
	}
	if c.rows[len(c.rows)-1].ActionID != "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7a" {
		t.Fatalf("the new row is not last while held")
	}
	press(c, "2") // live only: the operator's own change is sorted
	if c.rows[0].ActionID != "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7a" {
		t.Fatalf("a filter change kept the held order: top %s", c.rows[0].ActionID)
	}
}

// The cancel's confirmation asks for as many of the ID's last characters
// as tell it from every listed action: four of …sync_long would also be
// the end of …async_long.
func TestConsoleCancelWordTellsNeighboursApart(t *testing.T) {
	t.Parallel()
	at := t0.Format(time.RFC3339Nano)
	c, _, _, b := orderHarness(t, []model.ActionStatus{
		{ActionID: "act_sim_console_sync_long", State: "running", UpdatedAt: at},
		{ActionID: "act_sim_console_async_long", State: "running", UpdatedAt: at},
	})
	if c.selectedID() != "act_sim_console_async_long" {
		t.Fatalf("top row %s", c.selectedID())
	}
	press(c, "j", "c")
	if c.split == nil || c.split.Mode() != ui.ModeConfirm {
		t.Fatal("no confirmation")
	}
	if !strings.Contains(screenOf(c), "last 10 characters, _sync_long") {
		t.Fatalf("the prompt does not ask for _sync_long:\n%s", screenOf(c))
	}
	// Four characters (as the ID's last four, "long", would be: its n
	// keeps the action running) do not send it; the ten asked for do.
	press(c, "_", "s", "y", "n")
	c.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if b.cancels.Load() != 0 || c.split == nil || c.split.Mode() != ui.ModeConfirm {
		t.Fatal("four characters sent the cancel")
	}
	press(c, "c", "_", "l", "o", "n", "g")
	cmd := c.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	flatten(cmd)
	if b.cancels.Load() != 1 {
		t.Fatalf("the ten characters sent %d cancels", b.cancels.Load())
	}
}

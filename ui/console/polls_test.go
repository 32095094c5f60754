package console

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// deadlineDaemon is a fakeDaemon that records each read's deadline.
type deadlineDaemon struct {
	fakeDaemon
	mu        sync.Mutex
	polls     int
	deadlines []time.Duration // from the read's start; -1: none
}

func (d *deadlineDaemon) Poll(ctx context.Context) (stream.Window, error) {
	d.mu.Lock()
	d.polls++
	dl := time.Duration(-1)
	if at, ok := ctx.Deadline(); ok {
		dl = time.Until(at)
	}
	d.deadlines = append(d.deadlines, dl)
	d.mu.Unlock()
	return d.fakeDaemon.Poll(ctx)
}

// pollConsole is a console on d polling every 3 s (design §7), its timers
// recorded instead of run: after gives the stale checks' waits.
func pollConsole(t *testing.T, d Daemon) (*Console, *[]time.Duration) {
	t.Helper()
	clock := &testClock{t: t0}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Clock: clock.now, NoColor: true, PollEvery: 3 * time.Second})
	t.Cleanup(c.Close)
	var waits []time.Duration
	c.after = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		waits = append(waits, d)
		return func() tea.Msg { return fn(clock.t.Add(d)) }
	}
	c.update(tea.WindowSizeMsg{Width: 160, Height: 30})
	return c, &waits
}

// Issue 46 item 8, design §7: a daemon's rows read stale once its read has
// been out two poll periods (6 s at 3 s); one read at a time a daemon (a
// period that ends while it is out sends none); and the stale check of an
// earlier read that answered does not mark the next one stale.
func TestConsolePollOneReadAtATimeStaleAfterTwoPeriods(t *testing.T) {
	t.Parallel()
	d := &deadlineDaemon{fakeDaemon: fakeDaemon{list: consoleList()}}
	c, waits := pollConsole(t, d)
	first := flattenNoRun(c.update(pollMsg{part: 0})) // the read and its stale check
	if len(first) != 2 || len(*waits) != 1 || (*waits)[0] != 6*time.Second {
		t.Fatalf("%d commands, stale checks after %v; want the read and one check after 6s", len(first), *waits)
	}
	gen := c.parts[0].gen
	_ = c.update(pollMsg{part: 0}) // the next period, the read still out
	if c.parts[0].gen != gen || len(*waits) != 1 {
		t.Fatalf("a second read sent while the first is out (reads %d→%d)", gen, c.parts[0].gen)
	}
	var read, check tea.Msg
	for _, cmd := range first {
		switch m := cmd().(type) {
		case staleMsg:
			check = m
		default:
			read = m
		}
	}
	c.update(read) // it answers
	second := flattenNoRun(c.update(pollMsg{part: 0}))
	if len(second) != 2 || c.parts[0].gen != gen+1 {
		t.Fatalf("no read sent once the first answered")
	}
	c.update(check) // the first read's check comes late
	if c.staleLine() != "" {
		t.Fatalf("the answered read's check marked the next one stale: %q", c.staleLine())
	}
	c.update(staleMsg{part: 0, gen: gen + 1}) // the second read's own check
	if c.staleLine() == "" {
		t.Fatal("the read out two periods is not stale")
	}
}

// docs/console.md: one daemon's read is bounded by 30 s when the daemon
// sets no bound of its own ("list: no answer within 30s").
func TestConsolePollOfOneDaemonBoundedByThirtySeconds(t *testing.T) {
	t.Parallel()
	d := &deadlineDaemon{fakeDaemon: fakeDaemon{list: consoleList()}}
	c, _ := pollConsole(t, d)
	for _, cmd := range flattenNoRun(c.update(pollMsg{part: 0})) {
		if m, ok := cmd().(listMsg); ok {
			c.update(m)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.polls != 1 || d.deadlines[0] < 25*time.Second || d.deadlines[0] > 30*time.Second {
		t.Fatalf("%d reads, deadlines %v; want one within 30s", d.polls, d.deadlines)
	}
}

// docs/console.md: an action whose per-action reads find nothing is read
// again later and later, at most a minute apart; a read that finds its
// record (a running action without chunks yet) is followed at once again.
func TestConsoleProbesBackOffToAMinute(t *testing.T) {
	t.Parallel()
	c, _ := pollConsole(t, &fakeDaemon{list: consoleList()})
	prev := time.Duration(0)
	for empties := range 40 {
		w := c.probeWait(&probe{empties: empties})
		switch {
		case empties == 0 && w != 0:
			t.Fatalf("a probe that found something waits %v", w)
		case w > time.Minute:
			t.Fatalf("after %d empty probes the wait is %v, over a minute", empties, w)
		case w < prev:
			t.Fatalf("after %d empty probes the wait shrank to %v", empties, w)
		}
		prev = w
	}
	if prev != time.Minute {
		t.Fatalf("the wait grows to %v, not a minute", prev)
	}
	key := "act_probe_01"
	c.onProbed(probedMsg{part: 0, key: key, p: stream.Probe{ID: key, Status: model.ActionStatus{ActionID: key, State: model.StateUnknown}}})
	c.onProbed(probedMsg{part: 0, key: key, p: stream.Probe{ID: key, Status: model.ActionStatus{ActionID: key, State: model.StateUnknown}}})
	if e := c.parts[0].log.probes[key].empties; e != 2 {
		t.Fatalf("two probes that found no record: %d empties", e)
	}
	c.onProbed(probedMsg{part: 0, key: key, p: stream.Probe{ID: key, Status: model.ActionStatus{ActionID: key, State: model.StateRunning}}})
	if e := c.parts[0].log.probes[key].empties; e != 0 {
		t.Fatalf("a probe that found the action running: %d empties", e)
	}
}

// Issue 46 item 16: y copies only an ID of AIP's characters (what is pasted
// may land on a shell's line, as completion's words do): a listed ID with
// a ';' or a space is not copied, and the note says why.
func TestConsoleCopyRefusesAnIDOfOtherCharacters(t *testing.T) {
	t.Parallel()
	list := []model.ActionStatus{{ActionID: "act_x;touch ~/PWNED", State: "running", UpdatedAt: t0.Format(time.RFC3339Nano)}}
	c := New(context.Background(), Options{Daemon: &fakeDaemon{list: list}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Clock: (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 160, Height: 20})
	c.update(c.listCmd()())
	if c.selectedID() != list[0].ActionID {
		t.Fatalf("the fixture: selected %q", c.selectedID())
	}
	if cmd := c.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}); cmd != nil {
		t.Fatalf("y sent %v to the clipboard", cmd())
	}
	if !strings.Contains(screenOf(c), "not copied") {
		t.Fatalf("y says nothing:\n%s", screenOf(c))
	}
}

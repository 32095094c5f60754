package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/internal/frames"
	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// hostConsole runs the real program on the simulator's connector-host
// fleet (the released deployment), its token tenant-scoped or not, with
// this machine's journal holding the two streaming submissions.
func hostConsole(t *testing.T, tenantScoped bool) (*frames.Recorder, *teatest.TestModel, *sim.Fleet) {
	t.Helper()
	f, err := sim.ConnectorHostFleet(4, tenantScoped)
	client := fastClient(t, serveFleet(t)(f, err))
	ids := sim.ConnectorHostActions
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		NoColor: true, PollEvery: 50 * time.Millisecond,
		Journal: func() []string { return []string{ids[0], ids[1]} }})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(220, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	return fr, tm, f
}

// Issue 43 point 4: on a tenant-scoped global log (no chunk, result or
// cancel event of a Hermes action), the console notices once an action it
// saw live settles with the log silent, says so in its header, and
// follows its live rows by per-action reads: the operator's own streaming
// submissions (the journal's, not listed while they run) read streaming,
// and the pulse counts their chunks.
func TestConsoleTenantScopedLogFollowedByReads(t *testing.T) {
	t.Parallel()
	fr, tm, _ := hostConsole(t, true)
	ids := sim.ConnectorHostActions
	rows := fr.Wait(t, "the header saying the log is blind, the streaming submission streaming", func(s string) bool {
		head := strings.SplitN(s, "\n", 2)[0]
		return strings.Contains(head, "global log without chunk/result events (tenant-scoped token?)") &&
			strings.Contains(lineOf(s, ids[1]), "streaming")
	})
	if l := lineOf(strings.Join(rows, "\n"), ids[0]); !strings.Contains(l, "j") {
		t.Errorf("the streaming Chat submission's row: %q", l)
	}
	// The streaming Chat submission settles: its probe reads it settled
	// (its state from its status), the list has it a poll later.
	fr.Wait(t, "the streaming Chat submission settled", func(s string) bool { return strings.Contains(lineOf(s, ids[0]), "completed") })
	fr.Wait(t, "the pulse counting the streaming submissions' chunks", func(s string) bool {
		return strings.Contains(s, "chunks/s") && !strings.Contains(s, " 0 now")
	})
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// The same fleet, its token not tenant-scoped: the log carries the
// streaming actions' chunks and the results, and the header never says it
// is blind, however many polls pass after the async turn settled.
func TestConsoleFleetLogNotBlindWithoutTenant(t *testing.T) {
	t.Parallel()
	fr, tm, f := hostConsole(t, false)
	ids := sim.ConnectorHostActions
	fr.Wait(t, "the async Chat turn settled", func(s string) bool { return strings.Contains(lineOf(s, ids[2]), "completed") })
	before := f.Stats().ListRequests
	rows := fr.Wait(t, "ten polls later", func(string) bool { return f.Stats().ListRequests >= before+40 })
	if head := rows[0]; strings.Contains(head, "tenant-scoped") {
		t.Errorf("a log that carries the events read as blind: %q", head)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// The settlement rule, step by step: an action seen running settles in
// the list; a poll later, with the log live and silent, the header says the
// log is blind. A log that carried the result event (or any chunk or result
// event) is not.
func TestConsoleBlindLogBySettlement(t *testing.T) {
	t.Parallel()
	for _, carried := range []bool{false, true} {
		list := []model.ActionStatus{{ActionID: "act_a", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "running",
			UpdatedAt: t0.Format(time.RFC3339Nano)}}
		d := &fakeDaemon{list: list}
		c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
			Clock: (&testClock{t: t0}).now, NoColor: true})
		t.Cleanup(c.Close)
		c.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
		c.Update(c.listCmd()())
		c.Update(globalMsg{stream.GlobalLinkMsg{Live: true}})
		c.Update(c.listCmd()())
		d.list = []model.ActionStatus{{ActionID: "act_a", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "completed",
			ResultStatus: "completed", UpdatedAt: t0.Format(time.RFC3339Nano)}}
		c.Update(c.listCmd()())
		if carried {
			c.Update(globalMsg{stream.GlobalEventsMsg{Events: []model.Event{{Kind: "aip.action.result", ActionID: "act_a",
				OccurredAt: t0.Format(time.RFC3339Nano), Data: json.RawMessage(`{"action_id":"act_a","status":"completed"}`)}}}})
		}
		head := strings.SplitN(screenOf(c), "\n", 2)[0]
		if strings.Contains(head, "tenant-scoped") {
			t.Fatalf("blind at the poll that saw it settle (the event may be on its way): %q", head)
		}
		c.Update(c.listCmd()())
		head = strings.SplitN(screenOf(c), "\n", 2)[0]
		if blind := strings.Contains(head, "global log without chunk/result events (tenant-scoped token?)"); blind == carried {
			t.Errorf("log carried the result: %v; header %q", carried, head)
		}
	}
}

// probeDaemon is fakeDaemon that probes: each action reads settled
// (failed), as a journal entry the daemon settled long ago does.
type probeDaemon struct {
	fakeDaemon
	probed []string
}

func (d *probeDaemon) Probe(_ context.Context, id, _ string) (stream.Probe, error) {
	d.probed = append(d.probed, id)
	return stream.Probe{ID: id, Status: model.ActionStatus{ActionID: id, State: "failed", ResultStatus: "failed"},
		Events: []model.Event{{Kind: "aip.action.result", ActionID: id, OccurredAt: t0.Add(-48 * time.Hour).Format(time.RFC3339Nano),
			Data: json.RawMessage(`{"action_id":"` + id + `","status":"failed"}`)}}}, nil
}

// A journal row the list lacks (j!) is probed and reads its state; one the
// probe finds settled long ago is no news: --notify-on does not take it
// for an action that settled while watched (it was never seen live).
func TestConsoleJournalProbeSettlesNoNotification(t *testing.T) {
	t.Parallel()
	d := &probeDaemon{}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Journal: func() []string { return []string{"act_old_failed"} }, Judge: &fakeJudge{},
		Clock: (&testClock{t: t0}).now, NoColor: true, NotifyOn: []string{"failed"}, PollEvery: time.Millisecond,
		NotifyOnBytes: func(text string) string { return text }})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 160, Height: 20})
	cmd := c.update(c.listCmd()())
	for _, m := range flatten(cmd) {
		if pm, ok := m.(probedMsg); ok {
			c.update(pm)
		}
	}
	if len(d.probed) != 1 || d.probed[0] != "act_old_failed" {
		t.Fatalf("probed %v", d.probed)
	}
	if l := lineOf(screenOf(c), "act_old_failed"); !strings.Contains(l, "failed") {
		t.Fatalf("the probed journal row: %q", l)
	}
	c.update(c.listCmd()())
	if len(c.watch.settling) != 0 {
		t.Fatalf("an old journal action read settled counts as settled while watched: %v", c.watch.settling)
	}
}

// Across contexts, each daemon's own journal entries (each Source's Journal)
// are its rows: the streaming submission to the tenant-scoped fleet, which
// its list lacks while it runs, reads streaming on that context's row, and
// that context alone is named blind in the header.
func TestConsoleAcrossContextsJournalAndBlindLog(t *testing.T) {
	t.Parallel()
	start := func(f *sim.Fleet, err error) *stream.Poller {
		return fastClient(t, serveFleet(t)(f, err)).NewPoller(0)
	}
	host := start(sim.ConnectorHostFleet(4, true))
	east := start(sim.ConsoleFleet(4))
	ids := sim.ConnectorHostActions
	c := New(context.Background(), Options{Sources: []Source{
		{MultiSource: stream.MultiSource{Name: "east", Poller: east}, Journal: func() []string { return nil }},
		{MultiSource: stream.MultiSource{Name: "host", Poller: host}, Journal: func() []string { return []string{ids[1]} }},
	}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, PollEvery: 50 * time.Millisecond})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(240, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	rows := fr.Wait(t, "host named blind, its streaming submission streaming", func(s string) bool {
		l := lineOf(s, ids[1])
		return strings.Contains(strings.SplitN(s, "\n", 2)[0], "host: global log without chunk/result events") &&
			strings.HasPrefix(strings.TrimSpace(l), "host") && strings.Contains(l, "streaming")
	})
	if head := rows[0]; strings.Contains(head, "east, host:") || strings.Contains(head, "east:") {
		t.Errorf("east's log named blind: %q", head)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// liveProbeDaemon lists n running actions, may not read the global log,
// and answers probes with one chunk each, counting them.
type liveProbeDaemon struct {
	fakeDaemon
	probed []string
}

func (d *liveProbeDaemon) Probe(_ context.Context, id, cursor string) (stream.Probe, error) {
	d.probed = append(d.probed, id)
	data, _ := json.Marshal(map[string]any{"action_id": id, "sequence": len(cursor), "kind": "delta"})
	return stream.Probe{ID: id, Status: model.ActionStatus{ActionID: id, State: "running"}, Chunks: 1, Cursor: cursor + "x",
		Events: []model.Event{{Kind: "aip.stream.chunk", ActionID: id, OccurredAt: t0.Format(time.RFC3339Nano), Data: data}}}, nil
}

// The probes' budget (design §7: a few at a time): with ten live rows and
// a log the token may not read, a poll probes four actions, no more while
// those are out, and the next poll the four least recently read.
func TestConsoleProbesAFewAtATime(t *testing.T) {
	t.Parallel()
	d := &liveProbeDaemon{}
	for i := range 10 {
		d.list = append(d.list, model.ActionStatus{ActionID: fmt.Sprintf("act_live_%02d", i), State: "running",
			UpdatedAt: t0.Add(-time.Duration(i) * time.Second).Format(time.RFC3339Nano)})
	}
	clock := &testClock{t: t0}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), Clock: clock.now, NoColor: true,
		PollEvery: time.Millisecond}) // flatten runs the next poll's tick
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 160, Height: 20})
	c.update(globalMsg{stream.GlobalLinkMsg{Denied: true}})
	probes := func() []tea.Msg {
		cmd := c.update(c.listCmd()())
		var out []tea.Msg
		for _, m := range flatten(cmd) {
			if pm, ok := m.(probedMsg); ok {
				out = append(out, pm)
			}
		}
		return out
	}
	first := probes()
	if len(first) != 4 || len(d.probed) != 4 { // docs/console.md: at most 4 actions a poll a daemon
		t.Fatalf("a poll sent %d probes, want 4", len(first))
	}
	if again := probes(); len(again) != 0 {
		t.Fatalf("%d more probes while 4 are out", len(again))
	}
	for _, m := range first {
		c.update(m)
	}
	clock.t = clock.t.Add(time.Second)
	second := probes()
	if len(second) != 4 {
		t.Fatalf("the next poll sent %d probes", len(second))
	}
	seen := map[string]int{}
	for _, id := range d.probed {
		seen[id]++
	}
	if len(seen) != 8 {
		t.Fatalf("the second poll probed again what the first did: %v", d.probed)
	}
	// What they read goes the log's way: a probed row reads its chunk.
	for _, m := range second {
		c.update(m)
	}
	if n := len(c.fleet.Rows(model.Filter{})); n != 10 {
		t.Fatalf("%d rows", n)
	}
	r, _ := c.fleet.Row(d.probed[0])
	if !r.HasSeq {
		t.Fatalf("a probed row took no chunk: %+v", r)
	}
}

// One probe's chunks the live log has not carried yet prove nothing (its
// batch may be on its way); a second probe's, a poll later, do. An action
// seen settled before the log went live proves nothing until a poll with
// the log live.
func TestConsoleBlindLogNeedsASecondLook(t *testing.T) {
	t.Parallel()
	d := &liveProbeDaemon{}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Journal: func() []string { return []string{"act_mine_streaming"} }, Clock: (&testClock{t: t0}).now, NoColor: true,
		PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 200, Height: 20})
	c.update(globalMsg{stream.GlobalLinkMsg{Live: true}})
	blind := func() bool { return strings.Contains(strings.SplitN(screenOf(c), "\n", 2)[0], "tenant-scoped") }
	poll := func() {
		cmd := c.update(c.listCmd()())
		for _, m := range flatten(cmd) {
			if pm, ok := m.(probedMsg); ok {
				c.update(pm)
			}
		}
	}
	poll()
	if len(d.probed) != 1 || blind() {
		t.Fatalf("after one probe with chunks: probed %v, blind %v", d.probed, blind())
	}
	poll()
	if len(d.probed) != 2 || !blind() {
		t.Fatalf("after two: probed %v, blind %v", d.probed, blind())
	}

	// Settled before the log went live.
	d2 := &fakeDaemon{list: []model.ActionStatus{{ActionID: "act_a", State: "running", UpdatedAt: t0.Format(time.RFC3339Nano)}}}
	c2 := New(context.Background(), Options{Daemon: d2, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), Clock: (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c2.Close)
	c2.update(tea.WindowSizeMsg{Width: 200, Height: 20})
	c2.update(c2.listCmd()())
	d2.list[0].State = "completed"
	c2.update(c2.listCmd()())
	c2.update(c2.listCmd()())
	c2.update(globalMsg{stream.GlobalLinkMsg{Live: true}})
	if head := strings.SplitN(screenOf(c2), "\n", 2)[0]; strings.Contains(head, "tenant-scoped") {
		t.Fatalf("blind as the log went live: %q", head)
	}
	c2.update(c2.listCmd()())
	if head := strings.SplitN(screenOf(c2), "\n", 2)[0]; !strings.Contains(head, "tenant-scoped") {
		t.Fatalf("not blind a poll after the log went live, silent: %q", head)
	}
}

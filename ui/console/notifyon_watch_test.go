package console

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// watchConsole is a console with --notify-on failed over n running rows
// (act_watch_000…), polled once, its clock the test's; after answers a
// wait at once.
func watchConsole(t *testing.T, n int, j Judge) (*Console, *fakeDaemon, *testClock) {
	t.Helper()
	var list []model.ActionStatus
	for i := range n {
		list = append(list, model.ActionStatus{ActionID: fmt.Sprintf("act_watch_%03d", i), CapabilityID: "cap:hermes_agent:prod:chat_stream",
			State: "running", QueuedState: "running", UpdatedAt: t0.Format(time.RFC3339Nano)})
	}
	clock := &testClock{t: t0}
	d := &fakeDaemon{list: list}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return newHold() },
		Judge:  j, Clock: clock.now, NoColor: true, NotifyOn: []string{"failed"},
		NotifyOnBytes: func(text string) string { return text }})
	t.Cleanup(c.Close)
	c.after = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return fn(clock.t.Add(d)) }
	}
	c.update(tea.WindowSizeMsg{Width: 160, Height: 45})
	c.update(c.listCmd()())
	return c, d, clock
}

// settleAll marks every row of the daemon's list settled (failed) now.
func settleAll(d *fakeDaemon, at time.Time) {
	for i := range d.list {
		d.list[i].State, d.list[i].ResultStatus, d.list[i].UpdatedAt = "failed", "failed", at.Format(time.RFC3339Nano)
	}
}

// design §13, §7: --notify-on judges the actions it saw settle within the
// judge's bounds: eight settling at once are asked for four at a time.
func TestConsoleNotifyOnJudgesAtMostFourAtOnce(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{}}
	c, d, clock := watchConsole(t, 8, j)
	clock.t = t0.Add(time.Second)
	settleAll(d, clock.t)
	c.update(c.listCmd()())
	if n := len(c.watch.settling); n != 8 {
		t.Fatalf("%d rows settling, want the 8 seen live", n)
	}
	cmds := flattenNoRun(c.judgeSettling())
	if len(cmds) != 4 || len(c.verdict.judging) != 4 {
		t.Fatalf("%d judgements asked for at once (%d out), want 4", len(cmds), len(c.verdict.judging))
	}
}

// Each action seen settling is judged once and told once: once its
// verdict is in, later polls neither judge it again nor tell it again.
func TestConsoleNotifyOnJudgesAndTellsEachActionOnce(t *testing.T) {
	t.Parallel()
	words := map[string]string{}
	for i := range 2 {
		words[fmt.Sprintf("act_watch_%03d", i)] = model.VerdictFailed
	}
	j := &fakeJudge{words: words}
	c, d, clock := watchConsole(t, 2, j)
	var sent []string
	run := func(cmd tea.Cmd) {
		for queue, n := flatten(cmd), 0; len(queue) > 0; n++ {
			if n > 1000 { // two actions: a few messages each
				t.Fatal("the judgements and notifications never end")
			}
			m := queue[0]
			queue = queue[1:]
			if r, ok := m.(tea.RawMsg); ok {
				sent = append(sent, fmt.Sprint(r.Msg))
				continue
			}
			if _, ok := m.(notifyDueMsg); ok {
				clock.t = clock.t.Add(3 * time.Second) // the window's end
			}
			more := c.Update(m)
			queue = append(queue, flatten(more)...)
		}
	}
	clock.t = t0.Add(time.Second)
	settleAll(d, clock.t)
	c.update(c.listCmd()())
	run(c.judgeSettling())
	if len(sent) != 1 || sent[0] != "2 actions failed" {
		t.Fatalf("sent %q, want one notification of the two", sent)
	}
	asked := len(j.asked)
	for range 3 {
		clock.t = clock.t.Add(10 * time.Second)
		c.update(c.listCmd()())
		run(c.judgeSettling())
	}
	if len(sent) != 1 || len(j.asked) != asked {
		t.Fatalf("after three more polls: sent %q, judged %d times (was %d)", sent, len(j.asked), asked)
	}
	if len(c.watch.settling) != 0 {
		t.Fatalf("still settling: %v", c.watch.settling)
	}
}

// What --notify-on keeps is bounded by the list: a live row gone from the
// list is forgotten, and so is a settling one gone before its judgement.
func TestConsoleNotifyOnForgetsRowsGoneFromTheList(t *testing.T) {
	t.Parallel()
	c, d, clock := watchConsole(t, 3, &fakeJudge{})
	if len(c.watch.live) != 3 {
		t.Fatalf("%d rows seen live, want 3", len(c.watch.live))
	}
	clock.t = t0.Add(time.Second)
	settleAll(d, clock.t)
	d.list[0].State, d.list[0].ResultStatus = "running", ""
	c.update(c.listCmd()())
	if len(c.watch.settling) != 2 || len(c.watch.live) != 1 {
		t.Fatalf("settling %v, live %v", c.watch.settling, c.watch.live)
	}
	d.list = nil
	c.update(c.listCmd()())
	if len(c.watch.settling) != 0 || len(c.watch.live) != 0 {
		t.Fatalf("rows gone from the list still kept: settling %v, live %v", c.watch.settling, c.watch.live)
	}
}

// design §7, §13: nothing is judged while a live view is open, the rows
// --notify-on saw settle neither; they are judged once it is closed.
func TestConsoleNotifyOnJudgesNothingUnderALiveView(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{}
	c, d, clock := watchConsole(t, 2, j)
	c.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if c.split == nil {
		t.Fatal("enter opened no live view")
	}
	clock.t = t0.Add(time.Second)
	settleAll(d, clock.t)
	c.update(c.listCmd()())
	if n := len(c.watch.settling); n != 2 {
		t.Fatalf("%d rows settling, want 2", n)
	}
	if cmds := flattenNoRun(c.judgeSettling()); len(cmds) != 0 || len(c.verdict.judging) != 0 {
		t.Fatalf("%d judgements asked for under the live view", len(cmds))
	}
	c.update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if c.split != nil {
		t.Fatal("esc did not close the live view")
	}
	if cmds := flattenNoRun(c.judgeSettling()); len(cmds) != 2 {
		t.Fatalf("%d judgements asked for once the live view closed, want 2", len(cmds))
	}
}

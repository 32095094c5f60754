package console

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/stream"
)

// timedJudge is fakeJudge with timings and usage, so that the figures
// per capability have something to hold: the first token and duration
// grow with the row's number.
type timedJudge struct{ fakeJudge }

func (j *timedJudge) Judge(ctx context.Context, id string) stream.Judgement {
	jg := j.fakeJudge.Judge(ctx, id)
	n, _ := strconv.ParseInt(id[len(id)-3:], 10, 64)
	jg.Verdict = model.Verdict{Word: jg.Word, Final: true, Reasons: []string{"AIP result " + jg.Word}}
	jg.Usage = model.TurnUsage{TotalTokens: 1000, Reported: true}
	jg.Timing = model.TurnTiming{FirstTokenMS: 300 + 40*n, HasFirstToken: true, DurationMS: 4000 + 900*n, HasDuration: true}
	return jg
}

func (j *timedJudge) Review(ctx context.Context, id string) (*model.Action, stream.Judgement) {
	return model.NewAction(id), j.Judge(ctx, id)
}

// fleetList is a fleet of settled rows, one every 25 s over the last
// twelve minutes, two capabilities, and two live rows.
func fleetList() []model.ActionStatus {
	at := func(s int) string { return t0.Add(-time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
	list := []model.ActionStatus{
		{ActionID: "act_live_900", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "running", QueuedState: "running", UpdatedAt: at(1)},
		{ActionID: "act_live_901", CapabilityID: "cap:hermes_agent:prod:responses_stream", State: "running", QueuedState: "running", UpdatedAt: at(3)},
	}
	for i := range 29 {
		capID := "cap:hermes_agent:prod:chat_stream"
		if i%3 == 2 {
			capID = "cap:hermes_agent:prod:responses_stream"
		}
		list = append(list, model.ActionStatus{ActionID: fmt.Sprintf("act_done_%03d", i), CapabilityID: capID, State: "completed",
			QueuedState: "completed", ResultStatus: "completed", UpdatedAt: at(10 + 25*i)})
	}
	return list
}

// chunkEvents are the global log's chunks of the two live rows over the
// last three minutes, their rate rising.
func chunkEvents() []model.Event {
	var evs []model.Event
	seq := map[string]int{}
	for s := 180; s >= 0; s-- {
		for k := 0; k < (180-s)/20+1; k++ {
			id := []string{"act_live_900", "act_live_901"}[k%2]
			evs = append(evs, model.Event{Kind: "aip.stream.chunk", ActionID: id,
				OccurredAt: t0.Add(-time.Duration(s) * time.Second).Format(time.RFC3339Nano),
				Data:       []byte(fmt.Sprintf(`{"action_id":%q,"sequence":%d,"kind":"data"}`, id, seq[id]))})
			seq[id]++
		}
	}
	return evs
}

func pulseConsole(t *testing.T, w, h int, j Judge) (*Console, *fakeDaemon) {
	t.Helper()
	c, d := verdictConsole(t, w, h, fleetList(), j)
	c.update(globalMsg{stream.GlobalEventsMsg{Events: chunkEvents()}})
	judgeAll(t, c)
	return c, d
}

func failedWords() map[string]string {
	return map[string]string{"act_done_001": model.VerdictFailed, "act_done_004": model.VerdictFailed,
		"act_done_005": model.VerdictIncomplete, "act_done_010": model.VerdictPartial}
}

// design §13: the pulse at the top of the console, at 80 columns its first
// line alone, at 160 three lines (the bars with the letters of the
// verdicts judged in the window under them: V P F I here);
// s opens the figures per capability. Goldens, no colour.
func TestConsolePulseGoldens(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			c, _ := pulseConsole(t, size[0], size[1], &timedJudge{fakeJudge{words: failedWords()}})
			s := screenOf(c)
			lines := strings.Split(s, "\n")
			if !strings.HasPrefix(lines[1], "chunks/s ") {
				t.Fatalf("no pulse under the title:\n%s", s)
			}
			if tall := strings.Contains(s, "VPFI"); tall != (size[0] >= 100) {
				t.Fatalf("the bars at %d columns: %v\n%s", size[0], tall, s)
			}
			press(c, "s")
			golden.RequireEqual(t, []byte(s+"\n----\n"+screenOf(c)))
		})
	}
}

// p folds the pulse away and the table takes its lines; p again brings it
// back. No line is ever wider than the screen.
func TestConsolePulseFolds(t *testing.T) {
	t.Parallel()
	c, _ := pulseConsole(t, 160, 45, &timedJudge{})
	h := c.table.Height()
	press(c, "p")
	s := screenOf(c)
	if strings.Contains(s, "chunks/s") || c.table.Height() != h+3 {
		t.Fatalf("folded: table %d rows (was %d)\n%s", c.table.Height(), h, s)
	}
	press(c, "p")
	if s := screenOf(c); !strings.Contains(s, "chunks/s") || c.table.Height() != h {
		t.Fatalf("unfolded: table %d rows\n%s", c.table.Height(), s)
	}
	for _, w := range []int{40, 80, 99, 100, 160, 250} {
		c.update(tea.WindowSizeMsg{Width: w, Height: 30})
		for _, l := range strings.Split(screenOf(c), "\n") {
			if n := len([]rune(l)); n > w {
				t.Fatalf("at %d columns a line of %d: %q", w, n, l)
			}
		}
	}
}

// design §13: the pulse costs no read of its own: with it, the console
// judges the rows it draws and no more, at most four at once, and a
// judged row is not asked for again (the judge's bounds, §7).
func TestConsolePulseCostsNoJudgement(t *testing.T) {
	t.Parallel()
	j := &timedJudge{}
	c, _ := pulseConsole(t, 160, 45, j)
	drawn := c.table.Height()
	if n := len(j.asked); n == 0 || n > 2*drawn {
		t.Fatalf("%d judgements for %d rows drawn", n, drawn)
	}
	asked := len(j.asked)
	for range 5 {
		c.update(c.listCmd()())
		judgeAll(t, c)
	}
	if len(j.asked) != asked {
		t.Fatalf("judged again: %d, then %d", asked, len(j.asked))
	}
}

// design §7, §13: the filters select by verdict. 4 keeps the rows judged
// failed (a completed Chat turn among them), not a completed row judged
// otherwise; 5 every row not judged verified.
func TestConsoleFiltersByVerdict(t *testing.T) {
	t.Parallel()
	c, _ := pulseConsole(t, 160, 45, &timedJudge{fakeJudge{words: failedWords()}})
	press(c, "4")
	s := screenOf(c)
	for id, in := range map[string]bool{"act_done_001": true, "act_done_004": true, "act_done_005": false, "act_done_000": false, "act_live_900": false} {
		if strings.Contains(s, id) != in {
			t.Errorf("filter failed: %s shown %v\n%s", id, !in, s)
		}
	}
	press(c, "5")
	s = screenOf(c)
	for id, in := range map[string]bool{"act_done_001": true, "act_done_005": true, "act_done_010": true, "act_done_000": false} {
		if strings.Contains(s, id) != in {
			t.Errorf("filter unverified: %s shown %v\n%s", id, !in, s)
		}
	}
}

// design §13: --notify-on failed: three actions that settle failed within
// the window are one notification, "3 actions failed", its bytes the bell
// and one OSC 9; one judged verified is none; the rows already settled
// when the console opened are not told.
func TestConsoleNotifyOnFoldsABurst(t *testing.T) {
	t.Parallel()
	list := fleetList()
	for i := range 4 {
		list = append(list, model.ActionStatus{ActionID: fmt.Sprintf("act_soon_%03d", i), CapabilityID: "cap:hermes_agent:prod:chat_stream",
			State: "running", QueuedState: "running", UpdatedAt: t0.Format(time.RFC3339Nano)})
	}
	words := failedWords()
	for i := range 3 {
		words[fmt.Sprintf("act_soon_%03d", i)] = model.VerdictFailed
	}
	clock := &testClock{t: t0}
	d := &fakeDaemon{list: list}
	var sent []string
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Judge: &timedJudge{fakeJudge{words: words}}, Clock: clock.now, NoColor: true, NotifyOn: []string{"failed", "incomplete"},
		NotifyOnBytes: func(text string) string { return "\a\x1b]9;" + text + "\x1b\\" }})
	t.Cleanup(c.Close)
	// The console asks to come back when the window ends; the test's clock
	// says when that is, so the ask is answered at once, not slept.
	var waits []time.Duration
	c.after = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		waits = append(waits, d)
		return func() tea.Msg { return fn(clock.t.Add(d)) }
	}
	c.update(tea.WindowSizeMsg{Width: 160, Height: 45})
	c.update(c.listCmd()())
	run := func(cmd tea.Cmd) {
		queue := flatten(cmd)
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if _, ok := m.(notifyDueMsg); ok {
				continue // the test says when the window ends
			}
			if r, ok := m.(tea.RawMsg); ok {
				sent = append(sent, fmt.Sprint(r.Msg))
				continue
			}
			more := c.Update(m)
			queue = append(queue, flatten(more)...)
		}
	}
	run(tea.Batch(c.judgeVisible(), c.judgeSettling()))
	if len(c.watch.settling) != 0 || len(sent) != 0 {
		t.Fatalf("rows settled before the console opened: %v, sent %q", c.watch.settling, sent)
	}
	// An older page scrolled to is history: none of it is told.
	c.update(olderMsg{page: stream.ListPage{Rows: []model.ActionStatus{{ActionID: "act_old_001", State: "failed", ResultStatus: "failed",
		UpdatedAt: t0.Add(-time.Hour).Format(time.RFC3339Nano)}}}})
	c.update(c.listCmd()())
	if len(c.watch.settling) != 0 {
		t.Fatalf("an older page's rows are taken for news: %v", c.watch.settling)
	}
	// The four settle; the list shows them at the next poll.
	clock.t = t0.Add(3 * time.Second)
	for i := range d.list {
		if strings.HasPrefix(d.list[i].ActionID, "act_soon_") {
			d.list[i].State, d.list[i].ResultStatus, d.list[i].UpdatedAt = "completed", "completed", clock.t.Format(time.RFC3339Nano)
		}
	}
	c.update(c.listCmd()())
	run(tea.Batch(c.judgeVisible(), c.judgeSettling()))
	if len(sent) != 0 {
		t.Fatalf("told before the window ended: %q", sent)
	}
	// One wait for the burst, the window design §13 gives: 3 s.
	if len(waits) != 1 || waits[0] != 3*time.Second {
		t.Fatalf("the console waits %v, want once 3s", waits)
	}
	clock.t = clock.t.Add(5 * time.Second)
	cmd := c.Update(notifyDueMsg{})
	run(cmd)
	if len(sent) != 1 || sent[0] != "\a\x1b]9;3 actions failed\x1b\\" {
		t.Fatalf("sent %q, want one notification of the three", sent)
	}
	if !strings.Contains(screenOf(c), "notified: 3 actions failed") {
		t.Fatalf("the console does not say so:\n%s", screenOf(c))
	}
	cmd = c.Update(notifyDueMsg{})
	run(cmd)
	if len(sent) != 1 {
		t.Fatalf("told twice: %q", sent)
	}
}

// Under tmux with allow-passthrough off, the first notification's note is
// how to let it through, once.
func TestConsoleNotifyHintOnce(t *testing.T) {
	t.Parallel()
	c := New(context.Background(), Options{Daemon: &fakeDaemon{}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Clock: (&testClock{t: t0}).now, NotifyOn: []string{"failed"}, NotifyHint: "tmux drops it: allow it",
		NotifyOnBytes: func(text string) string { return text }})
	t.Cleanup(c.Close)
	for i, want := range []string{"tmux drops it: allow it", "notified: act_x: failed (AIP result failed)"} {
		c.notifyOn.Settled(fmt.Sprint(i), "failed", "act_x: failed (AIP result failed)", t0.Add(-time.Minute))
		c.onNotifyDue()
		if c.note != want {
			t.Fatalf("notification %d: note %q, want %q", i, c.note, want)
		}
	}
}

package console

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/stream"
)

// fakeJudge answers from a table (verified when the ID is not in it) and
// counts what it was asked.
type fakeJudge struct {
	mu    sync.Mutex
	words map[string]string
	asked []string
}

func (j *fakeJudge) Judge(_ context.Context, id string) stream.Judgement {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.asked = append(j.asked, id)
	w, ok := j.words[id]
	if !ok {
		w = model.VerdictVerified
	}
	if w == "live" {
		return stream.Judgement{ID: id, Live: true}
	}
	return stream.Judgement{ID: id, Word: w}
}

func (j *fakeJudge) Review(ctx context.Context, id string) (*model.Action, stream.Judgement) {
	return model.NewAction(id), j.Judge(ctx, id)
}

// judgeAll runs the console's judgements as the runtime would, until none
// is asked for: each batch of judge commands, its messages back through
// Update.
func judgeAll(t *testing.T, c *Console) {
	t.Helper()
	queue := flatten(c.judgeVisible())
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Fatal("judgements never end")
		}
		m := queue[0]
		queue = queue[1:]
		cmd := c.Update(m) // a judgement back: the next ones asked for
		queue = append(queue, flatten(cmd)...)
	}
}

// flatten runs cmd and the commands of a batch it gives.
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, sub := range b {
			out = append(out, flatten(sub)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func verdictConsole(t *testing.T, w, h int, list []model.ActionStatus, j Judge) (*Console, *fakeDaemon) {
	t.Helper()
	d := &fakeDaemon{list: list}
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Judge: j, Notification: func(a *model.Action) string { return "\a\x1b]9;" + a.ID + "\x1b\\" },
		Clock: (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c.Close)
	// update, not Update: the judgements are asked for by the test
	// (judgeAll), not left unrun in a discarded command.
	c.update(tea.WindowSizeMsg{Width: w, Height: h})
	c.update(c.listCmd()())
	c.update(globalMsg{stream.GlobalLinkMsg{Denied: true}})
	return c, d
}

// The VERDICT column (design §7): a settled row shows its verdict once
// judged; the completed Chat turn whose provider failed reads FAILED, not
// completed. Golden at 120 columns.
func TestConsoleVerdictGolden(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{
		"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72": model.VerdictFailed,
		"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f73": model.VerdictFailed,
	}}
	c, _ := verdictConsole(t, 120, 12, consoleList(), j)
	before := screenOf(c)
	if !strings.Contains(lineOf(before, "e6f72"), "completed") {
		t.Fatalf("an unjudged settled row shows its AIP status:\n%s", before)
	}
	judgeAll(t, c)
	s := screenOf(c)
	if l := lineOf(s, "e6f72"); !strings.Contains(l, "FAILED") || strings.Count(l, "completed") != 1 {
		t.Fatalf("the failed-but-completed Chat turn: %q", l)
	}
	golden.RequireEqual(t, []byte(s))
}

func lineOf(screen, id string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, id) {
			return l
		}
	}
	return ""
}

// Only the rows the table draws are judged (never the whole list), at most
// four asked for at once, and a judged row is not asked for again.
func TestConsoleJudgesVisibleRowsFourAtOnce(t *testing.T) {
	t.Parallel()
	var list []model.ActionStatus
	for i := range 200 {
		list = append(list, model.ActionStatus{ActionID: fmt.Sprintf("act_%03d", i), State: "completed", ResultStatus: "completed",
			UpdatedAt: t0.Add(-time.Duration(i) * time.Second).Format(time.RFC3339Nano)})
	}
	j := &fakeJudge{}
	c, _ := verdictConsole(t, 120, 15, list, j)
	first := c.judgeVisible()
	const atOnce = 4 // design §7, written as the contract states it
	if n := len(flattenNoRun(first)); n != atOnce {
		t.Fatalf("%d judgements asked for at once, want %d", n, atOnce)
	}
	if c.judgeVisible() != nil {
		t.Fatal("a fifth judgement asked for while four are out")
	}
	for _, m := range flatten(first) {
		c.Update(m)
	}
	judgeAll(t, c)
	if n := len(j.asked); n == 0 || n > 2*c.table.Height() {
		t.Fatalf("%d rows judged of %d listed, table height %d", n, len(list), c.table.Height())
	}
	asked := len(j.asked)
	c.update(c.listCmd()()) // a poll: the same rows
	judgeAll(t, c)
	if len(j.asked) != asked {
		t.Fatalf("judged rows asked for again: %d more", len(j.asked)-asked)
	}
	if !strings.Contains(screenOf(c), "VERIFIED") {
		t.Fatalf("no verdict shown:\n%s", screenOf(c))
	}
}

// flattenNoRun is the commands of a batch without running them.
func flattenNoRun(cmd tea.Cmd) []tea.Cmd {
	if cmd == nil {
		return nil
	}
	if b, ok := cmd().(tea.BatchMsg); ok {
		return b
	}
	return []tea.Cmd{cmd}
}

// 5 keeps the settled rows not judged verified.
func TestConsoleUnverifiedFilter(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72": model.VerdictFailed}}
	list := consoleList()
	list = append(list, model.ActionStatus{ActionID: "act_good", State: "completed", ResultStatus: "completed", UpdatedAt: t0.Format(time.RFC3339Nano)})
	c, _ := verdictConsole(t, 120, 20, list, j)
	judgeAll(t, c)
	press(c, "5")
	s := screenOf(c)
	if !strings.Contains(s, "e6f72") || strings.Contains(s, "act_good") || strings.Contains(s, "e6f70") {
		t.Fatalf("filter unverified:\n%s", s)
	}
}

// n on a live row marks it; once the list shows it settled, the
// notification's bytes go to the terminal (tea.Raw) and the mark goes.
func TestConsoleNotifyMark(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70": model.VerdictFailed}}
	c, d := verdictConsole(t, 120, 12, consoleList(), j)
	press(c, "n") // the top row: running
	if l := lineOf(screenOf(c), "e6f70"); !strings.Contains(l, "notify") {
		t.Fatalf("no mark on the armed row: %q", l)
	}
	d.list[0].State, d.list[0].ResultStatus = "completed", "completed"
	c.update(c.listCmd()())
	var raw string
	for _, m := range flatten(c.notifySettled()) {
		if n, ok := m.(notifiedMsg); ok {
			out := c.Update(n)
			if r, ok := out().(tea.RawMsg); ok {
				raw = fmt.Sprint(r.Msg)
			}
		}
	}
	if !strings.HasPrefix(raw, "\a\x1b]9;act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70") {
		t.Fatalf("notification bytes %q", raw)
	}
	if l := lineOf(screenOf(c), "e6f70"); strings.Contains(l, "notify") || !strings.Contains(l, "FAILED") {
		t.Fatalf("after the notification: %q", l)
	}
	if len(c.verdict.notify) != 0 {
		t.Fatal("the notification is still pending")
	}
}

// Against the simulator's console demo with the real judge: the Chat turn
// whose AIP result is completed but whose provider failed reads FAILED.
func TestConsoleVerdictAgainstSim(t *testing.T) {
	t.Parallel()
	client := simDaemon(t)
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t),
		LiveKeys: realKeys(t), NoColor: true, Judge: stream.NewJudge(client.Config(), stream.JudgeOptions{})})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 160, Height: 30})
	c.update(c.listCmd()())
	judgeAll(t, c)
	s := screenOf(c)
	for id, w := range map[string]string{"act_sim_console_done_chat_error": "FAILED", "act_sim_console_done_responses": "VERIFIED",
		"act_sim_console_cancelled": "CANCELLED"} {
		if l := lineOf(s, id); !strings.Contains(l, w) {
			t.Errorf("%s: %q, want %s", id, l, w)
		}
	}
}

// A row the list shows settled but whose review finds it live is asked for
// again after the next poll, not at every message in between.
func TestConsoleLiveJudgementWaitsForThePoll(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{words: map[string]string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72": "live"}}
	c, _ := verdictConsole(t, 120, 12, consoleList(), j)
	judgeAll(t, c)
	count := func() (n int) {
		for _, id := range j.asked {
			if id == "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72" {
				n++
			}
		}
		return n
	}
	if count() != 1 {
		t.Fatalf("asked %d times", count())
	}
	c.Update(globalMsg{stream.GlobalLinkMsg{Live: true}}) // any message
	judgeAll(t, c)
	if count() != 1 {
		t.Fatalf("asked again before the next poll: %d", count())
	}
	c.update(c.listCmd()())
	judgeAll(t, c)
	if count() != 2 {
		t.Fatalf("not asked again after the poll: %d", count())
	}
	if l := lineOf(screenOf(c), "e6f72"); !strings.Contains(l, "completed") {
		t.Fatalf("a live judgement shows the AIP status still: %q", l)
	}
}

// An unreadable judgement (the daemon failed the read) is not a verdict
// for good: the row is judged again after a poll once a minute has passed,
// never sooner, so a daemon that answers again shows the verdict, and one
// that never does costs a read a minute, not one a poll.
func TestConsoleJudgesAnUnreadableRowAgainAfterAMinute(t *testing.T) {
	t.Parallel()
	const id = "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72"
	j := &fakeJudge{words: map[string]string{id: stream.VerdictUnknown}}
	clock := &testClock{t: t0}
	c := New(context.Background(), Options{Daemon: &fakeDaemon{list: consoleList()}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Judge: j, Clock: clock.now, NoColor: true})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 120, Height: 12})
	c.update(c.listCmd()())
	c.update(globalMsg{stream.GlobalLinkMsg{Denied: true}})
	judgeAll(t, c)
	count := func() (n int) {
		j.mu.Lock()
		defer j.mu.Unlock()
		for _, a := range j.asked {
			if a == id {
				n++
			}
		}
		return n
	}
	if count() != 1 {
		t.Fatalf("asked %d times", count())
	}
	if l := lineOf(screenOf(c), "e6f72"); !strings.Contains(l, "UNKNOWN") {
		t.Fatalf("an unreadable row reads %q", l)
	}
	clock.t = t0.Add(59 * time.Second) // polls within the minute: not asked again
	c.update(c.listCmd()())
	judgeAll(t, c)
	if count() != 1 {
		t.Fatalf("asked again within a minute: %d", count())
	}
	j.mu.Lock()
	delete(j.words, id) // the daemon answers again
	j.mu.Unlock()
	clock.t = t0.Add(61 * time.Second)
	c.update(c.listCmd()())
	judgeAll(t, c)
	if count() != 2 {
		t.Fatalf("not asked again after a minute and a poll: %d", count())
	}
	if l := lineOf(screenOf(c), "e6f72"); !strings.Contains(l, "VERIFIED") {
		t.Fatalf("the row judged again reads %q", l)
	}
}

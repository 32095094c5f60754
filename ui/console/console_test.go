package console

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// fakeDaemon answers the list with a fixed set of actions and never
// follows the global log (it says the token may not).
type fakeDaemon struct{ list []model.ActionStatus }

func (d *fakeDaemon) Poll(context.Context) (stream.Window, error) {
	return stream.Window{Recent: stream.Tail{Rows: d.list, End: len(d.list)}}, nil
}

func (d *fakeDaemon) ListAt(context.Context, stream.ListQuery, int, int) (stream.ListPage, error) {
	return stream.ListPage{}, nil
}

func (d *fakeDaemon) FollowGlobal(ctx context.Context, _ stream.GlobalOptions, sink stream.Sink) error {
	sink.Send(stream.GlobalLinkMsg{Denied: true, Cause: "auth.not_authorized"})
	return &stream.Error{Op: "events", Code: "auth.not_authorized", HTTPStatus: 401}
}

func consoleList() []model.ActionStatus {
	at := func(s int) string { return t0.Add(-time.Duration(s) * time.Second).Format(time.RFC3339Nano) }
	return []model.ActionStatus{
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "running",
			QueuedState: "running", UpdatedAt: at(2), StartedAt: at(40), Lease: &model.Lease{WorkerID: "worker-a", ExpiresAt: at(-20)}, Retry: &model.Retry{Attempts: 1}},
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f71", CapabilityID: "cap:hermes_agent:prod:responses_stream", State: "running",
			QueuedState: "running", UpdatedAt: at(90), StartedAt: at(400), Lease: &model.Lease{WorkerID: "worker-b", ExpiresAt: at(60)}, Retry: &model.Retry{Attempts: 1}},
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72", CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "completed",
			QueuedState: "completed", ResultStatus: "completed", UpdatedAt: at(600), StartedAt: at(700)},
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f73", CapabilityID: "cap:hermes_agent:lab:responses_stream", State: "dead_lettered",
			QueuedState: "dead_lettered", ResultStatus: "failed", UpdatedAt: at(7200), StartedAt: at(7300)},
	}
}

func newConsoleHarness(t *testing.T, w, h int) (*Console, *holdBackend) {
	t.Helper()
	clk := &testClock{t: t0}
	b := newHold()
	c := New(context.Background(), Options{
		Daemon:   &fakeDaemon{list: consoleList()},
		Keys:     realConsoleKeys(t),
		LiveKeys: realKeys(t),
		Follow:   func(string) stream.Runner { return b },
		Journal: func() []string {
			return []string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72", "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f"}
		},
		Clock: clk.now, NoColor: true,
	})
	t.Cleanup(c.Close)
	c.Update(tea.WindowSizeMsg{Width: w, Height: h})
	c.Update(c.listCmd()())
	c.Update(globalMsg{stream.GlobalLinkMsg{Denied: true}})
	return c, b
}

func screenOf(c *Console) string { return ansi.Strip(c.Frame(0, 0).Content) }

func press(c *Console, keys ...string) {
	for _, k := range keys {
		msg := tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "space":
			msg = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
		}
		c.Update(msg)
	}
}

func TestConsoleGoldens(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			c, _ := newConsoleHarness(t, size[0], size[1])
			golden.RequireEqual(t, []byte(screenOf(c)))
		})
	}
}

func TestConsoleListContent(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 160, 30)
	s := screenOf(c)
	for _, want := range []string{
		"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", // newest first
		"EXPIRED",                              // the second one's lease expired: a stuck worker
		"prod:responses_stream", "dead_lettered", "failed",
		"synchronous actions appear only once settled", // no global log for this token
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the console does not show %q:\n%s", want, s)
		}
	}
	lines := strings.Split(s, "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, " ACTION ") })
	if head < 0 || !strings.Contains(lines[head+1], "6f70") || !strings.Contains(lines[head+4], "6f73") {
		t.Fatalf("not sorted by update time:\n%s", s)
	}
	// The journal entry that the daemon does not list stays, marked.
	if !strings.Contains(s, "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f") || !strings.Contains(s, "j!") {
		t.Fatalf("journal entry:\n%s", s)
	}
	// State filters and the text filter.
	press(c, "3")
	if s := screenOf(c); strings.Contains(s, "6f70") || !strings.Contains(s, "6f72") {
		t.Fatalf("settled filter:\n%s", s)
	}
	press(c, "1", "/", "l", "a", "b", "enter")
	if s := screenOf(c); strings.Contains(s, "6f70") || !strings.Contains(s, "6f73") {
		t.Fatalf("text filter:\n%s", s)
	}
}

func TestConsoleEnterEscKeepsSelection(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 120, 40)
	press(c, "down", "down")
	sel := c.selectedID()
	if sel != "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72" {
		t.Fatalf("selected %s", sel)
	}
	press(c, "enter")
	if c.split == nil || !strings.Contains(screenOf(c), "aipwatch · "+sel) {
		t.Fatalf("the live view did not open:\n%s", screenOf(c))
	}
	press(c, "esc")
	if c.split != nil || c.selectedID() != sel {
		t.Fatalf("back: live %v, selected %s", c.split != nil, c.selectedID())
	}
	if b.cancels.Load() != 0 {
		t.Fatal("going back cancelled the action")
	}
	// Enter again, then the live view's own quit (q) comes back to the
	// list.
	press(c, "enter", "q")
	if c.split != nil || c.selectedID() != sel {
		t.Fatal("the live view's quit did not come back to the list")
	}
	if b.cancels.Load() != 0 {
		t.Fatal("q cancelled the action")
	}
}

func TestConsoleCancelUsesTheLiveConfirmation(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 120, 40)
	press(c, "c")
	if c.split == nil || c.split.Mode() != ui.ModeConfirm {
		t.Fatalf("c did not open the live view's confirmation:\n%s", screenOf(c))
	}
	press(c, "esc")
	if b.cancels.Load() != 0 {
		t.Fatal("esc in the confirmation sent a cancel")
	}
}

// A list read that aipd refuses (401/403) stops the console with that
// error, which RunConsole returns (main prints it with a hint, exit 1): no
// later poll changes it. Another failure is shown, once ("list: …"), and
// the next poll tries again.
func TestConsoleListDenied(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 100, 20)
	cmd := c.Update(listMsg{err: &stream.Error{Op: "list", Code: "storage.unavailable", HTTPStatus: 503, Message: "busy"}})
	if c.fatal != nil || cmd == nil { // cmd: the next poll's tick
		t.Fatalf("a 503 stopped the console (fatal %v)", c.fatal)
	}
	if s := screenOf(c); !strings.Contains(s, "list: storage.unavailable") || strings.Contains(s, "list: list:") {
		t.Fatalf("the 503 is not shown once:\n%s", s)
	}
	denied := &stream.Error{Op: "list", Code: "auth.native_http_unauthorized", HTTPStatus: 401, Message: "invalid bearer token"}
	c.Update(listMsg{err: denied})
	if c.fatal != denied || !c.Done() {
		t.Fatalf("a 401 did not stop the console: fatal %v", c.fatal)
	}
}

// Until the operator moves the selection it is the top row, the newest,
// whatever arrives above; once moved, it stays on the chosen action as
// rows come and go.
func TestConsoleSelectionTopUntilChosen(t *testing.T) {
	t.Parallel()
	c, _ := newConsoleHarness(t, 160, 30)
	d := c.opts.Daemon.(*fakeDaemon)
	newer := model.ActionStatus{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7a", CapabilityID: "cap:hermes_agent:prod:chat_stream",
		State: "running", UpdatedAt: t0.Format(time.RFC3339Nano), StartedAt: t0.Format(time.RFC3339Nano)}
	d.list = append([]model.ActionStatus{newer}, d.list...)
	c.Update(c.listCmd()())
	if got := c.selectedID(); got != newer.ActionID {
		t.Fatalf("before any move the selection is %s, not the new top row", got)
	}
	press(c, "down")
	chosen := c.selectedID()
	newest := newer
	newest.ActionID = "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7b"
	d.list = append([]model.ActionStatus{newest}, d.list...)
	c.Update(c.listCmd()())
	if got := c.selectedID(); got != chosen {
		t.Fatalf("the chosen row %s lost the selection to %s", chosen, got)
	}
}

// c on a row the list shows settled says so, with no prompt for a cancel
// that could only come too late.
func TestConsoleCancelOnSettledRow(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 160, 30)
	press(c, "down", "down") // 6f72: completed
	press(c, "c")
	if c.split != nil || !strings.Contains(screenOf(c), "has settled (AIP state completed, verdict not judged yet)") {
		t.Fatalf("c on a settled row:\n%s", screenOf(c))
	}
	press(c, "up")
	if strings.Contains(screenOf(c), "nothing to cancel") {
		t.Fatal("the answer outlived the next key")
	}
	if b.cancels.Load() != 0 {
		t.Fatal("a cancel was sent")
	}
}

// A closed live view's late message (here the reply to a cancel, which
// comes back after esc) never reaches the live view opened next, even on
// the same action: it names the closed view, which no view is any more.
// The next view's own message of the same kind does reach it.
func TestConsoleLateMessageOfAClosedViewIsDropped(t *testing.T) {
	t.Parallel()
	c, b := newConsoleHarness(t, 120, 40)
	// The cancel of the top row (…6f70), confirmed; its reply is held.
	confirm := func() tea.Cmd {
		press(c, "c", "6", "f", "7", "0")
		cmd := c.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		return cmd
	}
	late := confirm()
	if c.split == nil || late == nil {
		t.Fatal("no cancel was sent")
	}
	press(c, "esc", "enter")
	if c.split == nil || c.split.Mode() != ui.ModeNormal {
		t.Fatal("the second live view did not open")
	}
	for _, m := range flatten(late) {
		c.Update(m)
	}
	if b.cancels.Load() != 1 || strings.Contains(screenOf(c), "cancel accepted") {
		t.Fatalf("the closed view's reply reached the next one (%d cancels):\n%s", b.cancels.Load(), screenOf(c))
	}
	for _, m := range flatten(confirm()) {
		c.Update(m)
	}
	if !strings.Contains(screenOf(c), "cancel accepted") {
		t.Fatalf("the open view's own reply was dropped:\n%s", screenOf(c))
	}
}

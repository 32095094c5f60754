package split

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/internal/frames"
	"aipwatch/internal/keysrc"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// liveKeys is the live view's key map of ../../keymap.go (the operator's
// real keys, read through internal/keysrc as ui's tests do).
func liveKeys(t testing.TB) ui.KeyMap {
	t.Helper()
	var k ui.KeyMap
	if err := keysrc.Load("../../keymap.go", map[string]any{"keyMap": &k}); err != nil {
		t.Fatal(err)
	}
	return k
}

// simPane is a pane on a simulated action of its own.
func simPane(t *testing.T, scenario string, k sim.Knobs) (ui.Options, *sim.Server) {
	t.Helper()
	srv, err := sim.New(scenario, k)
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := stream.New(stream.Config{BaseURL: url, ActionID: srv.ActionID(),
		BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return ui.Options{ActionID: srv.ActionID(), Backend: c, Keys: liveKeys(t), NoColor: true}, srv
}

// startSplit runs the split view's program (the real event loop) on panes,
// its frames recorded.
func startSplit(t *testing.T, w, h int, panes ...ui.Options) (*teatest.TestModel, *frames.Recorder, *Split) {
	t.Helper()
	s := New(context.Background(), panes)
	rec, fr := frames.Record(ui.NewShell(s))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	t.Cleanup(s.Close)
	return tm, fr, s
}

// Two live actions at 200x50 side by side; ctrl+w moves the focus to the
// second, whose c asks to cancel it by name (the characters of its ID
// that tell it from the first's) and cancels it alone; z zooms it and
// back; at 100x40 the panes are stacked; q detaches from both, cancelling
// nothing more.
// chunksSeen is a pane's status line once a chunk of its action came.
var chunksSeen = regexp.MustCompile(`chunks [1-9]`)

func TestSplitCancelReachesOnlyTheFocusedPane(t *testing.T) {
	t.Parallel()
	one, srv1 := simPane(t, "long", sim.Knobs{Speed: 4, PollInterval: 20 * time.Millisecond, ActionID: "act_sim_pane_one"})
	two, srv2 := simPane(t, "long", sim.Knobs{Speed: 4, PollInterval: 20 * time.Millisecond, ActionID: "act_sim_pane_two"})
	tm, fr, _ := startSplit(t, 200, 50, one, two)
	// Streaming: a chunk of each came (c offers no cancel for an action
	// aipd has no record of before anything of it is seen, design §2.9).
	rows := fr.Wait(t, "both panes side by side, streaming", func(s string) bool {
		return strings.Count(s, "FOLLOWING") == 2 && len(chunksSeen.FindAllString(s, -1)) == 2
	})
	// The focused pane (the first) in heavy lines, the other light: the
	// focus reads without colour too.
	if !strings.HasPrefix(rows[0], "┏ 1 act_sim_pane_one") || !strings.Contains(rows[0], "┓┌ 2 act_sim_pane_two") {
		t.Fatalf("the panes are not side by side:\n%s", strings.Join(rows, "\n"))
	}
	if last := rows[len(rows)-1]; !strings.Contains(last, "next pane") || !strings.Contains(last, "detach all") {
		t.Fatalf("the key line: %q", last)
	}
	tm.Send(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	tm.Send(tea.KeyPressMsg{Code: 'c', Text: "c"})
	rows = fr.Wait(t, "the second pane's confirmation", func(s string) bool {
		return strings.Contains(s, "Cancel action act_sim_pane_two") && strings.Contains(s, "_two")
	})
	if last := rows[len(rows)-1]; !strings.Contains(last, "enter") || strings.Contains(last, "next pane") {
		t.Fatalf("while the confirmation is typed the key line is the pane's: %q", last)
	}
	// While it is typed the focus stays: ctrl+w is the confirmation's
	// (nothing), and what follows is typed into it.
	tm.Send(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	tm.Type("_two")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	fr.Wait(t, "the second pane cancelled", func(s string) bool { return strings.Contains(s, "CANCELLED") })
	if n1, n2 := srv1.CancelCount(), srv2.CancelCount(); n1 != 0 || n2 != 1 {
		t.Fatalf("cancels: %d to the first action, %d to the second; want 0 and 1", n1, n2)
	}
	tm.Send(tea.KeyPressMsg{Code: 'z', Text: "z"})
	rows = fr.Wait(t, "the zoomed pane", func(s string) bool { return strings.Contains(s, "zoomed (z: all panes)") })
	if strings.Contains(strings.Join(rows, "\n"), "act_sim_pane_one") {
		t.Fatal("the zoomed screen still shows the other pane")
	}
	tm.Send(tea.KeyPressMsg{Code: 'z', Text: "z"})
	tm.Send(tea.WindowSizeMsg{Width: 100, Height: 40})
	rows = fr.Wait(t, "the panes stacked at 100x40", func(s string) bool {
		r := strings.Split(s, "\n")
		return len(r) == 40 && strings.HasPrefix(r[0], "┌ 1 ") && strings.HasPrefix(r[19], "┏ 2 ") // the focus on the second
	})
	for i, r := range rows {
		if w := ansi.StringWidth(r); w > 100 {
			t.Fatalf("row %d is %d cells wide at 100 columns: %q", i, w, r)
		}
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
	if n1 := srv1.CancelCount(); n1 != 0 {
		t.Fatalf("q sent %d cancels to the first action", n1)
	}
}

// Four panes at 100x30 cannot keep 10 rows each: those without the focus
// are one row, their status line, which still shows their verdict.
func TestSplitShrunkPanesShowTheirVerdict(t *testing.T) {
	t.Parallel()
	var panes []ui.Options
	for _, id := range []string{"act_sim_done_a", "act_sim_done_b", "act_sim_done_c", "act_sim_done_d"} {
		o, _ := simPane(t, "chat-tools", sim.Knobs{Finished: true, ActionID: id})
		panes = append(panes, o)
	}
	tm, fr, _ := startSplit(t, 100, 30, panes...)
	rows := fr.Wait(t, "three shrunk panes with their verdict", func(s string) bool {
		r := strings.Split(s, "\n")
		return len(r) == 30 && strings.HasPrefix(r[0], "┏ 1 ") && strings.Contains(r[26], "VERIFIED") &&
			strings.Contains(r[27], "VERIFIED") && strings.Contains(r[28], "VERIFIED")
	})
	if !strings.HasPrefix(rows[26], "─ 2 act_sim_done_b") || !strings.HasPrefix(rows[28], "─ 4 act_sim_done_d") {
		t.Fatalf("the shrunk rows do not name their actions:\n%s", strings.Join(rows, "\n"))
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
}

// Four panes, each on a firehose of its own (3,000 deltas as fast as the
// simulator writes them), through the real program under -race: the
// panes' batches reach them gathered (ui.Gather, one message a tick with
// each pane's part), and each pane ends with every delta of its own
// action, in order, none lost and none of another pane's, and its verdict.
func TestSplitGatheredPanesKeepEveryDelta(t *testing.T) {
	t.Parallel()
	const n = 3000
	ids := []string{"act_sim_fire_a", "act_sim_fire_b", "act_sim_fire_c", "act_sim_fire_d"}
	var panes []ui.Options
	for _, id := range ids {
		o, _ := simPane(t, "firehose", sim.Knobs{FirehoseN: n, ActionID: id})
		panes = append(panes, o)
	}
	tm, fr, s := startSplit(t, 240, 60, panes...)
	fr.Wait(t, "four verified panes", func(s string) bool { return strings.Count(s, "VERIFIED") == 4 })
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "token %06d ", i)
	}
	for i, p := range s.Panes() {
		a := p.Action()
		if a.ID != ids[i] {
			t.Fatalf("pane %d follows %s, want %s", i+1, a.ID, ids[i])
		}
		if got := a.Text(); got != want.String() {
			t.Errorf("pane %d (%s): %d bytes of text, want %d: deltas lost, repeated or out of order", i+1, a.ID, len(got), want.Len())
		}
		if c := a.ChunkCount(); c != n+3 {
			t.Errorf("pane %d (%s): %d chunks, want %d (the role, %d deltas, the finish, [DONE])", i+1, a.ID, c, n+3, n)
		}
	}
}

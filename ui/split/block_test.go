package split

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// paneBench is a split view of n live Chat streams at w x h, on a clock
// the test moves, each pane's action streaming with a first delta.
type paneBench struct {
	t     *testing.T
	s     *Split
	now   time.Time
	feeds []*feed
	w, h  int
}

func newPaneBench(t *testing.T, n, w, h int) *paneBench {
	t.Helper()
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("act_cache_pane_%d", i))
	}
	return newPaneBenchOf(t, ids, w, h)
}

// newPaneBenchOf is newPaneBench of the actions ids.
func newPaneBenchOf(t *testing.T, ids []string, w, h int) *paneBench {
	t.Helper()
	pb := &paneBench{t: t, now: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), w: w, h: h}
	clock := func() time.Time { return pb.now }
	var opts []ui.Options
	for _, id := range ids {
		opts = append(opts, ui.Options{ActionID: id, Keys: liveKeys(t), NoColor: true, Clock: clock})
	}
	pb.s = New(context.Background(), opts)
	t.Cleanup(pb.s.Close)
	pb.s.SetSize(w, h)
	for i, p := range pb.s.Panes() {
		f := &feed{tb: t, id: opts[i].ActionID}
		pb.feeds = append(pb.feeds, f)
		f.start(p, pb.now, "first words ")
	}
	return pb
}

// say sends pane i a batch of one delta.
func (pb *paneBench) say(i int, text string) {
	pb.s.Panes()[i].Update(stream.BatchMsg{Chunks: []model.StreamChunk{pb.feeds[i].delta(text)}, At: pb.now})
}

// frame draws the split view and says how many panes it drew again; the
// frame must be the one a split view that kept nothing would draw.
func (pb *paneBench) frame() (string, int) {
	pb.t.Helper()
	got, drawn := pb.frameLagging()
	kept := pb.s.blocks
	pb.s.blocks = make([]block, len(kept))
	want := pb.s.View(pb.w, pb.h) // every pane drawn anew
	pb.s.blocks = kept
	if got != want {
		pb.t.Fatalf("the frame drawn from the kept blocks is not the frame drawn anew:\n%s\n--- anew:\n%s", got, want)
	}
	return got, drawn
}

// frameLagging is frame without the comparison: within a step of the
// clock (ui.FrameKey) the time a kept block shows may lag it.
func (pb *paneBench) frameLagging() (string, int) {
	before := pb.s.drawn
	got := pb.s.View(pb.w, pb.h)
	return got, pb.s.drawn - before
}

// Each pane's block is kept by what it shows (block.go): a frame draws
// again the panes whose view, cell, focus or zoom changed, and no other;
// what it draws is always the frame a split view that kept nothing draws.
func TestSplitDrawsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 4, 240, 60)
	s := pb.s
	prev, n := pb.frame()
	if n != 4 {
		t.Fatalf("the first frame drew %d panes, want 4", n)
	}
	steps := []struct {
		name   string
		change func()
		drawn  int
		shows  string // in the frame after the change ("" = the frame changes)
		lags   bool   // within a step of the clock: not compared with a frame drawn anew
	}{
		{"nothing changed", func() {}, 0, "", false},
		{"a batch to the third pane", func() { pb.say(2, "alpha bravo ") }, 1, "alpha bravo", false},
		{"a batch to the first pane", func() { pb.say(0, "charlie ") }, 1, "charlie", false},
		{"less than a step of the clock (a second)", func() { pb.now = pb.now.Add(20 * time.Millisecond) }, 0, "elapsed 0ms", true},
		{"the next step of the clock: every elapsed time", func() { pb.now = pb.now.Add(time.Second) }, 4, "elapsed 1.0s", false},
		{"the focus moves: the old and the new focused pane's borders", func() {
			s.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
		}, 2, "", false},
		{"a notice in the focused pane", func() { s.Update(tea.KeyPressMsg{Code: 'w', Text: "w"}) }, 1, "wrap off", false},
		{"the focused pane zoomed: it alone, larger", func() { s.Update(tea.KeyPressMsg{Code: 'z', Text: "z"}) }, 1, "zoomed (z: all panes)", false},
		{"a batch to a hidden pane: not drawn", func() { pb.say(3, "delta echo ") }, 0, "zoomed", false},
		{"back from the zoom: the focused pane and the one that changed", func() {
			s.Update(tea.KeyPressMsg{Code: 'z', Text: "z"})
		}, 2, "delta echo", false},
		{"a host's call: the focused pane asks to confirm a cancel", func() { s.Focused().AskCancel() }, 1, "Cancel action act_cache_pane_1", false},
		{"a resize: every pane", func() { pb.w, pb.h = 200, 50 }, 4, "", false},
	}
	for _, st := range steps {
		st.change()
		frame := pb.frame
		if st.lags {
			frame = pb.frameLagging
		}
		got, n := frame()
		if n != st.drawn {
			t.Errorf("%s: %d panes drawn again, want %d", st.name, n, st.drawn)
		}
		switch {
		case st.shows != "" && !strings.Contains(ansi.Strip(got), st.shows):
			t.Errorf("%s: the frame does not show %q:\n%s", st.name, st.shows, got)
		case st.shows == "" && st.drawn > 0 && got == prev:
			t.Errorf("%s: the frame did not change", st.name)
		}
		prev = got
	}
	if !strings.HasPrefix(strings.Split(prev, "\n")[0], "\x1b[2m┌ 1 act_cache_pane_0") {
		t.Errorf("the first pane's border is not dim once the focus left it: %q", strings.Split(prev, "\n")[0])
	}
}

// Shrunk panes (four at 100x30) are one row each, their status line: a
// change of one redraws that row alone.
func TestSplitShrunkPaneDrawsWhatChanged(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 4, 100, 30)
	if _, n := pb.frame(); n != 4 {
		t.Fatalf("the first frame drew %d panes, want 4", n)
	}
	pb.s.Panes()[2].Close() // the viewer stops following it: its status line says so
	got, n := pb.frame()
	if n != 1 {
		t.Fatalf("a change to a shrunk pane drew %d panes again, want 1", n)
	}
	if r := ansi.Strip(strings.Split(got, "\n")[27]); !strings.HasPrefix(r, "─ 3 act_cache_pane_2") || !strings.Contains(r, "viewer stopped") {
		t.Fatalf("the third pane's row: %q", r)
	}
}

// A pane whose transcript scrolls moves its rows up: a box keeps the row
// it drew for each line and finds it a few rows lower (moved), never
// another line's. Frame after frame, with lines that all differ, by one
// row, by several, by more than it looks (maxMoved), and back (scrolled
// up: the rows move down), the kept boxes draw the frame drawn anew.
func TestSplitScrolledPaneKeepsItsRows(t *testing.T) {
	t.Parallel()
	pb := newPaneBench(t, 2, 160, 30)
	word := 0
	say := func(words int) {
		var b strings.Builder
		for range words {
			word++
			fmt.Fprintf(&b, "w%04d ", word)
		}
		pb.say(0, b.String())
	}
	pb.frame()
	for _, words := range []int{40, 13, 13, 26, 60, 13, 150, 13, 1, 0, 200} {
		say(words)
		pb.frame()
	}
	for _, k := range []string{"k", "k", "k", "G", "u", "d"} {
		pb.s.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
		pb.frame()
		say(13)
		pb.frame()
	}
}

// A box compares a row by both its parts (ui.Row): the lead (the
// transcript's gutter) and the text. Moving the focus to the previous item
// moves the gutter's mark off rows whose text stays: the box draws them
// again, as a split view that kept nothing draws them.
func TestSplitBoxRedrawsARowWhoseLeadChanged(t *testing.T) {
	t.Parallel()
	pb := &paneBench{t: t, now: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), w: 160, h: 30}
	clock := func() time.Time { return pb.now }
	var opts []ui.Options
	for i := range 2 {
		opts = append(opts, ui.Options{ActionID: fmt.Sprintf("act_lead_pane_%d", i), Keys: liveKeys(t), NoColor: true, Clock: clock})
	}
	pb.s = New(context.Background(), opts)
	t.Cleanup(pb.s.Close)
	pb.s.SetSize(pb.w, pb.h)
	for i, p := range pb.s.Panes() {
		f := &feed{tb: t, id: opts[i].ActionID}
		p.Update(stream.StatusMsg{Status: model.ActionStatus{ActionID: f.id, CapabilityID: "hermes_agent.responses_stream", State: "streaming"}})
		p.Update(stream.ConnectedMsg{Attempt: 1})
		var chunks []model.StreamChunk
		for _, raw := range benchgen.ResponsesItems(f.id, 3)[:10] { // three items, the turn still open
			chunks = append(chunks, f.decode(raw))
		}
		p.Update(stream.BatchMsg{Chunks: chunks, At: pb.now})
	}
	marked := func(frame, text string) bool {
		for _, r := range strings.Split(ansi.Strip(frame), "\n") {
			if _, after, ok := strings.Cut(r, "┃"); ok && strings.Contains(r, text) {
				return strings.HasPrefix(after, "▌ "+text)
			}
		}
		t.Fatalf("no row of the first pane shows %q:\n%s", text, frame)
		return false
	}
	first, _ := pb.frame()
	if !marked(first, "item 2 text") || marked(first, "item 1 text") {
		t.Fatalf("the last item is not the one marked:\n%s", ansi.Strip(first))
	}
	pb.s.Update(tea.KeyPressMsg{Code: '[', Text: "["})
	got, n := pb.frame() // the same frame as one drawn anew
	if n != 1 {
		t.Fatalf("%d panes drawn again, want 1", n)
	}
	if marked(got, "item 2 text") || !marked(got, "item 1 text") {
		t.Fatalf("the mark did not move to the item before:\n%s", ansi.Strip(got))
	}
}

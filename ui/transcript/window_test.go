package transcript

import (
	"testing"
	"time"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
	"aipwatch/render"
)

// TestWindowFollowPauseResume: following keeps the bottom in view; a
// scroll up pauses at an anchor that text arriving below does not move,
// and counts the new lines; scrolling back to the end follows again; the
// focus follows the item changed last until it is moved.
func TestWindowFollowPauseResume(t *testing.T) {
	const act = "act_bench"
	raws := benchgen.ResponsesItems(act, 40)
	a := model.NewAction(act)
	feed := func(rs [][]byte) {
		for _, r := range rs {
			c, err := model.DecodeChunk(r)
			if err != nil {
				t.Fatal(err)
			}
			a.IngestChunk(c, time.Unix(0, 0))
		}
	}
	tr := New(render.NewStyles(false), nil)
	opts := Options{Width: 40}
	const body = 10
	feed(raws[:61]) // 20 items
	tr.Refresh(opts, a, true)
	tr.Relayout(body)
	if !tr.Following() || tr.Top() != tr.Len()-body {
		t.Fatalf("following %v top %d of %d", tr.Following(), tr.Top(), tr.Len())
	}
	if f := tr.FocusIndex(); f != tr.Active() || tr.Item(f) == nil {
		t.Fatalf("focus %d, want the active item %d", f, tr.Active())
	}

	tr.ScrollBy(-5, body)
	top := tr.Top()
	if tr.Following() || top != tr.Len()-body-5 {
		t.Fatalf("after scrolling up: following %v top %d of %d", tr.Following(), top, tr.Len())
	}
	before := tr.Len()
	feed(raws[61:91]) // 10 more items arrive below
	tr.Refresh(opts, a, true)
	tr.Relayout(body)
	if tr.Top() != top || tr.Following() {
		t.Fatalf("paused window moved from %d to %d (following %v)", top, tr.Top(), tr.Following())
	}
	if tr.NewLines() != tr.Len()-before || tr.NewLines() == 0 {
		t.Fatalf("new lines %d, want %d", tr.NewLines(), tr.Len()-before)
	}

	tr.MoveFocus(-1, body)
	f := tr.FocusIndex()
	feed(raws[91:94])
	tr.Refresh(opts, a, true)
	tr.Relayout(body)
	if tr.FocusIndex() != f {
		t.Fatalf("a moved focus followed the stream: %d, was %d", tr.FocusIndex(), f)
	}

	tr.ScrollBy(tr.Len(), body) // back to the end
	if !tr.Following() || tr.NewLines() != 0 || tr.Top() != tr.Len()-body {
		t.Fatalf("at the end: following %v new %d top %d of %d", tr.Following(), tr.NewLines(), tr.Top(), tr.Len())
	}
	if tr.FocusIndex() != tr.Active() {
		t.Fatalf("focus %d after resuming, want the active item %d", tr.FocusIndex(), tr.Active())
	}
	if got := len(tr.Visible(body)); got != body {
		t.Fatalf("%d visible lines, want %d", got, body)
	}

	// A narrower width re-wraps; the anchor keeps the block in view.
	tr.ScrollTo(3, body)
	k := tr.Key(tr.BlockAt(tr.Top()))
	tr.Reflow(Options{Width: 12}, a)
	tr.Relayout(body)
	if got := tr.Key(tr.BlockAt(tr.Top())); got != k {
		t.Fatalf("after a resize the window shows block %q, was %q", got, k)
	}
}

package ui

import (
	"context"
	"testing"
	"time"

	"aipwatch/stream"
)

// FrameKey changes with every change of the view, and follows the clock
// in the steps the screen shows it: tenths of a second while a tool runs
// (its spinner), seconds once none does, not at all once nothing on the
// screen moves with time. A host that keeps the view's frame by its key
// (the split view) shows what a frame drawn anew would.
func TestFrameKeyFollowsWhatTheScreenShows(t *testing.T) {
	t.Parallel()
	now := t0
	m := newLive(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Clock: func() time.Time { return now }})
	t.Cleanup(m.Close)
	m.SetSize(120, 40)
	f := newFx(t)
	feed := func(msgs ...stream.Msg) {
		for _, x := range msgs {
			k := m.FrameKey()
			m.Update(x)
			if m.FrameKey() == k {
				t.Fatalf("%T did not change the frame's key", x)
			}
		}
	}
	feed(chatToolsLive(f)...) // read_file still running
	// step moves the clock by d and says whether the key changed, and
	// whether the frame did.
	step := func(d time.Duration) (keyMoved, frameMoved bool) {
		k, frame := m.FrameKey(), m.View(120, 40)
		now = now.Add(d)
		return m.FrameKey() != k, m.View(120, 40) != frame
	}
	if key, frame := step(100 * time.Millisecond); !key || !frame {
		t.Fatalf("a tenth of a second with a tool running: key changed %v, frame changed %v; want both", key, frame)
	}
	feed(f.batch(f.toolCompleted("read_file", "call_read_file_2")))
	now = now.Truncate(time.Second)
	if key, _ := step(300 * time.Millisecond); key {
		t.Fatal("with no tool running, the key changed within a second")
	}
	if key, frame := step(700 * time.Millisecond); !key || !frame {
		t.Fatalf("the next second with no tool running: key changed %v, frame changed %v; want both", key, frame)
	}
	feed(f.batch(f.finish("stop", false), f.done()))
	feed(stream.TerminalMsg{Cursor: cursorA + "T"}, result(t, "completed", "chat", "", true, false), status("completed", true), stream.DoneMsg{})
	if !m.idle() {
		t.Fatal("the settled view is not idle")
	}
	if key, frame := step(time.Minute); key || frame {
		t.Fatalf("a minute once settled: key changed %v, frame changed %v; want neither", key, frame)
	}
}

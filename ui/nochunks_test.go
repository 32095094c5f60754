package ui

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// design §14: a running action that shows no chunk (an async or sync action
// on the fleet records none) gets a line that says why after a short wait,
// instead of an empty pane; not before the wait, and not once a chunk came.
func TestLiveViewSaysWhyNoChunkCame(t *testing.T) {
	t.Parallel()
	now := t0
	m := newLive(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Clock: func() time.Time { return now }})
	t.Cleanup(m.Close)
	m.SetSize(120, 40)
	m.Update(stream.ConnectedMsg{Attempt: 1})
	m.Update(status("running", false))
	const says = "no live chunk after"
	if v := m.View(120, 40); strings.Contains(v, says) || !strings.Contains(v, "waiting for the first chunk") {
		t.Fatalf("at once:\n%s", v)
	}
	now = now.Add(5 * time.Second) // the contract's "short wait"
	v := m.View(120, 40)
	if !strings.Contains(v, says) || !strings.Contains(v, "state running") || !strings.Contains(v, "read from its result") {
		t.Fatalf("after 5 s with no chunk:\n%s", v)
	}
	f := newFx(t)
	m.Update(f.batch(f.role()))
	if v := m.View(120, 40); strings.Contains(v, says) {
		t.Fatalf("a chunk came, still says none did:\n%s", v)
	}
}

// design §14: once the action settles, the live view shows the text read
// from its result's provider frames, and a notice says that aipd recorded
// no live chunks for it; the connection log keeps the line.
func TestLiveViewShowsTheTextReadFromTheResult(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../model/testdata/chat_stop.result.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.DecodeResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	m := newLive(context.Background(), Options{ActionID: res.ActionID, Keys: realKeys(t), Clock: func() time.Time { return now }})
	t.Cleanup(m.Close)
	m.SetSize(120, 40)
	m.Update(stream.ModeMsg{Review: true})
	m.Update(stream.TerminalMsg{Cursor: cursorA})
	m.Update(stream.ResultMsg{Result: res})
	v := m.View(120, 40)
	if !strings.Contains(v, "Here are the files") || !strings.Contains(v, "aipd recorded no live chunks") || !strings.Contains(v, "VERIFIED") {
		t.Fatalf("the view of an action read from its result:\n%s", v)
	}
	if tl := m.action.Timeline(); len(tl) == 0 || tl[len(tl)-1].Kind != model.HapNoLiveChunks {
		t.Fatalf("the connection log does not keep the line: %+v", tl)
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// TestUntrustedTextIsNeutralised: escape sequences in model output, tool
// names, labels, IDs and error text never reach the terminal.
func TestUntrustedTextIsNeutralised(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40)
	f := h.f
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b[2J\u009b31m\u202e"
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1},
		f.batch(f.role(), f.delta("hello "+evil+" world")),
		f.batch(f.toolRunning("term"+evil, "\x1b[5m", "label "+evil, "call_"+evil)),
		stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "cause " + evil})
	raw := h.m.Render()
	for _, bad := range []string{"\x1b]52", "\x1b[2J", "\u009b", "\u202e", "\x07", "\x1b[5m"} {
		if strings.Contains(raw, bad) {
			t.Errorf("the screen carries %q", bad)
		}
	}
	if !strings.Contains(raw, "␛]52;c;") {
		t.Error("the neutralised sequence is not shown visibly")
	}
	h.press("r")
	if raw := h.m.Render(); strings.Contains(raw, "\x1b]52") || strings.Contains(raw, "\u202e") {
		t.Error("the raw view carries an escape sequence")
	}
}

func TestFollowPauseResume(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()), f.batch(f.deltas(longText(20))...))
	m := h.m
	body := m.layout().body
	if !m.tr.Following() || m.tr.Top() != m.tr.Len()-body {
		t.Fatalf("not at the bottom while following: top %d of %d", m.tr.Top(), m.tr.Len())
	}
	h.press("j") // down while following: still following
	if !m.tr.Following() {
		t.Error("a downward scroll paused follow")
	}
	h.press("k")
	if m.tr.Following() {
		t.Fatal("an upward scroll did not pause follow")
	}
	top := m.tr.Top()
	h.feed(f.batch(f.deltas("\n\nmore text arriving below")...))
	if m.tr.Top() != top {
		t.Errorf("paused window moved from %d to %d when text arrived", top, m.tr.Top())
	}
	if m.tr.NewLines() == 0 || !strings.Contains(h.screen(), "new line") {
		t.Errorf("no new-lines badge:\n%s", h.screen())
	}
	h.press("G")
	if !m.tr.Following() || m.tr.NewLines() != 0 || m.tr.Top() != m.tr.Len()-body {
		t.Error("G did not resume follow at the bottom")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.tr.Following() {
		t.Error("the mouse wheel did not pause follow")
	}
	h.press("end")
	h.press("g")
	if m.tr.Following() || m.tr.Top() != 0 {
		t.Errorf("g: follow=%v top=%d", m.tr.Following(), m.tr.Top())
	}
	h.press("pgdown")
	if m.tr.Top() != body-1 {
		t.Errorf("pgdown moved to %d, want %d", m.tr.Top(), body-1)
	}
}

func TestFocusToggleCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40)
	h.feed(responsesTools(h.tb, h.f, true)...)
	m := h.m
	if it := m.tr.Item(m.focusIndex()); it == nil || it.Kind != model.ItemMessage {
		t.Fatal("the focus does not start on the item that changed last (the message)")
	}
	h.press("tab")
	i := m.focusIndex()
	if it := m.tr.Item(i); it == nil || it.Kind != model.ItemFunctionCall || it.Name != "read_file" {
		t.Fatalf("focus on %+v, want the read_file call", it)
	}
	before := m.tr.Len()
	h.press("enter")
	if col, n := m.tr.Collapsed(i); !col || m.tr.Len() != before-n {
		t.Errorf("enter did not collapse the focused item (collapsed=%v)", col)
	}
	h.press("space")
	if col, _ := m.tr.Collapsed(i); col {
		t.Error("space did not expand it again")
	}
	_, cmd := m.Update(keyMsg("y"))
	if cmd == nil || !strings.Contains(m.notice, "copied") {
		t.Errorf("y: cmd %v, notice %q", cmd, m.notice)
	}
	// The copied text is the call's arguments and output, sanitised.
	if txt := m.tr.CopyText(i); !strings.Contains(txt, "notes/todo.txt") || !strings.Contains(txt, "buy café beans") {
		t.Errorf("copy text %q", txt)
	}
}

func TestRedactRefusesRawAndCopy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, func(o *Options) { o.Redact = true })
	h.feed(chatToolsLive(h.f)...)
	h.press("r")
	if h.m.mode != 0 || !strings.Contains(h.m.notice, "redact") {
		t.Errorf("r under --redact: mode %v, notice %q", h.m.mode, h.m.notice)
	}
	if _, cmd := h.m.Update(keyMsg("y")); cmd != nil && !strings.Contains(h.m.notice, "redact") {
		t.Error("y under --redact copied")
	}
	scr := h.screen()
	for _, secret := range []string{"take a look", "ls -la", "README.md", "chatcmpl-", "call_terminal"} {
		if strings.Contains(scr, secret) {
			t.Errorf("--redact shows %q:\n%s", secret, scr)
		}
	}
	if !strings.Contains(scr, "terminal") || !strings.Contains(scr, "FOLLOWING") {
		t.Errorf("tool names and the verdict word stay under --redact:\n%s", scr)
	}
}

func TestCancelRefusedOnceSettled(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
	_, cmd := h.m.Update(keyMsg("c"))
	if cmd != nil || h.m.mode != 0 || !strings.Contains(h.m.notice, "nothing to cancel") {
		t.Errorf("c after settling: cmd %v mode %v notice %q", cmd, h.m.mode, h.m.notice)
	}
	if h.m.action.Cancel.Requested {
		t.Error("a cancel was recorded")
	}
}

func TestQuitKeys(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"q", "ctrl+c"} {
		h := newHarness(t, 100, 30)
		h.feed(chatToolsLive(h.f)...)
		_, cmd := h.m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
	// ctrl+c detaches even from the confirmation.
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	h.press("c")
	if _, cmd := h.m.Update(keyMsg("ctrl+c")); cmd == nil {
		t.Error("ctrl+c ignored in the confirmation")
	}
	if h.m.action.Cancel.Requested {
		t.Error("ctrl+c in the confirmation cancelled")
	}
}

func TestTooSmall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 20, 5)
	if !strings.Contains(h.screen(), "too small") {
		t.Errorf("screen %q", h.screen())
	}
}

// BenchmarkBatchAndView is one delta batch into a long transcript plus the
// frame it causes, at 120x40: the cost must not grow with the transcript.
func BenchmarkBatchAndView(b *testing.B) {
	h := newHarness(b, 120, 40)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()))
	for range 200 {
		h.feed(f.batch(f.deltas(longText(5) + "\n\n")...))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.m.Update(f.batch(f.delta("word ")))
		_ = h.m.View()
	}
}

func TestConnectionLog(t *testing.T) {
	t.Parallel()
	for _, redact := range []bool{false, true} {
		h := newHarness(t, 100, 30, func(o *Options) { o.Redact = redact })
		h.feed(chatToolsLive(h.f)...)
		h.feed(stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "read: secret detail"},
			stream.ConnectedMsg{Attempt: 2, Cursor: cursorA, Resumed: true})
		h.press("l")
		scr := h.screen()
		for _, want := range []string{"connection log", "connected", "reconnecting 2", "resumed (attempt 2)"} {
			if !strings.Contains(scr, want) {
				t.Errorf("redact=%v: the log lacks %q:\n%s", redact, want, scr)
			}
		}
		if strings.Contains(scr, "secret detail") == redact {
			t.Errorf("redact=%v: cause shown=%v:\n%s", redact, !redact, scr)
		}
		h.feed(h.f.batch(h.f.toolCompleted("read_file", "call_read_file_2")), stream.TerminalMsg{Cursor: cursorA})
		if !strings.Contains(h.screen(), "stream terminal frame") {
			t.Errorf("the open log does not grow:\n%s", h.screen())
		}
		h.press("l")
		if h.m.mode != 0 || !strings.Contains(h.screen(), "assistant") {
			t.Error("l did not close the log")
		}
	}
}

// TestRawViewDroppedUnderCap: Options.RawCap reaches the model, and the r
// view of a chunk whose raw bytes went under the cap says so instead of
// showing an empty envelope.
func TestRawViewDroppedUnderCap(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, func(o *Options) { o.RawCap = 1 })
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1},
		f.batch(f.role(), f.delta("hello "), f.delta("world")))
	if h.m.Action().RawDropped() == 0 {
		t.Fatal("RawCap 1 dropped nothing: Options.RawCap did not reach the model")
	}
	h.press("r")
	if s := h.screen(); !strings.Contains(s, "raw bytes dropped under the memory cap") {
		t.Errorf("the raw view of a dropped chunk does not say so:\n%s", s)
	}

	h = newHarness(t, 100, 30) // default cap: everything kept
	f = h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1},
		f.batch(f.role(), f.delta("hello "), f.delta("world")))
	h.press("r")
	if s := h.screen(); strings.Contains(s, "dropped under the memory cap") || !strings.Contains(s, "raw_data") {
		t.Errorf("the raw view under the default cap:\n%s", s)
	}
}

package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// isQuit reports whether cmd (or a command of its batch) quits.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch m := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range m {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

// Issue 13 item 5: until aipd answers there is no full screen, and an error
// before that quits at once (main prints it on stderr with a hint).
func TestStartupFailureQuitsWithoutAFullScreen(t *testing.T) {
	h := newHarness(t, 100, 30)
	v := h.m.View()
	if v.AltScreen || !strings.Contains(v.Content, "connecting to aipd for "+testAction) {
		t.Fatalf("before attaching: alt screen %v, %q", v.AltScreen, v.Content)
	}
	h.m.Update(stream.ReconnectingMsg{Attempt: 2, Wait: 3 * time.Second, Cause: "connection refused"})
	if v := h.m.View(); v.AltScreen || !strings.Contains(v.Content, "aipd not reachable") ||
		!strings.Contains(v.Content, "(attempt 2, next try in 3s): connection refused") {
		t.Fatalf("retrying at start-up: %q", v.Content)
	}
	_, cmd := h.m.Update(stream.ErrorMsg{Err: &stream.Error{Op: "status", Message: "connection refused"}})
	if !isQuit(cmd) {
		t.Fatal("an error before aipd answered did not quit")
	}
	if v := h.m.View(); v.AltScreen || v.Content != "" {
		t.Fatalf("after a start-up failure the screen is %q (alt %v), want nothing", v.Content, v.AltScreen)
	}
}

func TestErrorAfterAttachKeepsTheScreen(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, h.f.batch(h.f.role(), h.f.delta("hello")))
	if v := h.m.View(); !v.AltScreen {
		t.Fatal("attached, but no full screen")
	}
	_, cmd := h.m.Update(stream.ErrorMsg{Err: &stream.Error{Op: "follow", Code: "auth.native_http_unauthorized", HTTPStatus: 401}})
	if isQuit(cmd) {
		t.Fatal("an error after attaching quit: the transcript must stay readable")
	}
	if !strings.Contains(h.screen(), "hello") {
		t.Fatal("transcript gone")
	}
}

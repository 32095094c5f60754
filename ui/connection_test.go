package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
)

// The notices the connection's turns raise: read from the model's new
// timeline entries and connection state, one switch over the messages
// (stream.Apply) upstream of them.
func TestConnectionNotices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		msgs   []stream.Msg
		notice string // "" = none
		ok     bool
	}{
		{"first connection", []stream.Msg{stream.ConnectedMsg{Attempt: 1}}, "", false},
		{"resumed from a cursor", []stream.Msg{stream.ConnectedMsg{Attempt: 1, Cursor: cursorA, Resumed: true}},
			"resumed (attempt 1) from cursor " + render.Short(cursorA, 24), true},
		{"reconnected without a cursor", []stream.Msg{stream.ConnectedMsg{Attempt: 1},
			stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "reset"}, stream.ConnectedMsg{Attempt: 2}},
			"resumed (attempt 2) from the beginning", true},
		{"restart", []stream.Msg{stream.RestartMsg{Code: "stream.cursor_expired\x1b"}},
			"cursor refused (stream.cursor_expired␛): following again from the beginning", false},
		{"no record", []stream.Msg{stream.NoRecordMsg{ActionID: testAction, AppearTimeout: 30 * time.Second}},
			model.NoRecordLine(testAction, 30*time.Second), true},
		{"cursor free", []stream.Msg{stream.CursorFreeMsg{Code: "stream.cursor_invalid"}},
			model.CursorFreeLine("stream.cursor_invalid"), false},
		{"result wait", []stream.Msg{stream.ResultWaitMsg{Code: "action.result_pending", Attempt: 2, Wait: 1500 * time.Millisecond}},
			model.ResultWaitLine("action.result_pending", 2, 1500*time.Millisecond), true},
		{"a batch says nothing", []stream.Msg{stream.BatchMsg{}, stream.LivenessMsg{At: t0}}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 100, 30)
			h.feed(tc.msgs...)
			if h.m.notice != tc.notice || tc.notice != "" && h.m.noticeOK != tc.ok {
				t.Fatalf("notice %q ok=%v, want %q ok=%v", h.m.notice, h.m.noticeOK, tc.notice, tc.ok)
			}
		})
	}
}

// The status bar reads the connection from the model: resumes, the
// reconnect countdown on the TUI's clock, ctrl+r, the end of the stream.
func TestConnectionStatus(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30)
	h.feed(status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1}, h.f.batch(h.f.role()))
	h.at(10 * time.Second).feed(stream.ReconnectingMsg{Attempt: 2, Wait: 4 * time.Second, Cause: "read: reset"})
	h.at(11 * time.Second)
	if s := h.screen(); !strings.Contains(s, "attempt 2, next try in 3s · read: reset") {
		t.Fatalf("reconnecting:\n%s", s)
	}
	h.m.Update(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl})
	if s := h.screen(); !strings.Contains(s, "attempt 2, next try now") || h.m.notice != "retrying now" {
		t.Fatalf("after ctrl+r (notice %q):\n%s", h.m.notice, s)
	}
	h.at(12 * time.Second).feed(stream.ConnectedMsg{Attempt: 2, Cursor: cursorA, Resumed: true})
	h.at(14 * time.Second)
	if s := h.screen(); !strings.Contains(s, "live · resumed 1 time") || !strings.Contains(s, "last byte 2s ago") {
		t.Fatalf("resumed:\n%s", s)
	}
	h.feed(stream.DoneMsg{})
	if s := h.screen(); !strings.Contains(s, "the stream ended before the action settled") || !strings.Contains(s, "stream closed") {
		t.Fatalf("done:\n%s", s)
	}
}

// The error that stopped the following is the stream's ErrorMsg; the
// backend's exit error only when the stream sent none.
func TestConnectionFatal(t *testing.T) {
	t.Parallel()
	follow := &stream.Error{Op: "follow", Code: "auth.not_authorized", Message: "no"}
	h := newHarness(t, 100, 30)
	h.feed(status("streaming", false), stream.ErrorMsg{Err: follow})
	h.m.Update(backendExitMsg{err: errors.New("other")})
	if err := h.m.failure(); err != follow {
		t.Fatalf("failure %v, want the ErrorMsg's", err)
	}
	if s := h.screen(); !strings.Contains(s, "auth.not_authorized") {
		t.Fatalf("screen:\n%s", s)
	}

	exit := &stream.Error{Op: "status", Code: "action.not_found"}
	h = newHarness(t, 100, 30)
	h.feed(status("streaming", false))
	h.m.Update(backendExitMsg{err: exit})
	if err := h.m.failure(); err != exit {
		t.Fatalf("failure %v, want the backend's", err)
	}
	if !h.m.idle() {
		t.Fatal("a failed run that is over still ticks")
	}
}

// "aipd has no record of … yet: waiting for its first event" goes as soon
// as an event or a chunk comes (a sync action streams with no record), not
// on a keep-alive; its six seconds otherwise hid the key help.
func TestNoRecordNoticeGoesWithTheFirstChunk(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(stream.NoRecordMsg{ActionID: testAction, AppearTimeout: time.Minute}, stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1})
	h.feed(stream.LivenessMsg{At: t0})
	if h.m.notice == "" {
		t.Fatal("a keep-alive took the no-record notice away")
	}
	h.feed(stream.BatchMsg{})
	if h.m.notice == "" {
		t.Fatal("an empty batch took the no-record notice away")
	}
	h.feed(h.f.batch(h.f.role()))
	if h.m.notice != "" {
		t.Fatalf("notice %q after the first chunk", h.m.notice)
	}
	// Another notice is not taken away by chunks.
	h.feed(stream.RestartMsg{Code: "stream.cursor_expired"}, h.f.batch(h.f.delta("more")))
	if !strings.Contains(h.m.notice, "cursor refused") {
		t.Fatalf("notice %q, want the restart's", h.m.notice)
	}
}

// A run that stopped on an error does not look live: the rule says
// stopped, the elapsed time stops, progress notices go, and c sends no
// cancel that nothing would follow (design §2.9), saying how to send one.
func TestFatalRunLooksStopped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30)
	h.feed(stream.NoRecordMsg{ActionID: testAction, AppearTimeout: 2 * time.Second}, stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1})
	h.at(2 * time.Second).feed(stream.ErrorMsg{Err: &stream.Error{Op: "follow", Code: "action.unknown", Message: "no event or chunk"}})
	h.feed(stream.DoneMsg{})
	if h.m.notice != "" {
		t.Fatalf("notice %q under the error", h.m.notice)
	}
	s := h.screen()
	if !strings.Contains(s, "stopped · nothing more arrives") || strings.Contains(s, "following") {
		t.Fatalf("rule line of a stopped run:\n%s", s)
	}
	e := h.m.elapsed()
	h.at(time.Minute)
	if got := h.m.elapsed(); got != e {
		t.Fatalf("elapsed %s a minute later, was %s when the run stopped", got, e)
	}
	if help := s[strings.LastIndex(s, "\n")+1:]; strings.Contains(help, "cancel") || !strings.Contains(help, "q quit") {
		t.Fatalf("the help of a stopped run offers a cancel or a detach: %q", help)
	}
	h.press("c")
	// The command carries the run's flags (the resume command's), not a
	// bare one that would reach the default daemon.
	if h.m.mode == ModeConfirm || !strings.Contains(h.m.notice, "aipwatch --cursor  "+testAction+" --cancel") {
		t.Fatalf("c on a stopped run: mode %v notice %q", h.m.mode, h.m.notice)
	}
}

// On a narrow terminal the cancel confirmation says its warning shorter
// rather than cutting it, and still says how to back out.
func TestCancelPromptNarrow(t *testing.T) {
	t.Parallel()
	for _, w := range []int{40, 60, 100} {
		h := newHarness(t, w, 14)
		h.feed(status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1}, h.f.batch(h.f.role(), h.f.delta("hello")))
		h.press("c")
		s := strings.Join(strings.Fields(h.screen()), " ")
		if !strings.Contains(s, "not undone") || !strings.Contains(s, "n/esc") && !strings.Contains(s, "n or esc") {
			t.Fatalf("%d columns: the prompt lost its warning or its way out:\n%s", w, h.screen())
		}
	}
}

// A replayed recording whose earlier run failed and whose later run went
// on (record/replay.go): the clock stopped at the failure runs again once
// the later run starts.
func TestElapsedRunsAgainWhenALaterRunGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30)
	h.feed(stream.ModeMsg{}, stream.ErrorMsg{Err: &stream.Error{Op: "status", Code: "auth.native_http_unauthorized", HTTPStatus: 401}})
	stopped := h.m.elapsed()
	h.at(time.Minute).feed(stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1}, h.f.after(time.Minute).batch(h.f.role()))
	if h.m.fatal() != nil || h.m.elapsed() <= stopped {
		t.Fatalf("fatal %v, elapsed %s (stopped at %s)", h.m.fatal(), h.m.elapsed(), stopped)
	}
}

// While aipwatch waits for an action aipd has no record of, the status
// bar counts down the wait; the error that ends it is shown whole in the
// body, wrapped, where the status bar cuts it at the terminal's width.
func TestAppearWaitCountsDownThenShowsTheWholeError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	h.feed(stream.NoRecordMsg{ActionID: testAction, AppearTimeout: time.Minute}, stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1})
	if s := h.screen(); !strings.Contains(s, "waiting for "+testAction+" to appear: 60s left") {
		t.Fatalf("no countdown:\n%s", s)
	}
	h.at(45 * time.Second)
	if s := h.screen(); !strings.Contains(s, "to appear: 15s left") {
		t.Fatalf("the countdown did not move:\n%s", s)
	}
	msg := "no event or chunk of " + testAction + " within 1m0s, and aipd at http://127.0.0.1:8080 has no record of it: " +
		"it was never submitted, was rejected before it ran, or is a synchronous run that failed before its first chunk (check the ID)"
	h.at(time.Minute).feed(stream.ErrorMsg{Err: &stream.Error{Op: "follow", Code: "action.unknown", Message: msg}}, stream.DoneMsg{})
	s := h.screen()
	if strings.Contains(s, "to appear") {
		t.Fatalf("the countdown outlived the wait:\n%s", s)
	}
	if !strings.Contains(s, "(check the ID)") || !strings.Contains(s, "failed before its first chunk") {
		t.Fatalf("the error is not shown whole:\n%s", s)
	}
}

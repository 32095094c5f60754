package ui

import (
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// An action aipd has no record of (a mistyped ID) is said so at once,
// with why a real one may have none; c offers no cancel until something
// of it is seen, and the help offers no resume (issue 46 item 13). Once a
// chunk came, c asks as it always does.
func TestNoCancelForAnActionNothingIsSeenOf(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 30)
	h.feed(stream.StatusMsg{Status: model.ActionStatus{ActionID: testAction, State: model.StateUnknown}},
		stream.NoRecordMsg{ActionID: testAction, AppearTimeout: time.Minute}, stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1})
	if s := h.screen(); !strings.Contains(s, "no record of "+testAction) {
		t.Fatalf("not said at once that aipd has no record:\n%s", s)
	}
	if !strings.Contains(h.m.notice, "a synchronous or streaming action has none while it runs") {
		t.Fatalf("notice %q does not say why a real action may have no record", h.m.notice)
	}
	h.press("c")
	if h.m.mode == ModeConfirm {
		t.Fatal("c asks to cancel an action nothing of which was seen")
	}
	if !strings.Contains(h.m.notice, "nothing to cancel yet") {
		t.Fatalf("c: notice %q", h.m.notice)
	}
	if l := h.m.detachLine(); l != "" {
		t.Fatalf("the help offers a resume of an action nothing of which was seen: %q", l)
	}

	h.feed(h.f.batch(h.f.role()))
	h.press("c")
	if h.m.mode != ModeConfirm {
		t.Fatalf("c after the first chunk: mode %v, notice %q", h.m.mode, h.m.notice)
	}
	if l := h.m.detachLine(); !strings.Contains(l, "resume with") {
		t.Fatalf("no resume once something was seen: %q", l)
	}
}

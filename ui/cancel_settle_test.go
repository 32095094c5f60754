package ui

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// A cancel confirmation opened while the action ran, answered with y
// after it settled, sends nothing: the notice says it settled meanwhile
// (issue 17). Answered before it settles, y does cancel.
func TestConfirmThenSettleThenYes(t *testing.T) {
	h := newHarness(t, 100, 30)
	live := chatToolsLive(h.f)
	h.feed(live...)
	h.press("c")
	if h.m.mode == 0 {
		t.Fatal("c did not open the confirmation")
	}
	all := chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
	h.feed(all[len(live):]...)
	if !h.m.action.Settled() {
		t.Fatal("the action did not settle")
	}
	_, cmd := h.m.Update(keyMsg("y"))
	if cmd != nil || h.m.mode != 0 || !strings.Contains(h.m.notice, "settled meanwhile") {
		t.Errorf("y after settling: cmd %v mode %v notice %q", cmd, h.m.mode, h.m.notice)
	}
	if h.m.action.Cancel.Requested || h.m.cancelled {
		t.Error("a cancel was recorded")
	}

	// The control: y while it still runs sends the cancel.
	g := newHarness(t, 100, 30)
	g.feed(chatToolsLive(g.f)...)
	g.press("c")
	g.press("y")
	if !g.m.action.Cancel.Requested || !g.m.cancelled {
		t.Error("y before settling did not cancel")
	}
}

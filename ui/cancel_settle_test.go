package ui

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// confirmCancel types the confirm word (the action ID's last characters)
// into an open cancel confirmation.
func confirmCancel(h *harness) {
	for _, r := range h.m.confirmWord() {
		h.press(string(r))
	}
}

// A cancel confirmation opened while the action ran, completed after it
// settled, sends nothing: the notice says it settled meanwhile.
// Completed before it settles, the same keys do cancel.
func TestConfirmThenSettleThenConfirm(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	live := chatToolsLive(h.f)
	h.feed(live...)
	h.press("c")
	if h.m.mode == 0 {
		t.Fatal("c did not open the confirmation")
	}
	confirmCancel(h)
	all := chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
	h.feed(all[len(live):]...)
	if !h.m.action.Settled() {
		t.Fatal("the action did not settle")
	}
	_, cmd := h.m.Update(keyMsg("enter"))
	if cmd != nil || h.m.mode != 0 || !strings.Contains(h.m.notice, "settled meanwhile") {
		t.Errorf("enter after settling: cmd %v mode %v notice %q", cmd, h.m.mode, h.m.notice)
	}
	if h.m.action.Cancel.Requested || h.m.cancelled {
		t.Error("a cancel was recorded")
	}

	// The control: the same keys while it still runs send the cancel.
	g := newHarness(t, 100, 30)
	g.feed(chatToolsLive(g.f)...)
	g.press("c")
	confirmCancel(g)
	g.press("enter")
	if !g.m.action.Cancel.Requested || !g.m.cancelled {
		t.Error("the confirm word and enter before settling did not cancel")
	}
}

// At 40 columns the confirmation still shows what to type and what was
// typed (the long sentence was cut before the characters).
func TestConfirmationNarrowShowsTheCharacters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 40, 12)
	h.feed(chatToolsLive(h.f)...)
	h.press("c")
	if s := h.screen(); !strings.Contains(s, "2Z4A") || !strings.Contains(s, "[····]") {
		t.Fatalf("the characters to type are not on the 40-column screen:\n%s", s)
	}
	h.press("2", "Z", "4", "B", "enter")
	if s := h.screen(); !strings.Contains(s, "[2Z4B]") || !strings.Contains(s, "no match") {
		t.Fatalf("the typed characters or the mismatch are not on the screen:\n%s", s)
	}
	if h.m.action.Cancel.Requested {
		t.Fatal("a mismatch sent the cancel")
	}
}

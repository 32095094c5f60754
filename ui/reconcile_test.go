package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
)

// R on a settled action asks first, saying that it submits one read-only
// action; n submits nothing; y runs the read once (in a command) and shows
// the stored status; the verdict does not change.
func TestFlowReconcileKey(t *testing.T) {
	var reads atomic.Int32
	rec := func(a *model.Action) (string, func(context.Context) string) {
		return "response_get of resp_x", func(context.Context) string {
			reads.Add(1)
			return "stored: incomplete (response_get of resp_x by act_r; the verdict is unchanged): partial output"
		}
	}
	tm, _, sc := startFlow(t, newFake(settledScript(t, true), false), 120, 30, func(o *Options) { o.Reconcile = rec })
	sc.waitText(t, "VERIFIED")
	tm.Type("?")
	sc.waitText(t, "reconcile (one read-only action)")
	tm.Type("?")
	tm.Type("R")
	prompt := sc.waitText(t, "submit one read-only AIP action (response_get of resp_x)")
	if !strings.Contains(prompt, "verdict does not change") {
		t.Errorf("the confirmation must say what R does:\n%s", prompt)
	}
	// Its keys are R's, not the cancel's: nothing to type, y or n.
	if strings.Contains(prompt, "type the ID") || strings.Contains(prompt, "send cancel") ||
		!strings.Contains(prompt, "y submit the read") || !strings.Contains(prompt, "n/esc submit nothing") {
		t.Errorf("the reconcile confirmation shows other keys than its own:\n%s", prompt)
	}
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	sc.waitText(t, "not reconciled: nothing was submitted")
	if n := reads.Load(); n != 0 {
		t.Fatalf("declining read %d times", n)
	}
	tm.Type("R")
	sc.waitText(t, "to read the stored state?")
	tm.Type("y")
	sc.waitText(t, "stored: incomplete")
	tm.Type("q")
	fm := finalModel(t, tm)
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads, want 1", n)
	}
	if v := fm.Action().Verdict(); v.Word != model.VerdictVerified {
		t.Fatalf("the verdict changed: %q", v.Word)
	}
	found := false
	for _, h := range fm.Action().Timeline() {
		found = found || strings.HasPrefix(h.Text(), "reconcile: stored: incomplete")
	}
	if !found || fm.ReconcileLine() == "" {
		t.Fatal("the read is not in the timeline")
	}
}

// Nothing to read: R says why and submits nothing.
func TestFlowReconcileNothing(t *testing.T) {
	rec := func(a *model.Action) (string, func(context.Context) string) {
		return "nothing to reconcile for act_x: no response.id", nil
	}
	tm, _, sc := startFlow(t, newFake(settledScript(t, true), false), 120, 30, func(o *Options) { o.Reconcile = rec })
	sc.waitText(t, "VERIFIED")
	tm.Type("R")
	sc.waitText(t, "nothing to reconcile for act_x")
	tm.Type("q")
	finalModel(t, tm)
}

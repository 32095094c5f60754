package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/reconcile"
	"aipwatch/stream"
)

// R on a settled action asks first, saying that it submits one read-only
// action; n submits nothing; y runs the read once (in a command) and shows
// the stored status; the verdict does not change.
func TestFlowReconcileKey(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// The console's R on a row opens the view and asks once the action has
// settled (AskReconcileOnceSettled). A review reads the status first (a
// dead-lettered action is settled by it alone) and the log after: asked
// in between, R said "nothing to reconcile … neither is known" of a
// Responses action whose response.id the header showed a moment later.
// R is asked once the action has been read; R pressed meanwhile waits too.
func TestReconcileAsksOnceTheActionIsRead(t *testing.T) {
	t.Parallel()
	rec := func(a *model.Action) (string, func(context.Context) string) {
		p, err := reconcile.PlanFrom(testAction, a, journal.Entry{})
		if err != nil {
			return err.Error(), nil
		}
		return p.Op + " of " + p.Target, func(context.Context) string { return "stored: failed" }
	}
	m := newLive(context.Background(), Options{ActionID: testAction, Keys: realKeys(t), Reconcile: rec, Clock: func() time.Time { return t0 }})
	t.Cleanup(m.Close)
	m.SetSize(120, 30)
	screen := func() string { return ansi.Strip(m.View(120, 30)) }
	st := status(model.StateDeadLettered, false)
	st.Status.CapabilityID = "cap:hermes_agent:hermes-local:responses_stream"
	m.Update(st)
	m.Update(stream.ModeMsg{Review: true})
	m.AskReconcileOnceSettled()
	m.Update(tea.KeyPressMsg{Code: 'R', Text: "R"})
	if s := screen(); m.Mode() != ModeNormal || strings.Contains(s, "nothing to reconcile") {
		t.Fatalf("R was planned before the action's log was read:\n%s", s)
	}
	f := newFx(t)
	r := f.responses()
	msg := "msg_5e2c7b0a9d4f1e6c3b8a2d7f"
	final := status(model.StateDeadLettered, true)
	final.Status.CapabilityID = st.Status.CapabilityID
	for _, x := range []stream.Msg{f.batch(r.created(), r.msgAdded(0, msg), r.text(0, msg, "Working on it")),
		result(t, model.ResultFailed, model.OpResponses, "connector.hermes_agent.stream_failed", false, false), final} {
		m.Update(x)
		if m.Mode() != ModeNormal {
			t.Fatalf("R asked before the run was over, after %T", x)
		}
	}
	m.Update(stream.DoneMsg{})
	if s := screen(); m.Mode() != ModeConfirm || !strings.Contains(s, "response_get of "+respID) {
		t.Fatalf("R did not ask once the action was read:\n%s", s)
	}
}

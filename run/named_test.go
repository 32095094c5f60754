package run

import (
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The desktop notification of an action on a context names the context
// (issue 46 item 10): act_x on two daemons reads as two.
func TestNotificationNamesTheContext(t *testing.T) {
	t.Parallel()
	p := plan()
	p.Flags.Notify, p.Route = true, func() (safe.NotifyRoute, string) { return safe.NotifyRoute{}, "" }
	a := model.NewAction("act_x_01")
	for _, c := range []struct{ ctx, want string }{{"west", "west/act_x_01: "}, {"", "\x1b]9;act_x_01: "}} {
		uo := p.live(Target{Arg: "x", ID: "act_x_01", Context: c.ctx}, true)
		if uo.Notification == nil || !strings.Contains(uo.Notification(a), c.want) {
			t.Errorf("context %q: notification %q lacks %q", c.ctx, uo.Notification(a), c.want)
		}
	}
}

// Of several, an action aipd has no record of and nothing of which came
// (a mistyped ID) is not in the resume command: it is named, to check
// (issue 46 item 13).
func TestSeveralActionsResumeLeavesTheUnseen(t *testing.T) {
	t.Parallel()
	p := plan("act_a_01", "act_typo_02")
	unknown := model.NewAction("act_typo_02")
	stream.Apply(unknown, stream.StatusMsg{Status: model.ActionStatus{ActionID: "act_typo_02", State: model.StateUnknown}})
	var w strings.Builder
	p.exit([]outcome{{a: model.NewAction("act_a_01")}, {a: unknown}}, &w)
	if !strings.HasSuffix(w.String(), "resume with: aipwatch act_a_01\n") || !strings.Contains(w.String(), "no record of act_typo_02") ||
		!strings.Contains(w.String(), "the action keeps running") {
		t.Fatalf("closing lines:\n%s", w.String())
	}
}

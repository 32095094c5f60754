package run

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

func status(id, state string) *model.Action {
	a := model.NewAction(id)
	stream.Apply(a, stream.StatusMsg{Status: model.ActionStatus{ActionID: id, State: state}})
	return a
}

// The live view's options: nothing is sent to what is no terminal (no
// notification), and a replay offers no resume command (nothing runs).
func TestLiveOptionsNoNotificationOffATerminalNoResumeOfAReplay(t *testing.T) {
	t.Parallel()
	p := plan("act_o_01")
	p.Route = func() (safe.NotifyRoute, string) { return safe.NotifyRoute{}, "" }
	if uo := p.live(p.Targets[0], false); uo.Notification != nil {
		t.Error("a notification for a run that is no terminal")
	}
	if uo := p.live(p.Targets[0], true); uo.Notification == nil || uo.Resume == nil {
		t.Error("a terminal's run: no notification or no resume")
	}
	p.Flags.Replay = true
	if uo := p.live(p.Targets[0], true); uo.Resume != nil {
		t.Errorf("a replay offers a resume: %q", uo.Resume("c"))
	}
}

// design §2.8: an action that ended (its terminal frame seen) whose outcome
// was not read exits pending (8), alone as among several.
func TestEndedWithoutOutcomeExitsPending(t *testing.T) {
	t.Parallel()
	ended := model.NewAction("act_d_01")
	ended.TerminalFrameSeen = true
	var w strings.Builder
	if code := plan("act_d_01").exit([]outcome{{a: ended}}, &w); code != model.ExitPending {
		t.Fatalf("exit %d, want %d:\n%s", code, model.ExitPending, w.String())
	}
}

// settling is a runner whose action reads cancelled at once (settled
// without a result) and ends.
type settling struct{ id string }

func (s settling) Run(_ context.Context, sink stream.Sink) error {
	sink.Send(stream.StatusMsg{Status: model.ActionStatus{ActionID: s.id, State: model.StateCancelled}})
	return nil
}

func (settling) Cancel(context.Context, string) stream.CancelMsg { return stream.CancelMsg{} }

// Issue 46 item 10: plain's closing notification of an action on a context
// names the context (CONTEXT/act_…), as the live view's does: the same
// rule in both routes.
func TestLinesNotificationNamesTheContext(t *testing.T) {
	t.Parallel()
	p := plan("west/act_n_01")
	p.Mode, p.Flags.Notify = "plain", true
	p.Route = func() (safe.NotifyRoute, string) { return safe.NotifyRoute{}, "" }
	p.Targets[0].Context, p.Targets[0].Runner = "west", settling{"act_n_01"}
	var out, errb bytes.Buffer
	Run(context.Background(), *p, IO{Stdout: &out, Stderr: &errb, TTY: true})
	if !strings.Contains(out.String(), "\x1b]9;west/act_n_01: ") {
		t.Fatalf("stdout %q\nstderr %q", out.String(), errb.String())
	}
}

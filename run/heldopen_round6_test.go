package run

import (
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/submit"
)

// design §14: the held-open lines (the run goes on, the reply is lost,
// never resubmit without the key) are said only of an action not known to
// have settled: once its status reads settled (expired here) quitting says
// that it ended and its outcome was not read, nothing of a run going on.
func TestHeldOpenLinesNotForASettledAction(t *testing.T) {
	t.Parallel()
	id := "act_test_held_open_settled"
	sub := quitHeldSubmission(t, id, sim.TopologyFleet, submit.ModeStreaming, "aipwatch-key-held-2", "msg_held_settled")
	if !sub.HeldOpen() {
		t.Fatal("the fixture: the POST is not held open")
	}
	p := &Plan{Targets: []Target{{Arg: id, ID: id, Runner: sub}},
		Resume: func(_ string, args ...string) string { return "aipwatch " + strings.Join(args, " ") }}
	running := status(id, model.StateRunning)
	if msg := p.detachOne(running, p.Targets[0]); !strings.Contains(msg, "POST was held open") {
		t.Fatalf("running: %s", msg)
	}
	expired := status(id, model.StateExpired)
	if !expired.Settled() {
		t.Fatal("the fixture: expired is not settled")
	}
	if msg := p.detachOne(expired, p.Targets[0]); strings.Contains(msg, "held open") || strings.Contains(msg, "goes on running") {
		t.Fatalf("settled: %s", msg)
	}
}

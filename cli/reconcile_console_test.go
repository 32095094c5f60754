package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
)

// reviewed is the settled model of an action of the simulator, as a live
// view holds it when R is pressed.
func reviewed(t *testing.T, srv *sim.Server, id string) *model.Action {
	t.Helper()
	c, err := stream.New(stream.Config{BaseURL: srv.URL(), ActionID: id, HTTP: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	a := model.NewAction(id)
	if err := c.Run(context.Background(), stream.SinkFunc(func(m stream.Msg) { stream.Apply(a, m) })); err != nil {
		t.Fatal(err)
	}
	if !a.Settled() {
		t.Fatalf("%s has not settled", id)
	}
	return a
}

// The console's R: one reconciler serves every action the console opens
// (its options name no action), so the read is of the action on screen.
func TestConsoleReconcileReadsTheOpenedAction(t *testing.T) {
	t.Parallel()
	getenv, _ := stateEnv(t)
	srv := startSim(t, "responses-failed", sim.Knobs{Submit: sim.SubmitKnobs{StoredStatus: "completed"}})
	r := reconcilerFor(&conn{url: srv.URL()}, getenv, false) // as the console has it: no action ID
	if r == nil {
		t.Fatal("no reconciler")
	}
	what, read := r(reviewed(t, srv, srv.ActionID()))
	if read == nil || !strings.HasPrefix(what, "response_get of resp_") {
		t.Fatalf("no read planned: %q", what)
	}
	line := read(context.Background())
	if !strings.HasPrefix(line, "stored: completed (response_get of resp_") {
		t.Fatalf("read: %q", line)
	}
	subs := srv.Submissions()
	if len(subs) != 1 || subs[0].CapabilityID != "cap:hermes_agent:sim:response_get" {
		t.Fatalf("submissions: %+v", subs)
	}
}

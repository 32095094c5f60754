package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/submit"
)

// design §14: the held-open lines (the run goes on, the reply is lost,
// never resubmit without the key) are said only of an action not known to
// have settled: once its status reads settled (expired here) quitting says
// that it ended and its outcome was not read, nothing of a run going on.
func TestHeldOpenLinesNotForASettledAction(t *testing.T) {
	t.Parallel()
	id := "act_test_held_open_settled"
	srv, err := sim.New("long", sim.Knobs{Speed: 20, Topology: sim.TopologyFleet, Submit: sim.SubmitKnobs{Await: true, ActionID: id}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := stream.New(stream.Config{BaseURL: srv.URL(), ActionID: id, AppearTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	req := submit.Request{ActionID: id, CapabilityID: "cap:hermes_agent:sim:chat_stream", Input: []byte(`{"messages":[{"role":"user","content":"summarise the notes"}]}`),
		Mode: submit.ModeStreaming, IdempotencyKey: "aipwatch-key-held-2"}
	sub := &stream.Submission{Client: c, Sync: true, IdempotencyKey: req.IdempotencyKey,
		Envelope: func(int) ([]byte, error) { return submit.Envelope(req, "msg_held_settled", time.Now()) }}
	ctx, quit := context.WithCancel(context.Background())
	sink := &chunkSink{got: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- sub.Run(ctx, sink) }()
	select {
	case <-sink.got: // the run is under way
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("no chunk came")
	}
	quit()
	if err := <-done; err != nil {
		t.Logf("the quit run ended: %v", err) // ctx's error
	}
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

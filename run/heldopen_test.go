package run

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/submit"
)

// chunkSink tells once that a chunk came.
type chunkSink struct {
	once sync.Once
	got  chan struct{}
}

func (s *chunkSink) Send(m stream.Msg) {
	if b, ok := m.(stream.BatchMsg); ok && len(b.Chunks) > 0 {
		s.once.Do(func() { close(s.got) })
	}
}

// design §14, protocol §13: quitting while a streaming submission's POST
// is held open (on either deployment) says that the run goes on (only the reply is lost), how
// to re-attach, and that a run that never settles may have lost its
// record: never resubmit the ID without its idempotency key. A quit after
// an async submission's ack says none of it.
func TestQuitDuringHeldOpenSubmissionSaysTheRunGoesOn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ mode, topology string }{
		// streaming on both deployments (its chunks are recorded on the
		// fleet too); async in process (it records no chunk on the fleet)
		{submit.ModeStreaming, sim.TopologyFleet},
		{submit.ModeStreaming, sim.TopologyInProcess},
		{submit.ModeAsync, sim.TopologyInProcess},
	} {
		mode := c.mode
		t.Run(mode+"/"+c.topology, func(t *testing.T) {
			t.Parallel()
			id := "act_test_held_open_" + mode + "_" + c.topology
			sub := quitHeldSubmission(t, id, c.topology, mode, "aipwatch-key-held-1", "msg_held_"+mode+"_"+c.topology)
			p := &Plan{Targets: []Target{{Arg: id, ID: id, Runner: sub}},
				Resume: func(_ string, args ...string) string { return "aipwatch " + strings.Join(args, " ") }}
			var w strings.Builder
			p.exit([]outcome{{a: status(id, model.StateRunning)}}, &w)
			msg := w.String()
			held := strings.Contains(msg, "POST was held open and is closed now: aipd goes on running "+id) &&
				strings.Contains(msg, "only the reply is lost") && strings.Contains(msg, "may have lost its record") &&
				strings.Contains(msg, "without its idempotency key aipwatch-key-held-1") && strings.Contains(msg, "resume with: ")
			if held != (mode == submit.ModeStreaming) {
				t.Fatalf("mode %s, quit message:\n%s", mode, msg)
			}
		})
	}
}

// quitHeldSubmission submits id in mode to the simulator's long run on
// topology, waits for its first chunk, then quits it as the operator
// does; it returns the quit submission.
func quitHeldSubmission(t *testing.T, id, topology, mode, key, msgID string) *stream.Submission {
	t.Helper()
	srv, err := sim.New("long", sim.Knobs{Speed: 20, Topology: topology, Submit: sim.SubmitKnobs{Await: true, ActionID: id}})
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
		Mode: mode, IdempotencyKey: key}
	sub := &stream.Submission{Client: c, Sync: submit.Held(mode), IdempotencyKey: key,
		Envelope: func(int) ([]byte, error) { return submit.Envelope(req, msgID, time.Now()) }}
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
	return sub
}

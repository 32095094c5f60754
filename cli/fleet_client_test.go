package cli

import (
	"strings"
	"testing"

	"aipwatch/sim"
)

const noLive = "aipd recorded no live chunks for this action"

// design §14 on the fleet: an action submitted async records no chunk;
// following it shows its text and judges it from its result's
// output.events (verified for a stop finish, partial for length), and says
// once that aipd recorded no live chunks for it, and why.
func TestFleetAsyncFollowReadsTheResult(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scenario string
		exit     int
		verdict  string
	}{
		{"chat-tools", 0, "verdict: verified ("},
		{"chat-length", 3, "verdict: partial ("},
		{"responses-tools", 0, "verdict: verified ("},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			t.Parallel()
			srv := live(t, c.scenario, sim.Knobs{Mode: sim.ModeAsync, Topology: sim.TopologyFleet})
			code, out, errOut := plain(t, srv)
			wantExit(t, code, c.exit, out, errOut)
			wantLine(t, out, c.verdict)
			if n := strings.Count(out, noLive); n != 1 {
				t.Fatalf("said %d times that no live chunk was recorded:\n%s", n, out)
			}
			wantLine(t, out, "only a streaming submission records chunks")
			if strings.Contains(out, "no terminal provider frame seen") {
				t.Fatalf("judged without the result's frames:\n%s", out)
			}
		})
	}
}

// A streaming action on the fleet reads unknown while it runs (no record
// until it settles) but its chunks are recorded: it is followed live and
// says nothing about missing chunks.
func TestFleetStreamingFollowedLive(t *testing.T) {
	t.Parallel()
	srv := live(t, "chat-tools", sim.Knobs{Mode: sim.ModeStreaming, Topology: sim.TopologyFleet})
	code, out, errOut := plain(t, srv)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "aipd has no record of "+srv.ActionID()+" yet")
	wantLine(t, out, "verdict: verified (")
	if strings.Contains(out, noLive) {
		t.Fatalf("a streaming action's live chunks were not read as such:\n%s", out)
	}
}

// submit on the fleet: a chat or responses stream is submitted streaming
// by default, shows its text live and ends verified; --mode async ends on
// the result's verdict and says no live chunks were recorded; --mode
// streaming is accepted in-process too.
func TestFleetSubmitModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, scenario, topology, mode, input string
		noLive                                bool
	}{
		{"chat default", "chat-tools", sim.TopologyFleet, "", chatInput, false},
		{"responses default", "responses-tools", sim.TopologyFleet, "", respInput, false},
		{"chat async", "chat-tools", sim.TopologyFleet, "async", chatInput, true},
		{"chat sync", "chat-tools", sim.TopologyFleet, "sync", chatInput, true},
		{"in-process streaming", "chat-tools", sim.TopologyInProcess, "streaming", chatInput, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			getenv, jpath := stateEnv(t)
			id := "act_test_fleet_" + strings.ReplaceAll(c.name, " ", "_")
			srv := startSim(t, c.scenario, sim.Knobs{Topology: c.topology,
				Submit: sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(jpath)}})
			op := "chat_stream"
			if strings.HasPrefix(c.scenario, "responses") {
				op = "responses_stream"
			}
			args := []string{"submit", "--url", srv.URL(), "--output", "plain", "--action-id", id}
			if c.mode != "" {
				args = append(args, "--mode", c.mode)
			}
			code, out, errOut := runWith(getenv, append(args, "cap:hermes_agent:sim:"+op, "--input", c.input)...)
			wantExit(t, code, 0, out, errOut)
			wantLine(t, out, "verdict: verified (")
			want := c.mode
			if want == "" {
				want = "streaming"
			}
			if got := srv.SubmittedMode(); got != want {
				t.Fatalf("sent mode %q, want %q", got, want)
			}
			if got := strings.Count(out, noLive); (got == 1) != c.noLive || got > 1 {
				t.Fatalf("said %d times that no live chunk was recorded (want it: %v):\n%s", got, c.noLive, out)
			}
		})
	}
}

// design §14: on the fleet a cancel can answer the host's error while the
// action still ends cancelled: it reads as cancelled (exit 7), the
// daemon's error kept as a note.
func TestFleetCancelErrorReplyReadsCancelled(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{sim.ModeStreaming, sim.ModeSync} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv := live(t, "long", sim.Knobs{Topology: sim.TopologyFleet, Mode: mode, CancelErrorReply: true})
			code, out, errOut := plain(t, srv, "--cancel")
			wantExit(t, code, 7, out, errOut)
			wantLine(t, out, "verdict: cancelled")
			wantLine(t, out, "cancel: cancelled")
			wantLine(t, out, "cancel: cancelled (aipd answered the cancel with an error, yet the action was cancelled: cancel: connector_host.execution")
		})
	}
}

// design §14: each of the fleet's own errors reads as one line saying what
// happened and what to do, and the submission is never resent.
func TestFleetErrorsOneLineNoResend(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fleetErr, says string
	}{
		{sim.FleetErrHostNotReady, "the connector host that runs Hermes is draining"},
		{sim.FleetErrHostCapacity, "the connector host is running as many actions as it may"},
		{sim.FleetErrSchedulerOverloaded, "the fleet's admission queue is full"},
		{sim.FleetErrAdmissionCapacity, "an admission limit of the fleet is exhausted"},
		{sim.FleetErrNoTenant, "needs a verified tenant"},
	} {
		for _, mode := range []string{"", "async"} {
			t.Run(c.fleetErr+"/"+mode, func(t *testing.T) {
				t.Parallel()
				getenv, jpath := stateEnv(t)
				id := "act_test_fleet_err_" + strings.NewReplacer(".", "_").Replace(c.fleetErr) + mode
				srv := startSim(t, "chat-tools", sim.Knobs{Topology: sim.TopologyFleet, FleetError: c.fleetErr,
					Submit: sim.SubmitKnobs{Await: true, ActionID: id, BeforeAccept: journalHas(jpath)}})
				args := []string{"submit", "--url", srv.URL(), "--output", "plain", "--action-id", id}
				if mode != "" {
					args = append(args, "--mode", mode)
				}
				code, out, errOut := runWith(getenv, append(args, "cap:hermes_agent:sim:chat_stream", "--input", chatInput)...)
				all := out + errOut
				if code == 0 || !strings.Contains(all, c.says) || !strings.Contains(all, "nothing ran and aipwatch resends nothing") {
					t.Fatalf("exit %d, want the line %q\nstdout:\n%s\nstderr:\n%s", code, c.says, out, errOut)
				}
				for _, l := range strings.Split(all, "\n") {
					if strings.Contains(l, c.says) && !strings.Contains(l, "submit it again") && !strings.Contains(l, "tenant") {
						t.Fatalf("the line does not say what to do: %s", l)
					}
				}
				if strings.Contains(all, "may already exist") {
					t.Fatalf("a refusal before Hermes ran is reconciled as a run:\n%s", all)
				}
				if n := len(srv.Submissions()); n != 1 {
					t.Fatalf("%d POSTs, want 1 (never resent): %+v", n, srv.Submissions())
				}
			})
		}
	}
}

// The fleet demo (design §14): followed, the chat-tools turn is an async
// action that records no chunk and is read from its result; submitted, it
// is streamed live.
func TestFleetDemo(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "--demo=fleet-chat-tools", "--output", "plain")
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "verdict: verified (")
	if n := strings.Count(out, noLive); n != 1 {
		t.Fatalf("the followed fleet demo said %d times that no live chunk was recorded:\n%s", n, out)
	}
	getenv, _ := stateEnv(t)
	code, out, errOut = runWith(getenv, "submit", "--demo=fleet-chat-tools", "--output", "plain")
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "(mode streaming: chat_stream's expected completion")
	wantLine(t, out, "verdict: verified (")
	if strings.Contains(out, noLive) {
		t.Fatalf("the submitted fleet demo was not streamed live:\n%s", out)
	}
}

// A recording of an action read from its result replays to the same text
// and verdict, and says the same once.
func TestFleetAsyncRecordReplays(t *testing.T) {
	t.Parallel()
	srv := live(t, "chat-tools", sim.Knobs{Mode: sim.ModeAsync, Topology: sim.TopologyFleet})
	path := t.TempDir() + "/run.jsonl"
	code, out, errOut := plain(t, srv, "--record", path)
	wantExit(t, code, 0, out, errOut)
	code, replayed, errOut := runCLI(t, "--replay", path, "--output", "plain")
	wantExit(t, code, 0, replayed, errOut)
	wantLine(t, replayed, "verdict: verified (")
	wantLine(t, replayed, "Everything looks tidy")
	if n := strings.Count(replayed, noLive); n != 1 {
		t.Fatalf("the replay said %d times that no live chunk was recorded:\n%s", n, replayed)
	}
}

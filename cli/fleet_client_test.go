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

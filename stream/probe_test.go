package stream

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"aipwatch/sim"
)

// A probe (issue 43 point 4) of a streaming action on the fleet, read by a
// tenant-scoped token: its status reads unknown while it runs, its own log
// holds its chunks, given as chunk events with their sequences; the next
// probe reads on from the cursor (no chunk twice). A settled action's
// probe is its status alone, given as a result event. The same holds
// in-process: a tenant-scoped log hides the same events there, and a
// streaming submission takes the sync path on both deployments.
func TestProbeReadsOnAndSettles(t *testing.T) {
	t.Parallel()
	for _, topo := range []string{sim.TopologyFleet, sim.TopologyInProcess} {
		t.Run(topo, func(t *testing.T) {
			t.Parallel()
			probeReadsOnAndSettles(t, topo)
		})
	}
}

func probeReadsOnAndSettles(t *testing.T, topology string) {
	c := fleetClient(t, sim.FleetKnobs{GlobalEvents: true, Topology: topology, TenantScoped: true},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 4, Mode: sim.ModeStreaming, ActionID: "act_probe_stream"}},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, Mode: sim.ModeStreaming, ActionID: "act_probe_done"}})
	ctx := context.Background()
	seen := map[uint64]bool{}
	cursor := ""
	deadline := time.Now().Add(60 * time.Second)
	for reads := 0; len(seen) == 0 || reads < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("chunks read %d, probes with chunks %d", len(seen), reads)
		}
		p, err := c.Probe(ctx, "act_probe_stream", cursor)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status.State != "unknown" {
			t.Fatalf("a streaming action's status while it runs: %q", p.Status.State)
		}
		if p.Chunks > 0 {
			reads++
		}
		for _, e := range p.Events {
			var d struct {
				ActionID string `json:"action_id"`
				Sequence uint64 `json:"sequence"`
			}
			if e.Kind != "aip.stream.chunk" || json.Unmarshal(e.Data, &d) != nil || d.ActionID != "act_probe_stream" || e.OccurredAt == "" {
				t.Fatalf("event %+v", e)
			}
			if seen[d.Sequence] {
				t.Fatalf("chunk %d read twice", d.Sequence)
			}
			seen[d.Sequence] = true
		}
		cursor = p.Cursor
		time.Sleep(20 * time.Millisecond) // pacing between reads, not an assertion
	}
	p, err := c.Probe(ctx, "act_probe_done", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.State != "completed" || len(p.Events) != 1 || p.Events[0].Kind != "aip.action.result" || p.Chunks != 0 {
		t.Fatalf("a settled probe: %+v", p)
	}
}

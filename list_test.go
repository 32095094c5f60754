package main

import (
	"encoding/json"
	"strings"
	"testing"

	"aipwatch/sim"
)

func startFleet(t *testing.T, k sim.FleetKnobs, members ...sim.Member) *sim.Fleet {
	t.Helper()
	f, err := sim.NewFleet(k, members...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// `aipwatch ls` (contract §7): a table for people, one object per action
// for scripts; a live synchronous action is not in the daemon's list.
func TestListCommand(t *testing.T) {
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_sync"}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async", LeaseExpired: true}},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_dead"}},
	)
	code, out, errOut := runCLI(t, "ls", "--url", f.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ACTION") || strings.Contains(out, "act_live_sync") {
		t.Fatalf("%s", out)
	}
	if !strings.Contains(out, "dead_lettered") || !strings.Contains(out, "hermes_agent:sim:responses_stream") {
		t.Fatalf("%s", out)
	}

	code, out, _ = runCLI(t, "ls", "--url", f.URL(), "--output", "jsonl", "--state", "dead_lettered")
	if code != 0 {
		t.Fatal(code)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &obj); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if obj["type"] != "action" || obj["action_id"] != "act_dead" || obj["result_status"] != "failed" || obj["operation"] != "responses_stream" {
		t.Fatalf("%v", obj)
	}
	if code, _, _ := runCLI(t, "ls", "--url", f.URL(), "extra"); code != 2 {
		t.Fatalf("ls with an argument: exit %d", code)
	}
}

// No ACTION_ID and no terminal: a usage error that says where IDs come from.
func TestNoActionIDPointsToList(t *testing.T) {
	code, _, errOut := runCLI(t, "--output", "plain")
	if code != 2 || !strings.Contains(errOut, "aipwatch ls") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

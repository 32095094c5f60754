package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"aipwatch/sim"
)

// Several actions in plain and jsonl (design §12): each action's lines,
// plain's tagged with its ID, whole,
// one verdict each; the exit code is the first non-verified action's in
// argument order.
func TestSeveralActionsLines(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{ActionID: "act_many_verified_01"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{ActionID: "act_many_failed_02"}},
		sim.Member{Scenario: "chat-length", Knobs: sim.Knobs{ActionID: "act_many_partial_03"}})
	ids := []string{"act_many_verified_01", "act_many_failed_02", "act_many_partial_03"}

	code, out, errOut := runCLI(t, append([]string{"--url", f.URL(), "--output", "plain"}, ids...)...)
	if code != 4 { // chat-error's failed (4) comes before chat-length's partial (3)
		t.Fatalf("exit %d, want 4 (the first non-verified in argument order)\nstderr: %s\n%s", code, errOut, out)
	}
	verdicts := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		tag, rest, ok := strings.Cut(l, "] ")
		if !ok || !strings.HasPrefix(tag, "[") {
			t.Fatalf("an untagged line: %q\n%s", l, out)
		}
		if strings.HasPrefix(rest, "verdict: ") {
			if _, twice := verdicts[tag]; twice {
				t.Fatalf("two verdicts for %s]:\n%s", tag, out)
			}
			verdicts[tag] = strings.Fields(rest)[1]
		}
	}
	want := map[string]string{"[act_many_verified_01": "verified", "[act_many_failed_02": "failed", "[act_many_partial_03": "partial"}
	if fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Fatalf("verdicts by tag %v, want %v\n%s", verdicts, want, out)
	}

	code, out, _ = runCLI(t, "--url", f.URL(), "--output", "jsonl", ids[2], ids[1], ids[0])
	if code != 3 {
		t.Fatalf("exit %d, want 3 (partial, given first)", code)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not one JSON object a line: %q", l)
		}
		if obj["type"] == "verdict" {
			got[fmt.Sprint(obj["action_id"])] = fmt.Sprint(obj["verdict"])
		}
	}
	if got[ids[0]] != "verified" || got[ids[1]] != "failed" || got[ids[2]] != "partial" || len(got) != 3 {
		t.Fatalf("jsonl verdicts %v\n%s", got, out)
	}

	if code, out, _ := runCLI(t, "--url", f.URL(), "--output", "plain", "--appear-timeout", "300ms", ids[0], "act_many_unknown_04"); code == 0 {
		t.Fatalf("an action aipd does not know was verified:\n%s", out)
	}
}

// Every action verified: exit 0. CONTEXT/act_… follows an action of the
// config file's context, beside one of the run's own daemon.
func TestSeveralActionsAcrossContexts(t *testing.T) {
	t.Parallel()
	here := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{ActionID: "act_here_01"}})
	there := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "responses-tools", Knobs: sim.Knobs{ActionID: "act_there_02"}})
	f := newContextFixture(t, fmt.Sprintf("[contexts.west]\nurl = %q\n", there.URL()))
	code, out, errOut := f.run("--url", here.URL(), "--output", "jsonl", "act_here_01", "west/act_there_02")
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\n%s", code, errOut, out)
	}
	if n := strings.Count(out, `"type":"verdict"`); n != 2 {
		t.Fatalf("%d verdicts, want 2:\n%s", n, out)
	}
}

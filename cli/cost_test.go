package cli

import (
	"strings"
	"testing"

	"aipwatch/sim"
)

// Following an action live, then reviewing it once it has settled, gives
// the same usage and timing: both come from the provider's usage and
// aipd's event times, not from when aipwatch read them (design §4).
func TestReviewGivesTheLiveTiming(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"chat-tools", "responses-tools"} {
		srv := startSim(t, scenario, sim.Knobs{Speed: 50})
		_, lout, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
		_, rout, _ := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
		if !strings.Contains(rout, `{"type":"review"}`) {
			t.Fatalf("%s: the second run is no review:\n%s", scenario, rout)
		}
		lv, rv := lastJSON(t, lout), lastJSON(t, rout)
		timing, _ := lv["timing"].(map[string]any)
		if d, _ := timing["duration_ms"].(float64); d <= 0 {
			t.Fatalf("%s: live timing %v: the sim's events carry no times?", scenario, lv["timing"])
		}
		if !equalJSON(map[string]any{"u": lv["usage"], "t": lv["timing"]}, map[string]any{"u": rv["usage"], "t": rv["timing"]}) {
			t.Fatalf("%s: live usage %v timing %v, review usage %v timing %v", scenario, lv["usage"], lv["timing"], rv["usage"], rv["timing"])
		}
	}
	// plain ends with the cost line, then the verdict.
	srv := startSim(t, "chat-tools", sim.Knobs{Finished: true})
	_, out, _ := runCLI(t, "--url", srv.URL(), "--output", "plain", srv.ActionID())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if n := len(lines); n < 2 || !strings.HasPrefix(lines[n-2], "2,052 tokens (1,840 in, 212 out) · first token ") {
		t.Fatalf("plain ends:\n%s", out)
	}
}

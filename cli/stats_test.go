package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/sim"
)

// design §13: stats counts the verdicts exactly as ls --verdict judges the
// same rows (one judge, one rule), per capability; its timings are the
// reviews' (the simulator's history stamps its runs as they went).
func TestStatsAgreesWithListVerdict(t *testing.T) {
	t.Parallel()
	u := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: 60, Events: 600}},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_sync"}}).URL()

	code, lsOut, errOut := runCLI(t, "ls", "--url", u, "--limit", "40", "--verdict", "--output", "jsonl")
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, errOut)
	}
	want := map[string]map[string]int{} // capability -> verdict -> rows
	settled := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(lsOut), "\n") {
		var r struct {
			Capability string `json:"capability_id"`
			State      string `json:"state"`
			Verdict    string `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if !model.TerminalState(r.State) {
			continue
		}
		if want[r.Capability] == nil {
			want[r.Capability] = map[string]int{}
		}
		want[r.Capability][r.Verdict]++
		settled[r.Capability]++
	}
	if len(want) < 2 {
		t.Fatalf("the listing holds %d capabilities:\n%s", len(want), lsOut)
	}

	code, out, errOut := runCLI(t, "stats", "--url", u, "--limit", "40", "--output", "jsonl")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errOut)
	}
	got := map[string]map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			Type       string         `json:"type"`
			Capability string         `json:"capability_id"`
			Actions    int            `json:"actions"`
			Verdicts   map[string]int `json:"verdicts"`
			FirstToken struct {
				P50, P95 *int64
				N        int
			} `json:"first_token_ms"`
			Duration struct {
				P50, P95 *int64
				N        int
			} `json:"duration_ms"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "stats" || s.Actions != settled[s.Capability] {
			t.Errorf("%s: type %q, %d actions; ls lists %d settled", s.Capability, s.Type, s.Actions, settled[s.Capability])
		}
		got[s.Capability] = map[string]int{}
		for w, n := range s.Verdicts {
			if n > 0 {
				got[s.Capability][w] = n
			}
		}
		if s.FirstToken.N == 0 || *s.FirstToken.P50 < 200 || s.Duration.N == 0 || *s.Duration.P95 < 1000 {
			t.Errorf("%s: first token %+v, duration %+v: not the runs' times", s.Capability, s.FirstToken, s.Duration)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stats counts %v\nls --verdict judges %v", got, want)
	}
}

// The table, and a usage error before any request.
func TestStatsTableAndUsage(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "stats", "--demo")
	if code != 0 || !strings.HasPrefix(out, "CAPABILITY ") || !strings.Contains(out, "\nhermes_agent:sim:chat_stream ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{{"--limit", "0"}, {"--since", "-1h"}, {"extra"}} {
		code, out, errOut := runCLI(t, append([]string{"stats", "--url", "http://127.0.0.1:1"}, args...)...)
		if code != model.ExitUsage || out != "" || errOut == "" {
			t.Errorf("%v: exit %d %q %q", args, code, out, errOut)
		}
	}
}

// design §13, §7: stats judges at most the 100 most recent settled actions
// without --limit, whatever its span holds (a review each: the reviews the
// daemon served are counted), and says on stderr how many of the span it
// left unjudged and the --limit that would judge them; --limit N judges N.
func TestStatsJudgesAtMostItsLimit(t *testing.T) {
	t.Parallel()
	const history = 300 // 30 s apart on the simulator: 2.5 h, inside 24h
	f := startFleet(t, sim.FleetKnobs{History: sim.History{Actions: history, Events: 3 * history}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async"}})
	const bound = 100 // design §13: as ls prints 100 rows
	for _, c := range []struct {
		name   string
		args   []string
		judged int
	}{
		{"since", []string{"--since", "24h"}, bound},
		{"since-limit", []string{"--since", "24h", "--limit", "120"}, 120},
		{"default", nil, bound - 1}, // the 100 most recent rows, one of them live
	} {
		// Each case counts the reviews through a door of its own, so the
		// three read the one daemon side by side.
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newJudgeReads(t, f.URL())
			stop := make(chan struct{})
			defer close(stop)
			go func() { // no wait at the door: only the count matters here
				for {
					select {
					case p.gate <- struct{}{}:
					case <-stop:
						return
					}
				}
			}()
			args := append([]string{"stats", "--url", p.srv.URL, "--output", "jsonl"}, c.args...)
			code, out, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
			}
			p.mu.Lock()
			reviews := len(p.read)
			p.mu.Unlock()
			actions := 0
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var s struct{ Actions int }
				if err := json.Unmarshal([]byte(l), &s); err != nil {
					t.Fatal(err)
				}
				actions += s.Actions
			}
			if reviews != c.judged || actions != c.judged {
				t.Errorf("%v: %d reviews served, %d actions counted; want %d", c.args, reviews, actions, c.judged)
			}
			if len(c.args) > 0 {
				rest := history - c.judged
				if want := fmt.Sprintf("%d more in it not judged (all of them: --limit %d)", rest, history); !strings.Contains(errOut, want) {
					t.Errorf("%v: stderr %q, want %q", c.args, errOut, want)
				}
			} else if !strings.Contains(errOut, "among the "+strconv.Itoa(bound)+" most recent rows") {
				t.Errorf("stderr %q does not say the list holds more", errOut)
			}
		})
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"

	"aipwatch/sim"
	"aipwatch/stream"
)

// gogc is the GC percent in force.
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestModeRuntimeSettings: a line mode sets GOMAXPROCS to 1 and puts the
// GC floor in force (GOGC above 100 while the heap is small) as main
// wires it, each unless its variable is set; the TUI's settings are the
// floor alone; other commands leave both alone. Each case runs in a fresh
// process of this test binary, as main would: the settings are
// process-wide. The TUI needs a terminal, so its case calls the settings
// it is given (runMode is where they are called, for both).
func TestModeRuntimeSettings(t *testing.T) {
	if args := os.Getenv("AIPWATCH_PROCS_CHILD"); args != "" {
		before := runtime.GOMAXPROCS(0)
		modeRuntime = modeSettings
		if args == "tui" {
			modeRuntime(true)
		} else {
			run(strings.Split(args, "\x1f"), strings.NewReader(""), os.Stdout, os.Stdout, noEnv)
		}
		fmt.Printf("\nprocs %d -> %d gogc %d\n", before, runtime.GOMAXPROCS(0), gogc())
		os.Exit(0)
	}
	srv := startSim(t, "chat-tools", sim.Knobs{})
	floored := func(p int) bool { return p > 100 }
	for _, tc := range []struct {
		name, env string
		args      []string
		want      func(before int) int
		wantGC    func(int) bool
	}{
		{"jsonl", "", []string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, func(int) int { return 1 }, floored},
		{"plain", "", []string{"--url", srv.URL(), "--output", "plain", srv.ActionID()}, func(int) int { return 1 }, floored},
		{"jsonl, GOMAXPROCS set", "GOMAXPROCS=2", []string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, func(int) int { return 2 }, floored},
		{"jsonl, GOGC set", "GOGC=150", []string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, func(int) int { return 1 }, func(p int) bool { return p == 150 }},
		{"version", "", []string{"--version"}, func(before int) int { return before }, func(p int) bool { return p == 100 }},
		{"tui", "", []string{"tui"}, func(before int) int { return before }, floored},
		{"tui, GOGC set", "GOGC=150", []string{"tui"}, func(before int) int { return before }, func(p int) bool { return p == 150 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestModeRuntimeSettings$")
			cmd.Env = append(os.Environ(), "AIPWATCH_PROCS_CHILD="+strings.Join(tc.args, "\x1f"))
			// Empty: not set, as far as the run can tell.
			cmd.Env = append(cmd.Env, "GOMAXPROCS=", "GOGC=")
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			out, err := cmd.CombinedOutput()
			var before, after, pct int
			i := strings.LastIndex(string(out), "procs ")
			if err != nil || i < 0 {
				t.Fatalf("%v\n%s", err, out)
			}
			if _, err := fmt.Sscanf(string(out[i:]), "procs %d -> %d gogc %d", &before, &after, &pct); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if want := tc.want(before); after != want {
				t.Fatalf("GOMAXPROCS %d -> %d, want %d\n%s", before, after, want, out)
			}
			if !tc.wantGC(pct) {
				t.Fatalf("GOGC %d after the run\n%s", pct, out)
			}
		})
	}
}

// runMode gives the TUI its settings (the floor alone) and a line mode
// its own, through modeRuntime, before the run starts.
func TestRunModeCallsItsSettings(t *testing.T) {
	defer func(f func(bool)) { modeRuntime = f }(modeRuntime)
	var got []bool
	modeRuntime = func(tui bool) { got = append(got, tui) }
	o, _, err := parse([]string{"act_x"}, &bytes.Buffer{}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.getenv = noEnv
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run ends at once: only the settings are looked at
	var out bytes.Buffer
	runMode(ctx, o, "tui", idleRunner{}, strings.NewReader(""), &out, &out, false)
	runMode(ctx, o, "jsonl", idleRunner{}, strings.NewReader(""), &out, &out, false)
	if !slices.Equal(got, []bool{true, false}) {
		t.Fatalf("settings called with %v, want [true false]", got)
	}
}

// idleRunner is a run that ends with its context.
type idleRunner struct{}

func (idleRunner) Run(ctx context.Context, _ stream.Sink) error    { <-ctx.Done(); return ctx.Err() }
func (idleRunner) Cancel(context.Context, string) stream.CancelMsg { return stream.CancelMsg{} }

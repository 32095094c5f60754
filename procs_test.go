package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"aipwatch/sim"
)

// TestLineModesRunOnOneProcessor: a line mode sets GOMAXPROCS to 1 as
// main wires it, unless GOMAXPROCS is set, and other commands leave it
// alone. Each case runs in a fresh process of this test binary, as main
// would: the setting is process-wide.
func TestLineModesRunOnOneProcessor(t *testing.T) {
	if args := os.Getenv("AIPWATCH_PROCS_CHILD"); args != "" {
		before := runtime.GOMAXPROCS(0)
		lineModeProcs = oneProcUnlessSet
		run(strings.Split(args, "\x1f"), strings.NewReader(""), os.Stdout, os.Stdout, noEnv)
		fmt.Printf("\nprocs %d -> %d\n", before, runtime.GOMAXPROCS(0))
		os.Exit(0)
	}
	srv := startSim(t, "chat-tools", sim.Knobs{})
	for _, tc := range []struct {
		name, env string
		args      []string
		want      func(before int) int
	}{
		{"jsonl", "", []string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, func(int) int { return 1 }},
		{"plain", "", []string{"--url", srv.URL(), "--output", "plain", srv.ActionID()}, func(int) int { return 1 }},
		{"jsonl, GOMAXPROCS set", "GOMAXPROCS=2", []string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, func(int) int { return 2 }},
		{"version", "", []string{"--version"}, func(before int) int { return before }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLineModesRunOnOneProcessor$")
			cmd.Env = append(os.Environ(), "AIPWATCH_PROCS_CHILD="+strings.Join(tc.args, "\x1f"))
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			} else {
				cmd.Env = append(cmd.Env, "GOMAXPROCS=") // empty: not set, as far as the run can tell
			}
			out, err := cmd.CombinedOutput()
			var before, after int
			i := strings.LastIndex(string(out), "procs ")
			if err != nil || i < 0 {
				t.Fatalf("%v\n%s", err, out)
			}
			if _, err := fmt.Sscanf(string(out[i:]), "procs %d -> %d", &before, &after); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if want := tc.want(before); after != want {
				t.Fatalf("GOMAXPROCS %d -> %d, want %d\n%s", before, after, want, out)
			}
		})
	}
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

// One action named two ways (a/act_x, and act_x while a is the current
// context) is one action: a usage error, not two panes or two tags of the
// same stream (issue 46 item 6). The same ID on another daemon is another
// action.
func TestSameActionNamedTwoWays(t *testing.T) {
	t.Parallel()
	here := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{ActionID: "act_named_01"}})
	f := newContextFixture(t, fmt.Sprintf("current = \"a\"\n[contexts.a]\nurl = %q\n[contexts.b]\nurl = %q\n", here.URL(), here.URL()+"/"))
	for _, args := range [][]string{{"a/act_named_01", "act_named_01"}, {"act_named_01", "a/act_named_01"},
		{"a/act_named_01", "b/act_named_01"}, {"--url", here.URL(), "act_named_01", "a/act_named_01"}} {
		code, out, errOut := f.run(append([]string{"--output", "plain"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "are the same action") {
			t.Errorf("%v: exit %d, want 2 (the same action)\n%s%s", args, code, out, errOut)
		}
	}
}

// The same ID on two contexts reads as two actions in every output (issue
// 46 items 10, 11): plain's tags are CONTEXT/ID, whole, and each verdict
// line carries its own; every jsonl object carries its "context"; a bare
// ID beside a CONTEXT/ID is named by the run's own context.
func TestSameIDOnTwoContexts(t *testing.T) {
	t.Parallel()
	east := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{ActionID: "act_twice_01"}})
	west := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{ActionID: "act_twice_01"}})
	f := newContextFixture(t, fmt.Sprintf("current = \"east\"\n[contexts.east]\nurl = %q\n[contexts.west]\nurl = %q\n", east.URL(), west.URL()))

	for _, first := range []string{"east/act_twice_01", "act_twice_01"} {
		code, out, errOut := f.run("--output", "plain", first, "west/act_twice_01")
		if code != 4 {
			t.Fatalf("%s: exit %d, want 4 (west's failed)\nstderr: %s\n%s", first, code, errOut, out)
		}
		verdicts := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if tag, rest, ok := strings.Cut(l, "] verdict: "); ok {
				verdicts[tag+"]"] = strings.Fields(rest)[0]
			}
		}
		want := map[string]string{"[east/act_twice_01]": "verified", "[west/act_twice_01]": "failed"}
		if fmt.Sprint(verdicts) != fmt.Sprint(want) {
			t.Fatalf("%s: verdicts by tag %v, want %v\n%s", first, verdicts, want, out)
		}
	}

	code, out, errOut := f.run("--output", "jsonl", "act_twice_01", "west/act_twice_01")
	if code != 4 {
		t.Fatalf("jsonl: exit %d\nstderr: %s\n%s", code, errOut, out)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not one JSON object a line: %q", l)
		}
		ctx, ok := obj["context"].(string)
		if !ok || (ctx != "east" && ctx != "west") {
			t.Fatalf("an object without its context: %q", l)
		}
		if obj["type"] == "verdict" {
			got[ctx] = fmt.Sprint(obj["verdict"])
		}
	}
	if got["east"] != "verified" || got["west"] != "failed" {
		t.Fatalf("jsonl verdicts by context %v\n%s", got, out)
	}

	// One action with no context named: no "context" key, as before.
	if _, out, _ := f.run("--url", east.URL(), "--output", "jsonl", "act_twice_01"); strings.Contains(out, `"context"`) {
		t.Fatalf("a run that named no context carries one:\n%s", out)
	}
	// --context names one: every object carries it.
	if _, out, _ := f.run("--context", "west", "--output", "jsonl", "act_twice_01"); strings.Count(out, `"context":"west"`) != strings.Count(out, "\n") {
		t.Fatalf("--context west: not every object carries it:\n%s", out)
	}

	// One action's plain lines carry no tag: the first line names it,
	// CONTEXT/ID, when the run named a context (a word or --context), and
	// the verdict line keeps its form; a run that named none says nothing.
	for _, args := range [][]string{{"west/act_twice_01"}, {"--context", "west", "act_twice_01"}} {
		code, out, errOut := f.run(append([]string{"--output", "plain"}, args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 4 || lines[0] != "action: west/act_twice_01" || !strings.HasPrefix(lines[len(lines)-1], "verdict: failed (") {
			t.Fatalf("%v: exit %d, want 4, the first line naming west/act_twice_01\nstderr: %s\n%s", args, code, errOut, out)
		}
	}
	if _, out, _ := f.run("--url", east.URL(), "--output", "plain", "act_twice_01"); strings.Contains(out, "action: ") {
		t.Fatalf("a run that named no context names one:\n%s", out)
	}
}

// The TUI of one action the run named with a context leaves closing lines
// that name it first, "action: CONTEXT/ID", as plain's first line does
// (issue 46 item 10): the verdict line keeps its form.
func TestOneActionOnAContextClosingLinesNameIt(t *testing.T) {
	t.Parallel()
	west := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{ActionID: "act_tui_named_01", Finished: true}})
	f := newContextFixture(t, fmt.Sprintf("[contexts.west]\nurl = %q\n", west.URL()))
	in, keys := io.Pipe()
	defer keys.Close()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run([]string{"--output", "tui", "west/act_tui_named_01"}, in, &out, &errb, f.getenv, testKeys())
	}()
	if _, err := keys.Write([]byte("\x1b[48;40;160;0;0t")); err != nil { // the terminal's size, in band
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "act_tui_named_01 · failed") { // the window title: settled
		if time.Now().After(deadline) {
			t.Fatalf("no verdict drawn:\n%q\n%s", out.String(), errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the live view did not quit on q")
	}
	s := out.String()
	closing := s[strings.LastIndex(s, "\x1b[?1049l"):]
	i := strings.Index(closing, "action: ")
	if code != 4 || i < 0 {
		t.Fatalf("exit %d (want 4), closing lines:\n%q\n%s", code, closing, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(closing[i:], "\n"), "\n")
	if lines[0] != "action: west/act_tui_named_01" || !strings.HasPrefix(lines[len(lines)-1], "verdict: failed (") {
		t.Fatalf("closing lines:\n%s", closing[i:])
	}
}

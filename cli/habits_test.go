package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"aipwatch/sim"
)

// The habits of kubectl and gh (issue 46 item 16): -o for --output, -A for
// --all-contexts, --no-headers, no header row into a pipe, and a mistyped
// flag names the nearest.
func TestListHabits(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{}, sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_habit_01"}})

	code, out, errOut := runCLI(t, "ls", "--url", f.URL(), "-o", "jsonl")
	var obj map[string]any
	if code != 0 || json.Unmarshal([]byte(strings.TrimSpace(out)), &obj) != nil || obj["action_id"] != "act_habit_01" {
		t.Fatalf("-o jsonl: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "ls", "-A", "--url", f.URL()); code != 2 || !strings.Contains(errOut, "--all-contexts takes each context's own --url") {
		t.Fatalf("-A is not --all-contexts: exit %d\n%s", code, errOut)
	}
	if _, out, _ := runCLI(t, "ls", "--url", f.URL()); !strings.HasPrefix(out, "ACTION ") {
		t.Fatalf("a table for people has its header:\n%s", out)
	}
	if code, out, _ := runCLI(t, "ls", "--url", f.URL(), "--no-headers"); code != 0 || !strings.HasPrefix(out, "act_habit_01 ") {
		t.Fatalf("--no-headers: exit %d\n%s", code, out)
	}

	// Into a pipe: rows only, so that the first word of a line is an ID.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	var errb bytes.Buffer
	code = Run([]string{"ls", "--url", f.URL()}, strings.NewReader(""), w, &errb, noEnv, testKeys())
	w.Close()
	if out := <-read; code != 0 || !strings.HasPrefix(out, "act_habit_01 ") {
		t.Fatalf("into a pipe: exit %d, %q\n%s", code, out, errb.String())
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", "--stat", "running"}, "did you mean --state?"},
		{[]string{"ls", "--capabilty", "x"}, "did you mean --capability?"},
		{[]string{"--cursr", "x", "act_1"}, "did you mean --cursor?"},
		{[]string{"ls", "--no-header"}, "did you mean --no-headers?"},
		{[]string{"ls", "--outptu", "jsonl"}, "did you mean --output?"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q lacks %q", c.args, code, errOut, c.want)
		}
	}
	if code, _, errOut := runCLI(t, "ls", "--zzzzzz"); code != 2 || strings.Contains(errOut, "did you mean") {
		t.Errorf("a flag near none: exit %d, %q", code, errOut)
	}
	// -o jsonl asks for jsonl: a usage error is its error object.
	if code, out, _ := runCLI(t, "ls", "-o", "jsonl", "--stat", "x"); code != 2 || !strings.HasPrefix(out, `{"type":"error"`) {
		t.Errorf("-o jsonl usage error: exit %d, %q", code, out)
	}
}

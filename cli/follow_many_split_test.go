package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

// The split view (design §12) from the command: once both actions have
// settled and q detaches, each action's closing lines come after the alt
// screen, every one tagged with its action's, and the exit code is the
// first non-verified action's in argument order.
func TestSeveralActionsSplitViewClosingLines(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{ActionID: "act_split_ok_01", Finished: true}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{ActionID: "act_split_bad_02", Finished: true}})
	in, keys := io.Pipe()
	defer keys.Close()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run([]string{"--url", f.URL(), "--output", "tui", "act_split_ok_01", "act_split_bad_02"}, in, &out, &errb, noEnv, testKeys())
	}()
	// A pipe has no size: the terminal's in-band resize report gives one.
	// The window title is the focused pane's: the first's verdict, then,
	// the focus moved on (ctrl+w), the second's.
	if _, err := keys.Write([]byte("\x1b[48;40;160;0;0t")); err != nil {
		t.Fatal(err)
	}
	waitFor := func(title string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(out.String(), title) {
			if time.Now().After(deadline) {
				t.Fatalf("no title %q:\n%q\n%s", title, out.String(), errb.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("act_split_ok_01 · verified")
	if _, err := keys.Write([]byte("\x17")); err != nil {
		t.Fatal(err)
	}
	waitFor("act_split_bad_02 · failed")
	if _, err := keys.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the split view did not quit on q")
	}
	if code != 4 || errb.String() != "" {
		t.Fatalf("exit %d (want 4, the failed one), stderr %q", code, errb.String())
	}
	s := out.String()
	closing := s[strings.LastIndex(s, "\x1b[?1049l"):]
	closing = closing[strings.Index(closing, "[act_split_ok_01] "):] // past the terminal's restoring sequences
	for _, l := range strings.Split(strings.TrimSuffix(closing, "\n"), "\n") {
		if !strings.HasPrefix(l, "[act_split_ok_01] ") && !strings.HasPrefix(l, "[act_split_bad_02] ") {
			t.Errorf("an untagged closing line: %q", l)
		}
	}
	if !strings.Contains(closing, "[act_split_ok_01] verdict: verified") || !strings.Contains(closing, "[act_split_bad_02] verdict: failed") {
		t.Fatalf("closing lines:\n%s", closing)
	}
}

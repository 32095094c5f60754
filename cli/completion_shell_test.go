package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/sim"
)

// completeRaw is the whole answer of a completion request, as a shell's
// script reads it (every line but the directive).
func completeRaw(t *testing.T, getenv func(string) string, args ...string) string {
	t.Helper()
	code, out, errOut := runWith(getenv, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d %s", args, code, errOut)
	}
	i := strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")
	if i < 0 {
		return ""
	}
	return out[:i+1]
}

// design §11: a shell inserts what its candidates share unquoted, so a
// daemon that lists act_x;touch ~/PWNED;#1 and …#2 would put a command of
// its choice on the user's line. Only IDs of AIP's characters (letters,
// digits, '_', '-') are offered.
func TestCompletionOffersOnlyIDsOfAIPCharacters(t *testing.T) {
	t.Parallel()
	hostile := []string{"act_x;touch ~/PWNED;#1", "act_x;touch ~/PWNED;#2", "act_$(id)", "act_a b", "act_`id`",
		"act_q'uote", "act_x\x1b]0;t\a", "act_tab\tdesc\x1b[31m", "act_nl\nact_evil", "act_é"}
	members := []sim.Member{{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_good-1_Z9"}}}
	for _, id := range hostile {
		members = append(members, sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: id}})
	}
	f := startFleet(t, sim.FleetKnobs{}, members...)
	getenv, _ := stateEnv(t)
	raw := completeRaw(t, getenv, "--url", f.URL(), "act_")
	if raw != "act_good-1_Z9\n" {
		t.Fatalf("answer %q, want the one ID of AIP's characters", raw)
	}
}

// design §11: each candidate is at most 128 bytes and the IDs offered at
// most 16 KiB in all: a listed ID of 200,000 characters is not written,
// and many long ones stop at the bound (the tree's own commands come on
// top).
func TestCompletionIsBounded(t *testing.T) {
	t.Parallel()
	members := []sim.Member{
		{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_" + strings.Repeat("a", 200_000)}},
		{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_" + strings.Repeat("b", 124)}}, // 128 bytes
		{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_" + strings.Repeat("c", 125)}}, // 129 bytes
	}
	f := startFleet(t, sim.FleetKnobs{}, members...)
	getenv, path := stateEnv(t)
	// The journal offers the rest: 400 IDs of 120 bytes, 48 KB in all.
	var lines strings.Builder
	for i := range 400 {
		id := "act_" + strings.Repeat("j", 112) + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + strings.Repeat("0", 2)
		lines.WriteString(`{"kind":"submit","action_id":"` + id + `","base_url":"` + f.URL() + `"}` + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var words []string
	ids := 0
	for _, w := range strings.Split(strings.TrimSuffix(completeRaw(t, getenv, "--url", f.URL(), ""), "\n"), "\n") {
		if len(w) > 128 {
			t.Fatalf("a candidate of %d bytes", len(w))
		}
		if strings.HasPrefix(w, "act_") {
			words = append(words, w)
			ids += len(w) + 1
		}
	}
	if ids > 16*1024 {
		t.Fatalf("IDs of %d bytes, over 16 KiB", ids)
	}
	if !has(words, "act_"+strings.Repeat("b", 124)) || len(words) < 100 {
		t.Fatalf("%d candidates; the 128-byte ID offered: %v", len(words), has(words, "act_"+strings.Repeat("b", 124)))
	}
}

// A completion request with a word cobra cannot parse (an unknown flag)
// has cobra write that word into a debug line on the process's stderr,
// and into $BASH_COMP_DEBUG_FILE, itself: the words it is given are
// safe.Line'd first, so no ESC, BEL, C1 or bidi control reaches either.
// Not parallel: it sets the process's environment.
func TestCompletionDebugLineIsSanitised(t *testing.T) {
	debug := filepath.Join(t.TempDir(), "debug")
	t.Setenv("BASH_COMP_DEBUG_FILE", debug)
	word := "--bad\x1b]0;owned\a\u009b31m\u202eX"
	code, _, errOut := runWith(noEnv, "__complete", "ls", word, "")
	if code != 0 {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	b, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "unknown flag: --bad") {
		t.Fatalf("no debug line of the unknown flag: %q", b)
	}
	for _, bad := range []string{"\x1b", "\a", "\u009b", "\u202e"} {
		if strings.Contains(string(b)+errOut, bad) {
			t.Fatalf("%q reaches the debug line: %q %q", bad, b, errOut)
		}
	}
}

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/sim"
)

// completeRaw is the whole answer of a completion request, as a shell's
// script reads it (every line but the directive).
func completeRaw(t *testing.T, getenv func(string) string, args ...string) string {
	t.Helper()
	code, out, errOut := runPatient(getenv, append([]string{"__complete"}, args...)...)
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

// The bash script works without the bash-completion package (minimal
// images lack it): cobra's reads the line's words with that package's
// _get_comp_words_by_ref, and every Tab failed. Run in a bash without it,
// with aipwatch a function that answers as the binary would.
func TestBashCompletionWithoutTheBashCompletionPackage(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	code, script, errOut := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "aipwatch.bash")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	test := `source "$1"
log=$2
declare -F _get_comp_words_by_ref >/dev/null && { echo "bash-completion is loaded"; exit 1; }
aipwatch() { printf '%s|' "$@" >>"$log"; printf 'submit\n:4\n'; }
complete_line() {
	COMP_LINE=$1; COMP_POINT=${#COMP_LINE}; COMP_WORDS=($1); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	[[ $1 == *" " ]] && { COMP_WORDS+=(""); COMP_CWORD=$((COMP_CWORD + 1)); }
	__start_aipwatch 2>/dev/null
	echo "[${COMPREPLY[*]}]"
}
complete_line "aipwatch su"
complete_line "aipwatch --context prod "
`
	log := filepath.Join(dir, "calls")
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", test, "bash", path, log)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	calls, _ := os.ReadFile(log)
	if string(out) != "[submit]\n[submit]\n" || string(calls) != "__complete|su|__complete|--context|prod||" {
		t.Fatalf("completions %q, requests %q", out, calls)
	}
}

package cli

import (
	"strings"
	"testing"
	"time"
)

// design §7, §13: when the listing's bound for judging runs out, the rows
// not judged are named on stderr, under the command that listed them:
// ls --verdict, and stats (which judges as ls --verdict does).
func TestRowsNotJudgedAreNamedByTheirCommand(t *testing.T) {
	defer func(d time.Duration) { listingBound = d }(listingBound)
	listingBound = time.Nanosecond // over before the first row is judged
	for _, cmd := range []string{"ls", "stats"} {
		args := []string{cmd, "--demo"}
		if cmd == "ls" {
			args = append(args, "--verdict")
		}
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", cmd, code, out, errOut)
		}
		want := "aipwatch " + cmd + ": "
		if !strings.Contains(errOut, want) || !strings.Contains(errOut, "rows not judged within the listing's bound") ||
			!strings.Contains(errOut, "act_sim_console_done_chat_error") {
			t.Errorf("%s: stderr does not name the rows not judged under %q:\n%s", cmd, want, errOut)
		}
		// stats counts them as ls --verdict says them: not_judged, not
		// unknown (which is a read that failed).
		if cmd == "stats" && (!strings.Contains(out, " not_judged") || strings.Contains(out, " unknown")) {
			t.Errorf("stats: the rows not judged are not counted not_judged:\n%s", out)
		}
	}
	code, out, errOut := runCLI(t, "stats", "--demo", "--output", "jsonl")
	if code != 0 || !strings.Contains(out, `"unknown":0,"not_judged":`) || strings.Contains(out, `"not_judged":0`) {
		t.Errorf("stats jsonl: exit %d\n%s\n%s", code, out, errOut)
	}
}

package cli

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// design §7: --since takes a span above zero. `--since 0` names no span:
// it is a usage error before any request, not a listing of the default
// 100 rows as if --since were not given (a negative span is refused in
// TestListFlagMistakes; zero is the boundary).
func TestSinceZeroIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"ls", "stats"} {
		for _, since := range []string{"0", "0s"} {
			code, out, errOut := runCLI(t, cmd, "--url", "http://127.0.0.1:1", "--since", since)
			if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "--since takes a duration above 0") {
				t.Errorf("%s --since %s: exit %d, stdout %q, stderr %q", cmd, since, code, out, errOut)
			}
		}
	}
}

// design §9: ls --all-contexts reads the config file's daemons; with
// --demo it is a usage error before any daemon is started or read, not
// one or the other silently.
func TestListAllContextsRefusesADemo(t *testing.T) {
	t.Parallel()
	for _, demo := range []string{"--demo", "--demo=console"} {
		code, out, errOut := runCLI(t, "ls", "--all-contexts", demo)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "--all-contexts reads the config file's daemons, not a --demo") {
			t.Errorf("ls --all-contexts %s: exit %d, stdout %q, stderr %q", demo, code, out, errOut)
		}
	}
}

package cli

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// An unknown --demo scenario is a usage error that names every scenario the
// root takes: the simulator's and the console's two (console, fleet), as
// --help lists them.
func TestUnknownDemoNamesEveryScenario(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "--demo=nope")
	wantExit(t, code, model.ExitUsage, out, errOut)
	for _, want := range []string{`unknown demo scenario "nope"`, "chat-tools", "console", "fleet"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the usage error does not name %q:\n%s", want, errOut)
		}
	}
}

// A usage error offers only what the command takes: stats has no --all.
func TestLimitZeroOffersWhatTheCommandTakes(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{"ls": "--all", "stats": "--since"} {
		code, out, errOut := runCLI(t, cmd, "--limit", "0")
		wantExit(t, code, model.ExitUsage, out, errOut)
		if !strings.Contains(errOut, want) || (cmd == "stats" && strings.Contains(errOut, "--all")) {
			t.Errorf("%s --limit 0: %q, want a hint of %s only", cmd, errOut, want)
		}
	}
}

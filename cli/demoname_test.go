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
	code, out, errOut := runCLI(t, "--demo=nope")
	wantExit(t, code, model.ExitUsage, out, errOut)
	for _, want := range []string{`unknown demo scenario "nope"`, "chat-tools", "console", "fleet"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the usage error does not name %q:\n%s", want, errOut)
		}
	}
}

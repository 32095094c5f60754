package cli

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
)

// Every command's --help fits 80 columns and ends with two or three
// examples (design §11).
func TestEveryCommandsHelp(t *testing.T) {
	t.Parallel()
	var paths [][]string
	everyCommand(newRoot(&runEnv{getenv: noEnv}), func(c *cobra.Command) {
		if c.IsAvailableCommand() || !c.HasParent() || c.Name() == "help" {
			paths = append(paths, strings.Fields(c.CommandPath())[1:])
		}
	})
	if len(paths) < 8 {
		t.Fatalf("only %d commands: %v", len(paths), paths)
	}
	for _, p := range paths {
		code, out, errOut := runCLI(t, append(p, "--help")...)
		name := strings.Join(append([]string{"aipwatch"}, p...), " ")
		if code != 0 || errOut != "" {
			t.Errorf("%s --help: exit %d %s", name, code, errOut)
		}
		for _, bad := range []string{" STRING ", " INT ", " string ", "[=true|false]"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s --help names a type: %q", name, bad)
			}
		}
		for i, l := range strings.Split(out, "\n") {
			if n := ansi.StringWidth(l); n > 80 {
				t.Errorf("%s --help line %d is %d columns: %q", name, i+1, n, l)
			}
		}
		i := strings.LastIndex(out, "\nExamples:\n")
		if i < 0 {
			t.Errorf("%s --help has no examples:\n%s", name, out)
			continue
		}
		examples := 0
		for _, l := range strings.Split(strings.TrimSpace(out[i+len("\nExamples:\n"):]), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "aipwatch ") || strings.HasPrefix(strings.TrimSpace(l), "source <(aipwatch") {
				examples++
			}
		}
		if examples < 2 || examples > 3 {
			t.Errorf("%s --help ends with %d examples:\n%s", name, examples, out[i:])
		}
	}
}

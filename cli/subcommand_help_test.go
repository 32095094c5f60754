package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every subcommand's --help is the root's format: 80 columns, no pflag
// type names, and only the flags it takes; --version prints the version
// without connecting (the URL below answers nothing).
func TestSubcommandHelpAndVersion(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"ls", "submit", "reconcile"} {
		code, out, errOut := runCLI(t, sub, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--url URL") {
			t.Fatalf("%s --help: exit %d\n%s\n%s", sub, code, out, errOut)
		}
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s --help line %d is %d columns: %q", sub, i+1, n, l)
			}
		}
		for _, bad := range []string{" string ", " int ", "[=true|false]"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s --help contains %q", sub, bad)
			}
		}
		code, out, errOut = runCLI(t, sub, "--version", "--url", "http://127.0.0.1:1")
		if code != 0 || !strings.HasPrefix(out, "aipwatch ") || errOut != "" {
			t.Errorf("%s --version: exit %d\n%s\n%s", sub, code, out, errOut)
		}
	}
	if _, out, _ := runCLI(t, "reconcile", "--help"); strings.Contains(out, "--replay") || strings.Contains(out, "--cancel") {
		t.Errorf("reconcile --help offers flags it refuses:\n%s", out)
	}
}

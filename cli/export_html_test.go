package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --export picks the format by the name's extension (design §16): .html
// the self-contained report, anything else Markdown.
func TestExportPicksTheFormatByExtension(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"turn.html", "turn.md"} {
		path := filepath.Join(dir, name)
		if code, _, errOut := runCLI(t, "--demo=chat-tools", "--output", "plain", "--export", path); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		isHTML := strings.HasPrefix(string(got), "<!DOCTYPE html>") && strings.Contains(string(got), "<svg")
		if isHTML != strings.HasSuffix(name, ".html") {
			t.Errorf("%s: HTML %v:\n%.200s", name, isHTML, got)
		}
		if !strings.Contains(string(got), "look at the project layout") {
			t.Errorf("%s lacks the transcript", name)
		}
	}
}

// Command aipwatch-docs writes the generated part of aipwatch's reference
// docs (make docs): docs/commands/*.md, one page a command with exactly what
// its --help prints, from the command tree every invocation runs (cli.Tree),
// and docs/keys.md, every key binding and help text, read from keymap.go
// (internal/keysrc). Like cmd/aipwatch-man it is not part of the shipped
// binary. main_test.go regenerates both and fails when the committed files
// differ, so they cannot drift from the code.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: aipwatch-docs REPO_ROOT DOCS_DIR  (make docs)")
		os.Exit(2)
	}
	files, err := generate(filepath.Join(os.Args[1], "keymap.go"))
	if err == nil {
		err = write(os.Args[2], files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "aipwatch-docs:", err)
		os.Exit(1)
	}
}

// generate returns every generated file, by its path under the docs folder.
func generate(keymapPath string) (map[string][]byte, error) {
	files, err := commandPages()
	if err != nil {
		return nil, err
	}
	keys, err := keysPage(keymapPath)
	if err != nil {
		return nil, err
	}
	files["keys.md"] = keys
	return files, nil
}

// write puts files under dir, and removes a command page that no command
// has any more (a renamed or removed command leaves no stale page).
func write(dir string, files map[string][]byte) error {
	old, _ := filepath.Glob(filepath.Join(dir, commandsDir, "*.md"))
	for _, p := range old {
		rel, _ := filepath.Rel(dir, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"os"
	"path/filepath"
)

// generate returns every generated file of the docs, by its path under the
// docs folder.
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

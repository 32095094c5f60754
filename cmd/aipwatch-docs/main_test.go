package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The committed reference is what the code generates now: a flag, a help
// text, a command or a key changed without `make docs` fails here.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	files, err := generate("../../keymap.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := write(dir, files); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("../../docs", filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("docs/%s is missing: run make docs and commit it", name)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("docs/%s is stale: run make docs and commit it", name)
		}
	}
	committed, _ := filepath.Glob(filepath.Join("../../docs", commandsDir, "*.md"))
	for _, p := range committed {
		rel, _ := filepath.Rel("../../docs", p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			t.Errorf("docs/%s documents no command of the tree: run make docs", filepath.ToSlash(rel))
		}
	}
	if len(committed) < 2 {
		t.Errorf("docs/%s holds %d pages: the comparison compared nothing", commandsDir, len(committed))
	}
}

// write removes a page no command has any more, so make docs leaves no
// stale page behind.
func TestWriteRemovesAPageOfNoCommand(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, commandsDir, "aipwatch_gone.md")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(dir, map[string][]byte{commandsDir + "/aipwatch.md": []byte("new")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the page of a removed command is still there (%v)", err)
	}
}

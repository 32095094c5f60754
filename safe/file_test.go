package safe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Private files (contract §5: records and exports): written with mode
// 0600, an existing file tightened to it and truncated, a symlink or a
// directory refused, the link's target untouched.
func TestWritePrivate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.md")
	if err := WritePrivate(p, []byte("first version")); err != nil {
		t.Fatal(err)
	}
	check := func(path, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || string(b) != want || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %q, %v (%v %v), want %q at 0600", path, b, fi.Mode(), err, serr, want)
		}
	}
	check(p, "first version")

	old := filepath.Join(dir, "old.md")
	if err := os.WriteFile(old, []byte("a longer earlier content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(old, []byte("short")); err != nil {
		t.Fatal(err)
	}
	check(old, "short")

	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(link, []byte("planted")); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if err := WritePrivate(dir, []byte("x")); err == nil {
		t.Fatal("a directory was written")
	}
	if f, err := OpenPrivate(dir, os.O_RDONLY); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		if f != nil {
			f.Close()
		}
		t.Fatalf("directory: %v", err)
	}
	f, err := OpenPrivate(filepath.Join(dir, "append.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil || f == nil {
		t.Fatalf("open: %v", err)
	}
	f.Close()
}

package safe

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Private files (design §5: records and exports): written with mode
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

// A FIFO, a hard link or a device where a private file is expected is
// refused at once: the open never blocks (a FIFO with no writer or reader
// hung submit, ls and the console), and a hard link is neither written,
// truncated nor chmod-ed through (it would change the file it links to).
func TestPrivateRefusesFIFOAndHardLink(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 3)
	go func() {
		f, err := OpenPrivate(fifo, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	go func() {
		f, err := OpenPrivateRead(fifo)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	go func() { _, _, err := LimitedReadPrivate(fifo, 1<<20); done <- err }()
	for range 3 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("FIFO: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("opening a FIFO blocked")
		}
	}

	target := filepath.Join(dir, "other-file")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(target, link); err != nil {
		t.Skip(err)
	}
	for _, flag := range []int{os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_WRONLY | os.O_TRUNC} {
		if f, err := OpenPrivate(link, flag); err == nil || !strings.Contains(err.Error(), "hard links") {
			if f != nil {
				f.Close()
			}
			t.Fatalf("hard link opened (flag %#x): %v", flag, err)
		}
	}
	if err := WritePrivate(link, []byte("planted")); err == nil {
		t.Fatal("WritePrivate wrote through a hard link")
	}
	if _, _, err := LimitedReadPrivate(link, 1<<20); err == nil {
		t.Fatal("read through a hard link")
	}
	fi, _ := os.Stat(target)
	if b, _ := os.ReadFile(target); string(b) != "keep" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the linked file changed: %q %v", b, fi.Mode())
	}
}

// LimitedReadPrivate reads the newest bytes of a long file and says how
// many it skipped.
func TestLimitedReadPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "j")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, skipped, err := LimitedReadPrivate(p, 4)
	if err != nil || string(b) != "6789" || skipped != 6 {
		t.Fatalf("%q %d %v", b, skipped, err)
	}
	b, skipped, err = LimitedReadPrivate(p, 100)
	if err != nil || string(b) != "0123456789" || skipped != 0 {
		t.Fatalf("%q %d %v", b, skipped, err)
	}
}

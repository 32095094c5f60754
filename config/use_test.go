package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withCurrent rewrites only the value of the top-level current line:
// spacing, quotes of another kind, a comment after it, CRLF endings and
// every other line stay as they were; a current inside a table is not the
// file's.
func TestWithCurrent(t *testing.T) {
	cases := []struct{ in, want string }{
		{"current = \"a\"\n[contexts.a]\n", "current = \"b\"\n[contexts.a]\n"},
		{"  current='a' # mine\r\nx = 1\r\n", "  current=\"b\" # mine\r\nx = 1\r\n"},
		{"# current = \"a\"\ncurrent = \"a\"\n", "# current = \"a\"\ncurrent = \"b\"\n"},
		{"[contexts.a]\ncurrent = \"a\"\n", "current = \"b\"\n[contexts.a]\ncurrent = \"a\"\n"},
		{"", "current = \"b\"\n"},
	}
	for _, c := range cases {
		got, err := withCurrent(c.in, "b")
		if err != nil || got != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.in, got, err, c.want)
		}
	}
	if _, err := withCurrent("current = 3\n", "b"); err == nil {
		t.Error("a current that is not a string was rewritten")
	}
}

// SetCurrent reads the file once: what it checks (the contexts) and what it
// rewrites are the same bytes, and the rewrite is read back from memory.
func TestSetCurrentReadsTheFileOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("current = \"a\"\n[contexts.a]\nurl = \"https://a\"\n[contexts.b]\nurl = \"https://b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reads := 0
	read := readConfig
	readConfig = func(path string) ([]byte, error) { reads++; return read(path) }
	defer func() { readConfig = read }()
	getenv := env("HOME", "/home/op")
	if err := SetCurrent(p, "b", getenv); err != nil {
		t.Fatal(err)
	}
	if reads != 1 {
		t.Errorf("SetCurrent read the file %d times, want once", reads)
	}
	if f, err := Load(p, getenv); err != nil || f.Current != "b" {
		t.Fatalf("after SetCurrent: %+v %v", f, err)
	}
}

// design §11: a config that is a symbolic link (a dotfiles repository's
// file) is written through the link: its target gets the new current,
// atomically beside it, and the link stays a link; a 0400 file stays
// 0400, one others may read becomes 0600.
func TestSetCurrentWritesThroughALink(t *testing.T) {
	const body = "current = \"a\"\n[contexts.a]\nurl = \"https://a\"\n[contexts.b]\nurl = \"https://b\"\n"
	getenv := env("HOME", "/home/op")
	for _, c := range []struct {
		name       string
		link       bool
		mode, want os.FileMode
	}{
		{"link 0600", true, 0o600, 0o600},
		{"link 0400", true, 0o400, 0o400},
		{"file 0400", false, 0o400, 0o400},
		{"file 0644", false, 0o644, 0o600},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfgDir, dots := filepath.Join(dir, "cfg"), filepath.Join(dir, "dotfiles")
			for _, d := range []string{cfgDir, dots} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			path, target := filepath.Join(cfgDir, "config.toml"), filepath.Join(dots, "aipwatch.toml")
			if !c.link {
				target = path
			}
			if err := os.WriteFile(target, []byte(body), c.mode); err != nil {
				t.Fatal(err)
			}
			if c.link {
				if err := os.Symlink(target, path); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetCurrent(path, "b", getenv); err != nil {
				t.Fatal(err)
			}
			li, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.link != (li.Mode()&os.ModeSymlink != 0) {
				t.Fatalf("the config is now %v", li.Mode())
			}
			fi, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != c.want {
				t.Errorf("mode %04o, want %04o", fi.Mode().Perm(), c.want)
			}
			if f, err := Load(path, getenv); err != nil || f.Current != "b" {
				t.Fatalf("through the link: %+v %v", f, err)
			}
			for _, d := range []string{cfgDir, dots} {
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					if strings.HasPrefix(e.Name(), ".config.toml.") {
						t.Errorf("a temporary file left in %s: %s", d, e.Name())
					}
				}
			}
		})
	}
}

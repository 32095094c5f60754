package config

import (
	"os"
	"path/filepath"
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

package config

import "testing"

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

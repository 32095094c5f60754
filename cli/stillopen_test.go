package cli

import (
	"strings"
	"testing"
)

// A --url without a scheme suggests http:// first for a loopback host,
// which takes it (design §1), and https:// first for any other (issue 46
// item 18).
func TestURLWithoutSchemeSuggestsByHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"127.0.0.1:8080", "did you mean http://127.0.0.1:8080 (or https:// if it serves TLS)?"},
		{"localhost:9", "did you mean http://localhost:9 "},
		{"[::1]:9", "did you mean http://[::1]:9 "},
		{"localhost", "did you mean http://localhost "},
		{"aipd.example:8443", "did you mean https://aipd.example:8443 (or http:// for a loopback host)?"},
	} {
		code, _, errOut := runCLI(t, "ls", "--url", c.url)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("--url %s: exit %d, %q lacks %q", c.url, code, errOut, c.want)
		}
	}
}

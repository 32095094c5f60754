package cli

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// shellWords is how a POSIX shell splits cmd, a command printed for the
// operator to paste: sh parses it and printf gives back each word
// (argv[0] included) NUL-terminated. Nothing in cmd runs but printf,
// unless a word is left unquoted, which is what the tests look for.
func shellWords(t *testing.T, cmd string) []string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to parse the command")
	}
	out, err := exec.Command(sh, "-c", `printf '%s\0' `+cmd).Output()
	if err != nil {
		t.Fatalf("sh could not parse %q: %v", cmd, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// The resume command passes aipd's cursor through the shell as one word,
// whatever it holds: the cursor is the daemon's, not the operator's
// (design §2.8).
func TestResumeCommandQuotesAipdsCursor(t *testing.T) {
	saved := argv0
	argv0 = func() string { return "/opt/aip watch/aipwatch" }
	t.Cleanup(func() { argv0 = saved })
	cursor := `aev_1'; printf INJECTED; ' $(printf SUB) "$HOME" * \`
	o := &watch{conn: conn{url: "http://127.0.0.1:8080"}, g: globalFlags{output: "plain"}, r: runFlags{rawCapMiB: defaultRawCapMiB}}
	got := shellWords(t, o.resume(cursor, "act_1"))
	want := []string{"/opt/aip watch/aipwatch", "--url", "http://127.0.0.1:8080", "--output", "plain", "--cursor", cursor, "act_1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the shell reads the resume command as\n%q\nwant\n%q", got, want)
	}
}

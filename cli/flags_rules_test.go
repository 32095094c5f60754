package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The review flags' values that mean nothing are usage errors: a timeout
// of 0 (each of the two), a negative --raw-cap-mib; --raw-cap-mib counts
// MiB, and 0 keeps every byte.
func TestRunFlagsRefuseWhatMeansNothing(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]string{{"--appear-timeout", "0s"}, {"--stall-timeout", "0s"}, {"--raw-cap-mib", "-1"}} {
		if _, _, err := parse(append(bad, "act_1"), &bytes.Buffer{}, noEnv); err == nil {
			t.Errorf("%v taken", bad)
		}
	}
	for mib, want := range map[string]int64{"3": 3 * 1024 * 1024, "0": -1} {
		o, _, err := parse([]string{"--raw-cap-mib", mib, "act_1"}, &bytes.Buffer{}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.w.r.rawCap(); got != want {
			t.Errorf("--raw-cap-mib %s: the model's cap %d, want %d", mib, got, want)
		}
	}
}

// A token file readable by its group alone, or by others alone, gets the
// warning; one of two lines is refused; the warning and the error never
// show the token.
func TestTokenFileModeAndLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o640, true}, {0o604, true}, {0o600, false}, {0o400, false}} {
		var w bytes.Buffer
		p := write("tok"+c.mode.String(), "tok-mode-secret\n", c.mode)
		tok, err := readToken(newInvocationFiles(noEnv), p, &w)
		if err != nil || tok != "tok-mode-secret" {
			t.Fatalf("%v: %q %v", c.mode, tok, err)
		}
		if got := strings.Contains(w.String(), "readable by group or others"); got != c.warn {
			t.Errorf("mode %04o: warned %v, want %v (%q)", c.mode, got, c.warn, w.String())
		}
	}
	p := write("two", "first-line-secret\nsecond\n", 0o600)
	if _, err := readToken(newInvocationFiles(noEnv), p, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "more than one line") || strings.Contains(err.Error(), "first-line-secret") {
		t.Fatalf("a token file of two lines: %v", err)
	}
}

// --url without a scheme shows what follows the last @ (a password may
// hold an @), never the credentials.
func TestURLWithoutSchemeDropsEveryCredential(t *testing.T) {
	t.Parallel()
	err := checkURL("ops:p@ss@aipd.internal:8443", false)
	if err == nil || !strings.Contains(err.Error(), "https://aipd.internal:8443 ") || strings.Contains(err.Error(), "ss@") {
		t.Fatalf("%v", err)
	}
}

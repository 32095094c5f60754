package cli

import (
	"bytes"
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

// --url without a scheme shows what follows the last @ (a password may
// hold an @), never the credentials.
func TestURLWithoutSchemeDropsEveryCredential(t *testing.T) {
	t.Parallel()
	err := checkURL("ops:p@ss@aipd.internal:8443", false)
	if err == nil || !strings.Contains(err.Error(), "https://aipd.internal:8443 ") || strings.Contains(err.Error(), "ss@") {
		t.Fatalf("%v", err)
	}
}

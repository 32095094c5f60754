package config

import (
	"os"
	"strings"
	"testing"
)

// A config file that belongs to another user is refused (design §9: the
// file decides where the token is sent), mode 0600 or not. Changing a
// file's owner takes root: the test runs where it can.
func TestConfigOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no file of another user can be made here (run as root to hold this rule)")
	}
	p := write(t, good, 0o600)
	if _, err := Load(p, env("HOME", "/home/op", "CERTS", "/certs")); err != nil {
		t.Fatalf("root's own file: %v", err)
	}
	const other = 4242
	if err := os.Chown(p, other, other); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p, env("HOME", "/home/op", "CERTS", "/certs"))
	if err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 4242)") || !strings.Contains(err.Error(), p) {
		t.Fatalf("a file of uid %d: %v", other, err)
	}
}

// A config file is at most 1 MiB (design §9, written as the contract
// states it): 1 MiB is read, one byte more is refused.
func TestConfigOfOneMiBIsTheBound(t *testing.T) {
	const mib = 1 << 20
	body := func(n int) string { // good, padded with a comment to n bytes
		pad := n - len(good) - len("#\n")
		return good + "#" + strings.Repeat("x", pad) + "\n"
	}
	if _, err := Load(write(t, body(mib), 0o600), env("HOME", "/home/op", "CERTS", "/certs")); err != nil {
		t.Fatalf("a file of 1 MiB: %v", err)
	}
	if _, err := Load(write(t, body(mib+1), 0o600), env("HOME", "/home/op", "CERTS", "/certs")); err == nil {
		t.Fatal("a file of 1 MiB and one byte was read")
	}
}

package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// ownerHelperEnv names the config files the helper process loads, one a
// line.
const ownerHelperEnv = "AIPWATCH_CONFIG_OWNER_HELPER"

// TestConfigOwnerHelper is not a test of its own: run by
// TestConfigOfAUserOrRootIsRead as another user, it loads each file
// ownerHelperEnv names and says, a line each, what Load said.
func TestConfigOwnerHelper(t *testing.T) {
	paths := os.Getenv(ownerHelperEnv)
	if paths == "" {
		t.Skip("run by TestConfigOfAUserOrRootIsRead")
	}
	for _, p := range strings.Split(paths, "\n") {
		if _, err := Load(p, env("HOME", "/home/op", "CERTS", "/certs")); err != nil {
			fmt.Printf("LOAD %s: %v\n", p, err)
			continue
		}
		fmt.Printf("LOAD %s: ok\n", p)
	}
}

// A user who is not root reads a config file of their own and one of
// root's (a system-wide file is not another user's), and refuses one of a
// third user. Run as that user, in a process of its own.
func TestConfigOfAUserOrRootIsRead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: no process of another user can be started here (run as root to hold this rule)")
	}
	const user, third = 4242, 4343
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // the user walks in to read
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The test binary, where the user may run it (go test's own directory
	// is root's alone).
	bin := filepath.Join(dir, "config.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		owner int
		want  string
	}{
		{user, "ok"},
		{0, "ok"},
		{third, "belongs to another user (uid 4343)"},
	}
	var paths []string
	for _, c := range cases {
		p := filepath.Join(dir, fmt.Sprintf("config-%d.toml", c.owner))
		if err := os.WriteFile(p, []byte(good), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil { // readable by the user: the owner is what is checked
			t.Fatal(err)
		}
		if err := os.Chown(p, c.owner, c.owner); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	cmd := exec.Command(bin, "-test.run=^TestConfigOwnerHelper$", "-test.v")
	// A -race binary sleeps a second before it exits (the race runtime's
	// atexit_sleep_ms); the child's exit is not what is checked.
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), ownerHelperEnv+"="+strings.Join(paths, "\n"), "GORACE="+race)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: user, Gid: user}}
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "LOAD ") {
		t.Skipf("cannot run the test binary as uid %d here: %v\n%s", user, err, out)
	}
	for i, c := range cases {
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "LOAD "+paths[i]+": ") {
				line = l
			}
		}
		if (c.want == "ok" && line != "LOAD "+paths[i]+": ok") || !strings.Contains(line, c.want) {
			t.Errorf("uid %d loading a file of uid %d: %q, want %q\n%s", user, c.owner, line, c.want, out)
		}
	}
}

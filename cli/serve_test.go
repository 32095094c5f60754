package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/model"
)

// serve refuses to start without the people's keys, and a limit out of
// range, before it listens or reads the daemon.
func TestServeUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "needs the people's keys"},
		{[]string{"serve", "--operator-keys", "/nonexistent", "--max-sessions", "0"}, "--max-sessions"},
		{[]string{"serve", "--operator-keys", "/nonexistent", "--conn-rate", "-1"}, "--conn-rate"},
		{[]string{"serve", "--operator-keys", "/nonexistent", "--idle-timeout", "-1s"}, "--idle-timeout"},
		{[]string{"serve", "act_1"}, "act_1"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != model.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q", tc.args, code, stderr, model.ExitUsage, tc.want)
		}
	}
}

// The config file's [serve] table is read (its keys the flags'
// defaults), and a mistake in it names the key.
func TestServeConfigTable(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "aipwatch")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	write("[serve]\nmax_sessions = -3\n")
	code, _, stderr := runCLIEnv(t, env, "serve")
	if code == 0 || !strings.Contains(stderr, "serve.max_sessions") {
		t.Fatalf("a bad [serve] key: exit %d, %q", code, stderr)
	}
	// Keys named by the file: past the "needs keys" check, to the keys
	// file itself (which does not exist here).
	write("[serve]\noperator_keys = \"ops.keys\"\nhost_key = \"hk\"\naudit_log = \"audit.jsonl\"\nlisten = \"127.0.0.1:0\"\n")
	code, _, stderr = runCLIEnv(t, env, "serve", "--url", "http://127.0.0.1:1")
	if code == 0 || !strings.Contains(stderr, filepath.Join(cfgDir, "ops.keys")) {
		t.Fatalf("the file's operator_keys: exit %d, %q", code, stderr)
	}
}

func runCLIEnv(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	code = Run(args, strings.NewReader(""), &out, &errb, getenv, testKeys())
	return code, out.String(), errb.String()
}

// The host key and the audit log default to the state directory, the
// journal's; without one, serve asks for the files to be named.
func TestServeStateDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "ops.keys")
	if err := os.WriteFile(keys, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOmoRmyaPr7NXrpzYYUFxN+FJOWSqTVHkn9dllDden0a olga@oncall\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(dir, "state")
		}
		return ""
	}
	// A port that cannot be listened on: the server has made its host key
	// and opened its audit log by then.
	code, _, stderr := runCLIEnv(t, env, "serve", "--url", "http://127.0.0.1:1", "--operator-keys", keys, "--listen", "127.0.0.1:-1")
	if code != model.ExitError || !strings.Contains(stderr, "aipwatch: serve: ") {
		t.Fatalf("exit %d, %q; want exit %d, serve's error", code, stderr, model.ExitError)
	}
	for _, name := range []string{"ssh_host_ed25519_key", "serve-audit.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, "state", "aipwatch", name)); err != nil {
			t.Errorf("%s is not in the state directory: %v", name, err)
		}
	}
	code, _, stderr = runCLIEnv(t, func(string) string { return "" }, "serve", "--operator-keys", keys)
	if code != model.ExitUsage || !strings.Contains(stderr, "--host-key") {
		t.Errorf("no state directory: exit %d, %q", code, stderr)
	}
}

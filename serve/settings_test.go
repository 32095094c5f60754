package serve

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/config"
)

// noStateDir is no state directory; aState is one.
func noStateDir() (string, error) { return "", errors.New("no state directory") }

func aState() (string, error) { return "/state/aipwatch", nil }

// givenFlags says given for the flags named.
func givenFlags(names ...string) func(string) bool {
	return func(flag string) bool {
		for _, n := range names {
			if n == flag {
				return true
			}
		}
		return false
	}
}

// Each flag given beats the config file's key, which beats the default;
// a flag given empty is given (it does not fall back to the file).
func TestSettingsPrecedence(t *testing.T) {
	file := &config.File{Serve: config.Serve{Listen: "0.0.0.0:2200", AuthorizedKeys: "/f/watch", OperatorKeys: "/f/ops",
		HostKey: "/f/hk", AuditLog: "/f/audit", Log: "/f/log", MaxSessions: 7, ConnRate: 3,
		IdleTimeout: time.Minute, IdleTimeoutSet: true}}
	flags := config.Serve{Listen: "", AuthorizedKeys: "/g/watch", OperatorKeys: "/g/ops", HostKey: "/g/hk",
		AuditLog: "/g/audit", Log: "/g/log", MaxSessions: 9, ConnRate: 4, IdleTimeout: 5 * time.Minute}
	cfg, err := Settings(flags, givenFlags("listen", "operator-keys", "audit-log", "max-sessions", "idle-timeout"), file, noStateDir)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Listen: "", AuthorizedKeys: "/f/watch", OperatorKeys: "/g/ops", HostKey: "/f/hk", AuditLog: "/g/audit",
		LogFile: "/f/log", MaxSessions: 9, ConnRate: 3, IdleTimeout: 5 * time.Minute}
	if cfg.Listen != want.Listen || cfg.AuthorizedKeys != want.AuthorizedKeys || cfg.OperatorKeys != want.OperatorKeys ||
		cfg.HostKey != want.HostKey || cfg.AuditLog != want.AuditLog || cfg.LogFile != want.LogFile ||
		cfg.MaxSessions != want.MaxSessions || cfg.ConnRate != want.ConnRate || cfg.IdleTimeout != want.IdleTimeout {
		t.Errorf("settings %+v\nwant %+v", cfg, want)
	}
	// No file: the flags given, the rest zero (New's defaults), the idle
	// timeout's default 30 minutes, the files in the state directory.
	cfg, err = Settings(flags, givenFlags("operator-keys", "log"), nil, aState)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OperatorKeys != "/g/ops" || cfg.LogFile != "/g/log" || cfg.AuthorizedKeys != "" || cfg.Listen != "" ||
		cfg.MaxSessions != 0 || cfg.ConnRate != 0 || cfg.IdleTimeout != 30*time.Minute ||
		cfg.HostKey != filepath.Join("/state/aipwatch", "ssh_host_ed25519_key") || cfg.AuditLog != filepath.Join("/state/aipwatch", "serve-audit.jsonl") {
		t.Errorf("no file: %+v", cfg)
	}
}

// An idle timeout of 0, the flag's or the file's, is never (a negative
// Config.IdleTimeout); the file's is read only when it was written.
func TestSettingsIdleTimeout(t *testing.T) {
	keys := config.Serve{OperatorKeys: "/ops"}
	for _, tc := range []struct {
		name  string
		flags config.Serve
		given []string
		file  config.Serve
		want  time.Duration
	}{
		{"the default", keys, []string{"operator-keys"}, config.Serve{}, 30 * time.Minute},
		{"the file's", keys, []string{"operator-keys"}, config.Serve{IdleTimeout: 2 * time.Minute, IdleTimeoutSet: true}, 2 * time.Minute},
		{"the file's 0", keys, []string{"operator-keys"}, config.Serve{IdleTimeoutSet: true}, -1},
		{"the flag's 0", keys, []string{"operator-keys", "idle-timeout"}, config.Serve{IdleTimeout: time.Minute, IdleTimeoutSet: true}, -1},
	} {
		cfg, err := Settings(tc.flags, givenFlags(tc.given...), &config.File{Serve: tc.file}, aState)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cfg.IdleTimeout != tc.want && !(tc.want < 0 && cfg.IdleTimeout < 0) {
			t.Errorf("%s: idle timeout %v, want %v", tc.name, cfg.IdleTimeout, tc.want)
		}
	}
}

// A flag given out of range, or no keys file named by a flag or the file,
// is refused, naming what to fix; the file's keys are enough.
func TestSettingsRefusals(t *testing.T) {
	keys := config.Serve{OperatorKeys: "/ops"}
	for _, tc := range []struct {
		flags config.Serve
		given []string
		want  string
	}{
		{config.Serve{}, nil, "needs the people's keys"},
		{keys, []string{"operator-keys", "max-sessions"}, "--max-sessions"},
		{config.Serve{OperatorKeys: "/ops", MaxSessions: -2}, []string{"operator-keys", "max-sessions"}, "--max-sessions"},
		{keys, []string{"operator-keys", "conn-rate"}, "--conn-rate"},
		{config.Serve{OperatorKeys: "/ops", IdleTimeout: -time.Second}, []string{"operator-keys", "idle-timeout"}, "--idle-timeout"},
		// A keys flag given empty names no file.
		{config.Serve{}, []string{"operator-keys", "authorized-keys"}, "needs the people's keys"},
	} {
		_, err := Settings(tc.flags, givenFlags(tc.given...), nil, noStateDir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v given %v: %v, want an error naming %q", tc.flags, tc.given, err, tc.want)
		}
	}
	if _, err := Settings(config.Serve{}, givenFlags(), &config.File{Serve: config.Serve{AuthorizedKeys: "/w"}}, aState); err != nil {
		t.Errorf("the file's authorized_keys: %v", err)
	}
}

// Without a state directory, Settings asks for the files not named to be
// named, once the rest is right.
func TestSettingsNoStateDir(t *testing.T) {
	_, err := Settings(config.Serve{OperatorKeys: "/ops", HostKey: "/hk"}, givenFlags("operator-keys", "host-key"), nil, noStateDir)
	if err == nil || !strings.Contains(err.Error(), "--host-key, --audit-log") {
		t.Errorf("no state directory: %v", err)
	}
}

// The host key and the audit log default to the state directory, asked
// only when one of them is not named; without one, the files must be.
func TestInStateDir(t *testing.T) {
	asked := 0
	dir := func() (string, error) {
		asked++
		return "/state/aipwatch", nil
	}
	cfg := Config{}
	if err := cfg.inStateDir(dir); err != nil {
		t.Fatal(err)
	}
	if cfg.HostKey != filepath.Join("/state/aipwatch", "ssh_host_ed25519_key") || cfg.AuditLog != filepath.Join("/state/aipwatch", "serve-audit.jsonl") {
		t.Errorf("host key %q, audit log %q", cfg.HostKey, cfg.AuditLog)
	}
	cfg = Config{HostKey: "/hk"}
	if err := cfg.inStateDir(dir); err != nil || cfg.HostKey != "/hk" || cfg.AuditLog != filepath.Join("/state/aipwatch", "serve-audit.jsonl") {
		t.Errorf("a named host key: %v, %+v", err, cfg)
	}
	none := func() (string, error) { return "", errors.New("no state directory") }
	cfg = Config{HostKey: "/hk", AuditLog: "/audit"}
	if err := cfg.inStateDir(none); err != nil || asked != 2 {
		t.Errorf("both named: %v, the state directory asked %d times (want 2, by the two above)", err, asked)
	}
	cfg = Config{AuditLog: "/audit"}
	if err := cfg.inStateDir(none); err == nil || !strings.Contains(err.Error(), "--host-key") {
		t.Errorf("no state directory: %v", err)
	}
}

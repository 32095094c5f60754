package serve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"aipwatch/config"
	"aipwatch/model"
	"aipwatch/sim"
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

// runConfig is a server's settings for Run on a simulated daemon, its
// files in a temporary directory: two keys that watch, one that cancels.
func runConfig(t *testing.T) Config {
	t.Helper()
	dir := t.TempDir()
	token := freshToken()
	fleet, err := sim.NewFleet(sim.FleetKnobs{Token: token},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: settledID}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := fleet.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fleet.Close)
	writeKeys(t, filepath.Join(dir, "watchers"), keyLine(newSigner(t), "wanda@watch"), keyLine(newSigner(t), "walt@watch"))
	writeKeys(t, filepath.Join(dir, "operators"), keyLine(newSigner(t), "olga@oncall"))
	return Config{Listen: "127.0.0.1:0", AuthorizedKeys: filepath.Join(dir, "watchers"), OperatorKeys: filepath.Join(dir, "operators"),
		HostKey: filepath.Join(dir, "state", HostKeyName), AuditLog: filepath.Join(dir, "audit.jsonl"), LogFile: filepath.Join(dir, "sessions.log"),
		Source: simSource(t, u, token), Views: testViews(t)}
}

// runUntilAnnounced runs Run until its two start lines are on stderr,
// then ends ctx and returns what Run returned and said.
func runUntilAnnounced(t *testing.T, cfg Config) (code int, said string, err error) {
	t.Helper()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Serve(ctx, cfg, "https://aipd.example:8443", &stderr)
		done <- result{code, err}
	}()
	if !stderr.waitTextFrom(0, "may also cancel", wait) {
		t.Fatalf("Run never said its start lines: %q", stderr.String())
	}
	cancel() // the command's signal
	select {
	case r := <-done:
		return r.code, stderr.String(), r.err
	case <-time.After(wait):
		t.Fatal("Run did not return once its context ended")
	}
	return 0, "", nil
}

// Run says where it listens, for which daemon, its host key (made now the
// first time) and the keys' count by role, serves until its context ends,
// then stops with exit 0; the session log goes to the log file, not stderr.
func TestRunAnnouncesServesAndStops(t *testing.T) {
	cfg := runConfig(t)
	code, said, err := runUntilAnnounced(t, cfg)
	if err != nil || code != 0 {
		t.Fatalf("Run: %d, %v; said %q", code, err, said)
	}
	first := regexp.MustCompile(`^aipwatch serve: listening on 127\.0\.0\.1:[0-9]+ for https://aipd\.example:8443 \(host key made now SHA256:[A-Za-z0-9+/]+: ` +
		regexp.QuoteMeta(cfg.HostKey) + `\)\n` +
		regexp.QuoteMeta("aipwatch serve: 2 keys may watch, 1 may also cancel; audit log "+cfg.AuditLog+"\n") + `$`)
	if !first.MatchString(said) {
		t.Errorf("stderr %q", said)
	}
	log, err := os.ReadFile(cfg.LogFile)
	if err != nil || !strings.Contains(string(log), "stopped; audit log closed") {
		t.Errorf("the session log: %q, %v", log, err)
	}
	// Started again, the host key is the one made before.
	_, said, _ = runUntilAnnounced(t, cfg)
	if !strings.Contains(said, "(host key SHA256:") {
		t.Errorf("a second start: %q", said)
	}
}

// A server that cannot start says nothing itself: Run returns why, the
// session log's file ("--log: …") or the server's ("serve: …").
func TestRunDoesNotStart(t *testing.T) {
	cfg := runConfig(t)
	bad := cfg
	bad.LogFile = filepath.Join(t.TempDir(), "missing", "sessions.log")
	var stderr syncBuffer
	code, err := Serve(context.Background(), bad, "https://aipd.example:8443", &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), "--log: ") || code != model.ExitError || stderr.String() != "" {
		t.Errorf("a log file that cannot be opened: %d, %v, said %q", code, err, stderr.String())
	}
	bad = cfg
	bad.OperatorKeys = filepath.Join(t.TempDir(), "missing.keys")
	code, err = Serve(context.Background(), bad, "https://aipd.example:8443", &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), "serve: ") || code != model.ExitError || stderr.String() != "" {
		t.Errorf("a keys file missing: %d, %v, said %q", code, err, stderr.String())
	}
}

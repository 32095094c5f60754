package serve

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// serveConfig is a server's settings for Serve on a simulated daemon, its
// files in a temporary directory: two keys that watch, one that cancels.
func serveConfig(t *testing.T) Config {
	t.Helper()
	dir := t.TempDir()
	u, token := settledDaemon(t)
	writeKeys(t, filepath.Join(dir, "watchers"), keyLine(newSigner(t), "wanda@watch"), keyLine(newSigner(t), "walt@watch"))
	writeKeys(t, filepath.Join(dir, "operators"), keyLine(newSigner(t), "olga@oncall"))
	return Config{Listen: "127.0.0.1:0", AuthorizedKeys: filepath.Join(dir, "watchers"), OperatorKeys: filepath.Join(dir, "operators"),
		HostKey: filepath.Join(dir, "state", HostKeyName), AuditLog: filepath.Join(dir, "audit.jsonl"), LogFile: filepath.Join(dir, "sessions.log"),
		Source: simSource(t, u, token), Views: testViews(t)}
}

// serveUntilAnnounced runs Serve until its two start lines are on stderr,
// then ends ctx and returns what Serve returned and said.
func serveUntilAnnounced(t *testing.T, cfg Config) (code int, said string, err error) {
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
		t.Fatalf("Serve never said its start lines: %q", stderr.String())
	}
	cancel() // the command's signal
	select {
	case r := <-done:
		return r.code, stderr.String(), r.err
	case <-time.After(wait):
		t.Fatal("Serve did not return once its context ended")
	}
	return 0, "", nil
}

// Serve says where it listens, for which daemon, its host key (made now
// the first time) and the keys' count by role, serves until its context
// ends, then stops with exit 0; the session log goes to the log file, not
// stderr.
func TestServeAnnouncesServesAndStops(t *testing.T) {
	cfg := serveConfig(t)
	code, said, err := serveUntilAnnounced(t, cfg)
	if err != nil || code != 0 {
		t.Fatalf("Serve: %d, %v; said %q", code, err, said)
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
	_, said, _ = serveUntilAnnounced(t, cfg)
	if !strings.Contains(said, "(host key SHA256:") {
		t.Errorf("a second start: %q", said)
	}
}

// A server that cannot start says nothing itself: Serve returns why, the
// session log's file ("--log: …") or the server's ("serve: …").
func TestServeDoesNotStart(t *testing.T) {
	cfg := serveConfig(t)
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

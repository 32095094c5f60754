package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The [serve] table: its paths expanded as a context's, its limits
// checked, a mistake named by its key.
func TestServeTable(t *testing.T) {
	p := write(t, `[serve]
listen = "0.0.0.0:2222"
authorized_keys = "watchers"
operator_keys = "~/ops.keys"
audit_log = "$LOGS/audit.jsonl"
max_sessions = 12
idle_timeout = "0"
conn_rate = 5
`, 0o600)
	f, err := Load(p, env("HOME", "/home/ana", "LOGS", "/var/log/aipwatch"))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Serve
	if s.Listen != "0.0.0.0:2222" || s.AuthorizedKeys != filepath.Join(filepath.Dir(p), "watchers") ||
		s.OperatorKeys != "/home/ana/ops.keys" || s.AuditLog != "/var/log/aipwatch/audit.jsonl" ||
		s.MaxSessions != 12 || s.ConnRate != 5 || !s.IdleTimeoutSet || s.IdleTimeout != 0 {
		t.Fatalf("the [serve] table read: %+v", s)
	}
	for body, want := range map[string]string{
		"[serve]\nmax_sessions = -1\n":       "serve.max_sessions",
		"[serve]\nidle_timeout = \"soon\"\n": "serve.idle_timeout",
		"[serve]\nconn_rate = -2\n":          "serve.conn_rate",
		"[serve]\nhost_key = \"$NOPE/k\"\n":  "serve.host_key",
		"[serve]\nlisten_on = \"x\"\n":       "unknown key serve.listen_on",
	} {
		_, err := Load(write(t, body, 0o600), env())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	f, err = Load(write(t, "[serve]\nidle_timeout = \"45m\"\n", 0o600), env())
	if err != nil || f.Serve.IdleTimeout != 45*time.Minute {
		t.Fatalf("idle_timeout 45m: %+v %v", f.Serve, err)
	}
}

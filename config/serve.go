package config

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Serve is the [serve] table: the settings of `aipwatch serve` (design
// §15), each the default of the flag of the same name. Paths are expanded
// as a context's are; zero values mean the flag's default. The command's
// flags are read into a Serve too, and serve.Settings lays the flags
// given over the file's keys.
//
//	[serve]
//	listen = "0.0.0.0:2222"
//	authorized_keys = "/etc/aipwatch/watchers"
//	operator_keys = "/etc/aipwatch/operators"
//	host_key = "/var/lib/aipwatch/ssh_host_ed25519_key"
//	audit_log = "/var/log/aipwatch/audit.jsonl"
//	log = "/var/log/aipwatch/sessions.log"
//	max_sessions = 32
//	idle_timeout = "30m"
//	conn_rate = 10
type Serve struct {
	Listen         string
	AuthorizedKeys string
	OperatorKeys   string
	HostKey        string
	AuditLog       string
	Log            string
	MaxSessions    int
	IdleTimeout    time.Duration
	IdleTimeoutSet bool // idle_timeout was written ("0" turns the timeout off)
	ConnRate       int  // connections a minute from one address
}

type rawServe struct {
	Listen         string `toml:"listen"`
	AuthorizedKeys string `toml:"authorized_keys"`
	OperatorKeys   string `toml:"operator_keys"`
	HostKey        string `toml:"host_key"`
	AuditLog       string `toml:"audit_log"`
	Log            string `toml:"log"`
	MaxSessions    int    `toml:"max_sessions"`
	IdleTimeout    string `toml:"idle_timeout"`
	ConnRate       int    `toml:"conn_rate"`
}

// resolveServe checks the [serve] table and expands its paths.
func resolveServe(r rawServe, exp expander) (Serve, error) {
	s := Serve{Listen: strings.TrimSpace(r.Listen), MaxSessions: r.MaxSessions, ConnRate: r.ConnRate}
	for _, p := range []struct {
		key string
		in  string
		out *string
	}{
		{"authorized_keys", r.AuthorizedKeys, &s.AuthorizedKeys},
		{"operator_keys", r.OperatorKeys, &s.OperatorKeys},
		{"host_key", r.HostKey, &s.HostKey},
		{"audit_log", r.AuditLog, &s.AuditLog},
		{"log", r.Log, &s.Log},
	} {
		v, err := exp.path(p.in)
		if err != nil {
			return Serve{}, fmt.Errorf("serve.%s: %w", p.key, err)
		}
		*p.out = v
	}
	if r.MaxSessions < 0 {
		return Serve{}, fmt.Errorf("serve.max_sessions = %d: give 1 or more", r.MaxSessions)
	}
	if r.ConnRate < 0 {
		return Serve{}, fmt.Errorf("serve.conn_rate = %d: give 1 or more (connections a minute from one address)", r.ConnRate)
	}
	if r.IdleTimeout != "" {
		d, err := time.ParseDuration(r.IdleTimeout)
		if err != nil || d < 0 {
			return Serve{}, fmt.Errorf("serve.idle_timeout = %q: a duration such as \"30m\" (\"0\": no timeout)", r.IdleTimeout)
		}
		s.IdleTimeout, s.IdleTimeoutSet = d, true
	}
	return s, nil
}

// OwnerOf is the file's owner's uid, where the system says: serve checks
// its host key's owner as ReadTrusted checks the config file's.
func OwnerOf(fi os.FileInfo) (int, bool) { return ownerOf(fi) }

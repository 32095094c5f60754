package serve

import (
	"errors"
	"path/filepath"

	"aipwatch/config"
)

// AuditLogName is the audit log's file in the state directory, when no
// flag or key names one.
const AuditLogName = "serve-audit.jsonl"

// Settings are the server's settings as `aipwatch serve` is given them:
// each flag given, else the config file's [serve] key, else the default.
// flags holds the flags' values (each flag the key of the same name),
// given says whether a flag was given, and file is the config file (nil:
// none); the host key and the audit log no flag or key names are in the
// state directory, which stateDir says (asked only then: inStateDir). An
// error is a mistake in the invocation: a flag's value out of range, no
// keys file named at all, or no state directory for the files not named.
func Settings(flags config.Serve, given func(flag string) bool, file *config.File, stateDir func() (string, error)) (Config, error) {
	var fromFile config.Serve
	if file != nil {
		fromFile = file.Serve
	}
	cfg := Config{
		Listen:         pick(given("listen"), flags.Listen, fromFile.Listen),
		AuthorizedKeys: pick(given("authorized-keys"), flags.AuthorizedKeys, fromFile.AuthorizedKeys),
		OperatorKeys:   pick(given("operator-keys"), flags.OperatorKeys, fromFile.OperatorKeys),
		HostKey:        pick(given("host-key"), flags.HostKey, fromFile.HostKey),
		AuditLog:       pick(given("audit-log"), flags.AuditLog, fromFile.AuditLog),
		LogFile:        pick(given("log"), flags.Log, fromFile.Log),
		MaxSessions:    pick(given("max-sessions"), flags.MaxSessions, fromFile.MaxSessions),
		ConnRate:       pick(given("conn-rate"), flags.ConnRate, fromFile.ConnRate),
	}
	switch {
	case given("max-sessions") && flags.MaxSessions <= 0:
		return cfg, errors.New("--max-sessions takes a number of sessions above 0")
	case given("conn-rate") && flags.ConnRate <= 0:
		return cfg, errors.New("--conn-rate takes a number of connections a minute above 0")
	case given("idle-timeout") && flags.IdleTimeout < 0:
		return cfg, errors.New("--idle-timeout takes a duration (0: never)")
	}
	switch {
	case given("idle-timeout"):
		cfg.IdleTimeout = flags.IdleTimeout
	case fromFile.IdleTimeoutSet:
		cfg.IdleTimeout = fromFile.IdleTimeout
	default:
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = -1 // never
	}
	if cfg.AuthorizedKeys == "" && cfg.OperatorKeys == "" {
		return cfg, errors.New("serve needs the people's keys: --authorized-keys FILE (watch) and/or --operator-keys FILE (cancel too), or serve.authorized_keys / serve.operator_keys in the config file")
	}
	return cfg, cfg.inStateDir(stateDir)
}

// pick is the flag's value when it was given, else the config file's.
func pick[T any](given bool, fromFlag, fromFile T) T {
	if given {
		return fromFlag
	}
	return fromFile
}

// inStateDir puts the host key and the audit log that no flag or key
// named into the state directory: stateDir says which, asked only then
// (its error: there is none).
func (c *Config) inStateDir(stateDir func() (string, error)) error {
	if c.HostKey != "" && c.AuditLog != "" {
		return nil
	}
	dir, err := stateDir()
	if err != nil {
		return errors.New("neither XDG_STATE_HOME nor HOME is an absolute path: name the files (--host-key, --audit-log)")
	}
	if c.HostKey == "" {
		c.HostKey = filepath.Join(dir, HostKeyName)
	}
	if c.AuditLog == "" {
		c.AuditLog = filepath.Join(dir, AuditLogName)
	}
	return nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"aipwatch/config"
	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/serve"
)

// `aipwatch serve` (design §15): the console served to a team over SSH.
// The command decides the daemon as every command does (conn.go) and
// hands the server its one reader of it; the server (serve/) does the
// rest. Its settings: the flags, else the config file's [serve] table,
// else the defaults.

// serveFlags are serve's own flags, as given.
type serveFlags struct {
	listen, authorizedKeys, operatorKeys, hostKey, auditLog, log string
	maxSessions, connRate                                        int
	idleTimeout                                                  time.Duration
}

func serveCommand(e *runEnv, g *globalFlags) *cobra.Command {
	var sf serveFlags
	c := &cobra.Command{
		Use:   "serve [flags]",
		Short: "serve the console to a team over SSH: keys name the people, operators may cancel, every cancel audited",
		Long: `Serve the console over SSH, so that a team watches and cancels from any
terminal with ssh while the daemon's token stays on this host. Each session
is its own console at its own size, with every key; ssh -t HOST -p PORT
act_… opens that action's live view, several IDs the split view.

Who may connect is public keys only, in OpenSSH authorized_keys files, each
key's comment naming the person: --authorized-keys keys watch (read-only),
--operator-keys keys may also cancel. Every cancel carries the operator's
name and key fingerprint in its reason, and is written to the audit log
(JSON lines, synced before the request is sent) with the daemon's answer.
The files are read again when they change; a removed key's sessions end.

The host key is made on first start (--host-key, default in the state
directory) and its fingerprint printed. One reader of the daemon serves
every session: N sessions cost the daemon what one console costs.
docs/serve.md: running it on a bastion, adding and removing people.`,
		Example: `  aipwatch serve --authorized-keys ~/team.keys --operator-keys ~/oncall.keys
  aipwatch serve --context prod --listen 0.0.0.0:2222 --operator-keys ops.keys
  ssh -t -p 2222 bastion            # the console
  ssh -t -p 2222 bastion act_123    # one action's live view`,
		Args: noArgs,
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVar(&sf.listen, "listen", "", "listen on `ADDR`, host:port (default "+serve.DefaultListen+", or the config file's serve.listen)")
	fs.StringVar(&sf.authorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys `FILE` of the people who may watch, each key's comment naming its person")
	fs.StringVar(&sf.operatorKeys, "operator-keys", "", "authorized_keys `FILE` of the people who may also cancel")
	fs.StringVar(&sf.hostKey, "host-key", "", "the server's private host key `FILE`, made on first start (default "+serve.HostKeyName+" in the state directory)")
	fs.StringVar(&sf.auditLog, "audit-log", "", "`FILE` of the audit log: each cancel, who sent it and the daemon's answer, as JSON lines (default serve-audit.jsonl in the state directory)")
	fs.StringVar(&sf.log, "log", "", "`FILE` the sessions joining and leaving are logged to (default stderr)")
	fs.IntVar(&sf.maxSessions, "max-sessions", 0, fmt.Sprintf("sessions at once, `N` (default %d)", serve.DefaultMaxSessions))
	fs.DurationVar(&sf.idleTimeout, "idle-timeout", 0, fmt.Sprintf("close a session after this `DURATION` without a key pressed (default %s; 0: never)", serve.DefaultIdleTimeout))
	fs.IntVar(&sf.connRate, "conn-rate", 0, fmt.Sprintf("connections a minute one address may open, `N` (default %d)", serve.DefaultConnRate))
	c.RunE = versioned(e, g, func(c *cobra.Command, _ []string) error {
		cfg, logPath, err := sf.settings(c, g, e.getenv)
		if err != nil {
			return err
		}
		return e.exit(runServe(e, g, cfg, logPath))
	})
	return c
}

// settings are the server's: each flag given, else the config file's
// [serve] key, else the default. A value out of range is a usage error.
func (sf serveFlags) settings(c *cobra.Command, g *globalFlags, getenv func(string) string) (cfg serve.Config, logPath string, err error) {
	fs := c.Flags()
	var file config.Serve
	if f, err := filesOf(g.cf, getenv).Config(); err == nil && f != nil {
		file = f.Serve
	} else if err != nil {
		return serve.Config{}, "", err
	}
	cfg = serve.Config{
		Listen:         pick(fs, "listen", sf.listen, file.Listen),
		AuthorizedKeys: pick(fs, "authorized-keys", sf.authorizedKeys, file.AuthorizedKeys),
		OperatorKeys:   pick(fs, "operator-keys", sf.operatorKeys, file.OperatorKeys),
		HostKey:        pick(fs, "host-key", sf.hostKey, file.HostKey),
		AuditLog:       pick(fs, "audit-log", sf.auditLog, file.AuditLog),
		MaxSessions:    pick(fs, "max-sessions", sf.maxSessions, file.MaxSessions),
		ConnRate:       pick(fs, "conn-rate", sf.connRate, file.ConnRate),
	}
	logPath = pick(fs, "log", sf.log, file.Log)
	switch {
	case fs.Changed("max-sessions") && sf.maxSessions <= 0:
		return cfg, "", output.UsageError("--max-sessions takes a number of sessions above 0")
	case fs.Changed("conn-rate") && sf.connRate <= 0:
		return cfg, "", output.UsageError("--conn-rate takes a number of connections a minute above 0")
	case fs.Changed("idle-timeout") && sf.idleTimeout < 0:
		return cfg, "", output.UsageError("--idle-timeout takes a duration (0: never)")
	}
	switch {
	case fs.Changed("idle-timeout"):
		cfg.IdleTimeout = sf.idleTimeout
	case file.IdleTimeoutSet:
		cfg.IdleTimeout = file.IdleTimeout
	default:
		cfg.IdleTimeout = serve.DefaultIdleTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = -1 // never
	}
	if cfg.AuthorizedKeys == "" && cfg.OperatorKeys == "" {
		return cfg, "", output.UsageError("serve needs the people's keys: --authorized-keys FILE (watch) and/or --operator-keys FILE (cancel too), or serve.authorized_keys / serve.operator_keys in the config file")
	}
	if cfg.HostKey == "" || cfg.AuditLog == "" {
		// The state directory is the journal's (one rule: journal.Path).
		jpath, err := journal.Path(getenv)
		if err != nil {
			return cfg, "", errors.New("neither XDG_STATE_HOME nor HOME is an absolute path: name the files (--host-key, --audit-log)")
		}
		dir := filepath.Dir(jpath)
		if cfg.HostKey == "" {
			cfg.HostKey = filepath.Join(dir, serve.HostKeyName)
		}
		if cfg.AuditLog == "" {
			cfg.AuditLog = filepath.Join(dir, "serve-audit.jsonl")
		}
	}
	return cfg, logPath, nil
}

// pick is flag's value when it was given, else the config file's.
func pick[T any](fs *pflag.FlagSet, flag string, given, fromFile T) T {
	if fs.Changed(flag) {
		return given
	}
	return fromFile
}

// runServe starts the server on the run's daemon and serves until
// SIGINT, SIGTERM or SIGHUP, then tells the sessions and stops.
// The session log goes to logPath, else stderr.
func runServe(e *runEnv, g *globalFlags, cfg serve.Config, logPath string) int {
	o := &watch{g: *g, e: e}
	o.conn = newConn(g.cf, true, e.getenv)
	if err := o.conn.check(); err != nil {
		return o.fail(err)
	}
	d := contextDaemon{c: &o.conn, run: o}
	d.client, d.err = o.conn.daemon(e.stderr)
	if d.err != nil {
		return o.fail(d.err)
	}
	cfg.Log = e.stderr
	if logPath != "" {
		f, err := safe.OpenPrivate(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
		if err != nil {
			return o.fail(fmt.Errorf("--log: %w", err))
		}
		defer f.Close()
		cfg.Log = safe.NewWriter(f, safe.Terminal)
	}
	cfg.Source = serve.Source{Daemon: d.client.NewPoller(0), Follow: d.follow, Judge: d.judge()}
	cfg.Views = serve.Views{Keys: e.keys.Console, LiveKeys: e.keys.Live, Version: versionString(),
		Reconcile: reconcilerFor(&o.conn, e.getenv, g.redact), Notification: func(term string) func(*model.Action) string {
			// The client's terminal, as its pty request names it.
			route := safe.NotifyRoute{OSC777: safe.SpeaksOSC777(term, ""), Mux: safe.DetectMultiplexer("", "", term)}
			return func(a *model.Action) string { return output.Notification(a, route) }
		}}
	srv, err := serve.New(cfg)
	if err != nil {
		return o.fail(fmt.Errorf("serve: %w", err))
	}
	fp, made := srv.HostKeyFingerprint()
	how := "host key"
	if made {
		how = "host key made now"
	}
	watch, operate := 0, 0
	for _, p := range srv.People() {
		if p.Role.CanCancel() {
			operate++
		} else {
			watch++
		}
	}
	fmt.Fprintf(e.stderr, "aipwatch serve: listening on %s for %s (%s %s: %s)\n", srv.Addr(), o.conn.shownURL(), how, fp, cfg.HostKey)
	fmt.Fprintf(e.stderr, "aipwatch serve: %d keys may watch, %d may also cancel; audit log %s\n", watch, operate, cfg.AuditLog)
	ctx, stop := detachContext()
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-done; err == nil {
			err = serr
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(e.stderr, "aipwatch serve: %s\n", safe.Line(err.Error()))
		return model.ExitError
	}
	return 0
}

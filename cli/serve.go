package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"aipwatch/config"
	"aipwatch/journal"
	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/serve"
)

// `aipwatch serve` (design §15): the console served to a team over SSH.
// The command decides the daemon as every command does (conn.go) and
// hands the server its one reader of it; serve/ does the rest (its
// settings: serve.Settings).

func serveCommand(e *runEnv, g *globalFlags) *cobra.Command {
	var sf config.Serve // the flags, each the [serve] key of the same name
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
	fs.StringVar(&sf.Listen, "listen", "", "listen on `ADDR`, host:port (default "+serve.DefaultListen+", or the config file's serve.listen)")
	fs.StringVar(&sf.AuthorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys `FILE` of the people who may watch, each key's comment naming its person")
	fs.StringVar(&sf.OperatorKeys, "operator-keys", "", "authorized_keys `FILE` of the people who may also cancel")
	fs.StringVar(&sf.HostKey, "host-key", "", "the server's private host key `FILE`, made on first start (default "+serve.HostKeyName+" in the state directory)")
	fs.StringVar(&sf.AuditLog, "audit-log", "", "`FILE` of the audit log: each cancel, who sent it and the daemon's answer, as JSON lines (default "+serve.AuditLogName+" in the state directory)")
	fs.StringVar(&sf.Log, "log", "", "`FILE` the sessions joining and leaving are logged to (default stderr)")
	fs.IntVar(&sf.MaxSessions, "max-sessions", 0, fmt.Sprintf("sessions at once, `N` (default %d)", serve.DefaultMaxSessions))
	fs.DurationVar(&sf.IdleTimeout, "idle-timeout", 0, fmt.Sprintf("close a session after this `DURATION` without a key pressed (default %s; 0: never)", serve.DefaultIdleTimeout))
	fs.IntVar(&sf.ConnRate, "conn-rate", 0, fmt.Sprintf("connections a minute one address may open, `N` (default %d)", serve.DefaultConnRate))
	c.RunE = versioned(e, g, func(c *cobra.Command, _ []string) error {
		file, err := filesOf(g.cf, e.getenv).Config()
		if err != nil {
			return err
		}
		// The state directory is the journal's (one rule: journal.Path).
		cfg, err := serve.Settings(sf, c.Flags().Changed, file, func() (string, error) {
			jpath, err := journal.Path(e.getenv)
			return filepath.Dir(jpath), err
		})
		if err != nil {
			return err // a usage error, as every error RunE returns (usageExit)
		}
		return e.exit(runServe(e, g, cfg))
	})
	return c
}

// runServe serves the console on the run's daemon until SIGINT, SIGTERM
// or SIGHUP (serve.Serve).
func runServe(e *runEnv, g *globalFlags, cfg serve.Config) int {
	o := &watch{g: *g, e: e, conn: newConn(g.cf, true, e.getenv)}
	if err := o.conn.check(); err != nil {
		return o.fail(err)
	}
	d := contextDaemon{c: &o.conn, run: o}
	d.client, d.err = o.conn.daemon(e.stderr)
	if d.err != nil {
		return o.fail(d.err)
	}
	cfg.Source = serve.Source{Daemon: d.client.NewPoller(0), Follow: d.follow, Judge: d.judge()}
	cfg.Views = serve.Views{Keys: e.keys.Console, LiveKeys: e.keys.Live, Version: versionString(),
		Reconcile: reconcilerFor(&o.conn, e.getenv, g.redact), Notification: func(term string) func(*model.Action) string {
			// The client's terminal, as its pty request names it.
			route := safe.NotifyRoute{OSC777: safe.SpeaksOSC777(term, ""), Mux: safe.DetectMultiplexer("", "", term)}
			return func(a *model.Action) string { return output.Notification(a, route) }
		}}
	ctx, stop := detachContext()
	defer stop()
	code, err := serve.Serve(ctx, cfg, o.conn.shownURL(), e.stderr)
	if err != nil {
		return o.fail(err) // it did not start
	}
	return code
}

package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// shutdownWait bounds how long Serve waits for the sessions to end once
// told the server stops.
const shutdownWait = 10 * time.Second

// Serve is `aipwatch serve` from its settings on: it opens the session log
// (cfg.LogFile, else stderr), starts the server, says on stderr where it
// listens for daemonURL (the daemon as the command shows it), its host
// key's fingerprint and how many keys may watch and cancel, and serves
// until ctx ends (the command's signals); then it tells the sessions,
// waits for them up to 10 s and stops. err is why the server did not
// start (the command says it as it says its errors); once started, Serve
// says its own failure on stderr and code is the exit code.
func Serve(ctx context.Context, cfg Config, daemonURL string, stderr io.Writer) (code int, err error) {
	cfg.Log = stderr
	if cfg.LogFile != "" {
		f, err := safe.OpenPrivate(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
		if err != nil {
			return model.ExitError, fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		cfg.Log = safe.NewWriter(f, safe.Terminal)
	}
	srv, err := New(cfg)
	if err != nil {
		return model.ExitError, fmt.Errorf("serve: %w", err)
	}
	srv.announce(daemonURL, stderr)
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-done; err == nil {
			err = serr
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "aipwatch serve: %s\n", safe.Line(err.Error()))
		return model.ExitError, nil
	}
	return 0, nil
}

// announce says the server's two start lines: where it listens and for
// which daemon, its host key (made now or not) and fingerprint, then how
// many keys may watch and how many may also cancel, and the audit log.
func (s *Server) announce(daemonURL string, w io.Writer) {
	fp, made := s.HostKeyFingerprint()
	how := "host key"
	if made {
		how = "host key made now"
	}
	watch, operate := 0, 0
	for _, p := range s.People() {
		if p.Role.CanCancel() {
			operate++
		} else {
			watch++
		}
	}
	fmt.Fprintf(w, "aipwatch serve: listening on %s for %s (%s %s: %s)\n", s.Addr(), daemonURL, how, fp, s.cfg.HostKey)
	fmt.Fprintf(w, "aipwatch serve: %d keys may watch, %d may also cancel; audit log %s\n", watch, operate, s.cfg.AuditLog)
}

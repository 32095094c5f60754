// Package serve is `aipwatch serve` (design §15): the console served to a
// team over SSH, so that operators watch and cancel from any terminal and
// the daemon's bearer token stays on one host. It holds the SSH server
// (charm.land/wish and its Bubble Tea middleware), who may connect and as
// what (keys.go), the audit log (audit.go), the bounds against hostile
// clients (limits.go, output.go), the one reader of the daemon shared by
// every session (hub.go, feed.go), and the seam that builds a session's
// views (session.go). The command (cli/serve.go) turns its flags and the
// config file into a Config with Settings (settings.go), decides the
// daemon's connection and hands it over as a Source, and serves with
// Serve (serving.go).
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	bm "charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"aipwatch/safe"
	"aipwatch/ui"
)

// Config is a server's settings.
type Config struct {
	Listen         string        // host:port
	AuthorizedKeys string        // keys that watch
	OperatorKeys   string        // keys that also cancel
	HostKey        string        // the host key's file (made when missing)
	AuditLog       string        // the audit log's file
	MaxSessions    int           // sessions at once (0: DefaultMaxSessions)
	IdleTimeout    time.Duration // a session with no key or window change for this long is closed (< 0: never; 0: DefaultIdleTimeout)
	ConnRate       int           // connections a minute from one address (0: DefaultConnRate)
	// Log gets a line for each session joining and leaving, each refusal
	// and each cancel (nil: discarded).
	Log io.Writer
	// LogFile is the session log's file, which Serve opens (appending) for
	// Log ("": Serve's stderr). New does not read it.
	LogFile string
	Source  Source
	Views   Views
}

// Defaults of the limits.
const (
	DefaultListen      = "127.0.0.1:2222"
	DefaultMaxSessions = 32
	DefaultIdleTimeout = 30 * time.Minute
	DefaultConnRate    = 10
	// handshakeTimeout bounds an SSH handshake and its authentication.
	handshakeTimeout = 20 * time.Second
	// spareConns are connections beyond the sessions' bound that may be
	// open at once (handshakes under way, a session being refused).
	spareConns = 16
	// checkEvery is how often idle sessions and removed keys are looked for.
	checkEvery = time.Second
	// endWait bounds how long a session's program has to end once told.
	endWait = 5 * time.Second
)

// Server is a running `aipwatch serve`.
type Server struct {
	cfg   Config
	views Views
	keys  *keyring
	audit *audit
	hub   *hub
	gate  *gate
	srv   *ssh.Server
	ln    net.Listener

	hostKey        gossh.PublicKey
	hostKeyCreated bool

	ctx    context.Context
	cancel context.CancelFunc

	logMu sync.Mutex
	log   io.Writer

	mu       sync.Mutex
	sessions map[int64]*liveSession
	bySess   map[ssh.Session]*liveSession // a connection may carry several sessions
	conns    map[*connState]struct{}
	nextID   int64
	closing  bool
	wg       sync.WaitGroup // the sessions' handlers
}

// liveSession is one session while it runs.
type liveSession struct {
	info    *sessionInfo
	sess    ssh.Session
	ctx     context.Context
	cancel  context.CancelFunc
	act     *activity
	out     *frameWriter
	program atomic.Pointer[tea.Program]
	closeFn func()
	fatal   func() error           // why the screen stopped on its own
	why     atomic.Pointer[string] // why the server ended it ("" = the client did)
	conn    *connState
	ended   chan struct{}
}

type ctxKey struct{ name string }

// connKey holds the connection's connState.
var connKey = &ctxKey{"conn"}

// connState is one connection: its session channels open, its sessions
// running, and since when it has run none.
type connState struct {
	conn      net.Conn
	remote    string
	channels  atomic.Int32
	sessions  atomic.Int32
	idleSince atomic.Int64 // unix nanos: since when no session runs on it (0: one does)
}

// sessionless is how long a connection may hold no running session (after
// its handshake, or after its last session ended) before it is closed: a
// connection is for sessions, and one that only opens channels and sends
// requests holds the server's memory for nothing.
var sessionless = 30 * time.Second

// maxChannels bounds the session channels one connection may hold open
// (ssh's multiplexing opens a few; a client that opens thousands without
// asking for a terminal would hold the server's memory).
const maxChannels = 8

// New reads the keys and the host key (making it when missing), opens the
// audit log and listens; Serve then serves.
func New(cfg Config) (*Server, error) {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.ConnRate <= 0 {
		cfg.ConnRate = DefaultConnRate
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Source.Daemon == nil || cfg.Source.Follow == nil {
		return nil, errors.New("serve: no daemon")
	}
	if cfg.HostKey == "" || cfg.AuditLog == "" {
		return nil, errors.New("serve: no host key or audit log path")
	}
	keys, err := newKeyring(cfg.AuthorizedKeys, cfg.OperatorKeys)
	if err != nil {
		return nil, err
	}
	signer, created, err := loadHostKey(cfg.HostKey)
	if err != nil {
		return nil, err
	}
	au, err := openAudit(cfg.AuditLog)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		_ = au.close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, views: cfg.Views, keys: keys, audit: au, gate: newGate(cfg.ConnRate, cfg.MaxSessions+spareConns),
		ln: ln, hostKey: signer.PublicKey(), hostKeyCreated: created, ctx: ctx, cancel: cancel, log: cfg.Log,
		sessions: map[int64]*liveSession{}, bySess: map[ssh.Session]*liveSession{}, conns: map[*connState]struct{}{}}
	s.hub = newHub(ctx, cfg.Source, cfg.Views.PollEvery)
	s.srv, err = wish.NewServer(
		wish.WithPublicKeyAuth(s.authorize),
		func(srv *ssh.Server) error {
			srv.AddHostKey(signer)
			srv.HandshakeTimeout = handshakeTimeout
			srv.ConnCallback = s.admitConn
			srv.ConnectionFailedCallback = s.connFailed
			// Sessions only: no forwarding of any kind, no subsystem (sftp,
			// scp's), no global request.
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			srv.RequestHandlers = map[string]ssh.RequestHandler{}
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
			srv.LocalPortForwardingCallback = nil
			srv.ReversePortForwardingCallback = nil
			return nil
		},
		wish.WithMiddleware(s.finish, bm.MiddlewareWithProgramHandler(s.program), s.admit),
	)
	if err != nil {
		ln.Close()
		_ = au.close()
		cancel()
		return nil, err
	}
	return s, nil
}

// Addr is where the server listens.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// HostKeyFingerprint is the host key's SHA256 fingerprint, and whether it
// was made by this start.
func (s *Server) HostKeyFingerprint() (string, bool) {
	return gossh.FingerprintSHA256(s.hostKey), s.hostKeyCreated
}

// People are the keys the files grant (the command prints how many).
func (s *Server) People() []Person { return s.keys.people() }

// Serve serves until Shutdown; it returns nil once shut down.
func (s *Server) Serve() error {
	go s.watch()
	err := s.srv.Serve(s.ln)
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing || errors.Is(err, ssh.ErrServerClosed) {
		return nil // Shutdown closed the listener
	}
	return err
}

// Shutdown tells every session the server stops and ends it, waits for
// them (until ctx ends), then closes the audit log.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	open := make([]*liveSession, 0, len(s.sessions))
	for _, ls := range s.sessions {
		open = append(open, ls)
	}
	s.mu.Unlock()
	_ = s.ln.Close()
	for _, ls := range open {
		s.end(ls, "the server is shutting down")
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	if err := s.srv.Shutdown(sctx); err != nil {
		_ = s.srv.Close()
	}
	cancel()
	s.cancel()
	err := s.audit.close()
	s.logf("stopped; audit log closed")
	return err
}

// logf writes one line of the session log.
func (s *Server) logf(format string, args ...any) {
	line := safe.Line(fmt.Sprintf(format, args...))
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339), line)
}

// admitConn is the first look at a connection: the per-address rate and
// the bound on connections open; a refused one is closed unread.
func (s *Server) admitConn(ctx ssh.Context, conn net.Conn) net.Conn {
	why, say := s.gate.admit(conn.RemoteAddr(), time.Now())
	if why != "" {
		if say {
			s.logf("refused a connection from %s: %s (further refusals of it this minute are not logged)", conn.RemoteAddr(), why)
		}
		return nil
	}
	cs := &connState{remote: conn.RemoteAddr().String()}
	cs.idleSince.Store(time.Now().UnixNano())
	gc := &gatedConn{Conn: conn, done: func() {
		s.gate.done()
		s.mu.Lock()
		delete(s.conns, cs)
		s.mu.Unlock()
	}}
	cs.conn = gc
	s.mu.Lock()
	s.conns[cs] = struct{}{}
	s.mu.Unlock()
	ctx.SetValue(connKey, cs)
	return gc
}

// sessionChannel is the one channel type served, at most maxChannels
// open on a connection.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	if cs, ok := ctx.Value(connKey).(*connState); ok {
		if cs.channels.Add(1) > maxChannels {
			cs.channels.Add(-1)
			_ = nc.Reject(gossh.ResourceShortage, fmt.Sprintf("at most %d sessions on one connection", maxChannels))
			return
		}
		defer cs.channels.Add(-1)
	}
	ssh.DefaultSessionHandler(srv, conn, nc, ctx)
}

// gatedConn gives its room back once, when it closes.
type gatedConn struct {
	net.Conn
	once sync.Once
	done func()
}

func (c *gatedConn) Close() error {
	c.once.Do(c.done)
	return c.Conn.Close()
}

// connFailed logs a connection whose handshake or authentication failed.
func (s *Server) connFailed(conn net.Conn, err error) {
	if errors.Is(err, io.EOF) {
		return // the client went away (a key probe, a port scan)
	}
	s.logf("refused %s: %v", conn.RemoteAddr(), err)
}

// authorize is the public key check: the key must be in a keys file (read
// again when a file changed). Passwords and keyboard-interactive are not
// offered, so every other method fails.
func (s *Server) authorize(_ ssh.Context, key ssh.PublicKey) bool {
	if _, err := s.keys.reload(); err != nil {
		s.logf("the keys files cannot be used, nobody may connect: %v", err)
	}
	_, ok := s.keys.lookup(key)
	return ok
}

// admit is the first step of a session: what it asks must be a terminal
// and the console or action IDs, and there must be room; then it runs
// (the Bubble Tea middleware) and is logged joining and leaving.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		// Who it is, from the key the connection authenticated with (the
		// one ssh verified the signature of, sess.PublicKey), looked up
		// in the keys files as they are now: never from a key the
		// client only offered, nor from a grant since removed.
		key := sess.PublicKey()
		if key == nil {
			refuse(sess, "no key")
			return
		}
		p, ok := s.keys.lookup(key)
		if !ok {
			s.logf("refused a session from %s: its key (%s) is no longer granted", sess.RemoteAddr(), gossh.FingerprintSHA256(key))
			refuse(sess, "your key is not granted by the server's keys files")
			return
		}
		args := sess.Command()
		no := func(why string) {
			s.logf("refused a session of %s (%s) from %s: %s", p.Name, p.Fingerprint, sess.RemoteAddr(), why)
			refuse(sess, why)
		}
		if sess.Subsystem() != "" {
			no("no subsystem here (no file transfer)")
			return
		}
		if err := checkArgs(args); err != nil {
			no(err.Error())
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			no("no terminal: this server shows the console; ssh -t HOST -p PORT (with act_… IDs for their live views)")
			return
		}
		ls, why := s.register(sess, p, args)
		if ls == nil {
			no(why)
			return
		}
		defer s.unregister(ls)
		s.logf("session %d: %s (%s, %s) joins from %s: %s", ls.info.id, p.Name, p.Fingerprint, p.Role, ls.info.remote, ls.info.what())
		next(sess)
	}
}

// refuse says why in one line and ends the session.
func refuse(sess ssh.Session, why string) {
	wish.Fatalln(sess, "aipwatch serve: "+safe.Line(why))
}

// register makes room for a session (nil and why when there is none).
func (s *Server) register(sess ssh.Session, p Person, args []string) (*liveSession, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, "the server is shutting down"
	}
	if len(s.sessions) >= s.cfg.MaxSessions {
		return nil, fmt.Sprintf("the server has its %d sessions open: try again later", s.cfg.MaxSessions)
	}
	s.nextID++
	ctx, cancel := context.WithCancel(s.ctx)
	stop := context.AfterFunc(sess.Context(), cancel)
	pty, _, _ := sess.Pty()
	ls := &liveSession{info: &sessionInfo{id: s.nextID, person: p, remote: sess.RemoteAddr().String(), term: pty.Term, args: args},
		sess: sess, ctx: ctx, act: newActivity(), ended: make(chan struct{})}
	ls.cancel = func() { stop(); cancel() }
	s.sessions[ls.info.id] = ls
	s.wg.Add(1)
	s.bySess[sess] = ls
	if cs, ok := sess.Context().Value(connKey).(*connState); ok {
		ls.conn = cs
		cs.sessions.Add(1)
		cs.idleSince.Store(0)
	}
	return ls, ""
}

func (s *Server) unregister(ls *liveSession) {
	ls.cancel()
	s.mu.Lock()
	delete(s.sessions, ls.info.id)
	delete(s.bySess, ls.sess)
	s.mu.Unlock()
	if cs := ls.conn; cs != nil && cs.sessions.Add(-1) == 0 {
		cs.idleSince.Store(time.Now().UnixNano())
	}
	close(ls.ended)
	why := "left"
	if w := ls.why.Load(); w != nil {
		why = "closed: " + *w
	}
	s.logf("session %d: %s %s", ls.info.id, ls.info.person.Name, why)
	s.wg.Done()
}

// lookup is the session's liveSession (nil before admit made it).
func (s *Server) lookup(sess ssh.Session) *liveSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bySess[sess]
}

// program builds the session's Bubble Tea program (the middleware runs
// it): its views (session.go), its input (each read the client's
// activity), its output (frameWriter: never waits for the client), its
// size (clamped, resizes paced), and no signal handling of its own (the
// server's signals are the server's).
func (s *Server) program(sess ssh.Session) *tea.Program {
	ls := s.lookup(sess)
	if ls == nil {
		return nil
	}
	pty, _, _ := sess.Pty()
	w, h := clampSize(pty.Window.Width, pty.Window.Height)
	screen, closeFn, fatal := s.sessionViews(ls.ctx, ls.info)
	ls.closeFn, ls.fatal = closeFn, fatal
	ls.out = newFrameWriter(sess)
	sz := &sizer{touch: ls.act.touch}
	m, opts, _ := ui.Program(screen, ui.Terminal{
		Input:  activeReader{r: sess, a: ls.act},
		Output: ls.out,
		Width:  w, Height: h,
		Env: append(sess.Environ(), "TERM="+pty.Term),
	})
	// wish's options first (its colour profile from the session's
	// environment), the shell's over them, then the server's own.
	opts = append(append(bm.MakeOptions(sess), opts...),
		tea.WithFilter(sz.filter),
		tea.WithoutSignalHandler(),
	)
	p := tea.NewProgram(m, opts...)
	sz.mu.Lock()
	sz.send = p.Send
	sz.mu.Unlock()
	ls.out.setRepaint(func() { p.Send(tea.ClearScreen()) })
	ls.program.Store(p)
	return p
}

// finish is the last step of a session, once its program has ended:
// its views stop, its last frame reaches the client, and a session the
// server ended is told why.
func (s *Server) finish(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if ls := s.lookup(sess); ls != nil {
			if ls.closeFn != nil {
				ls.closeFn()
			}
			if ls.out != nil {
				ls.out.flush(time.Second)
				ls.out.close()
			}
			if ls.fatal != nil {
				if err := ls.fatal(); err != nil {
					why := "the console stopped: " + err.Error()
					ls.why.CompareAndSwap(nil, &why)
				}
			}
			if w := ls.why.Load(); w != nil {
				_, _ = io.WriteString(sess.Stderr(), "aipwatch serve: "+safe.Line(*w)+"\r\n")
				_ = sess.Exit(1)
			}
		}
		next(sess)
	}
}

// end ends a session for why: its program quits (its views stop), and if
// it does not within endWait the connection is closed.
func (s *Server) end(ls *liveSession, why string) {
	if !ls.why.CompareAndSwap(nil, &why) {
		return
	}
	if p := ls.program.Load(); p != nil {
		p.Quit()
	} else {
		ls.cancel()
	}
	go func() {
		select {
		case <-ls.ended:
		case <-time.After(endWait):
			_ = ls.sess.Close()
		}
	}()
}

// watch ends the sessions gone idle and those whose key a keys file no
// longer grants (or grants another role now), once a second.
func (s *Server) watch() {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		reread, kerr := s.keys.reload()
		if reread && kerr != nil {
			s.logf("the keys files cannot be used, nobody may connect: %v", kerr)
		}
		s.mu.Lock()
		open := make([]*liveSession, 0, len(s.sessions))
		for _, ls := range s.sessions {
			open = append(open, ls)
		}
		var bare []*connState
		for cs := range s.conns {
			if since := cs.idleSince.Load(); since != 0 && time.Since(time.Unix(0, since)) >= sessionless {
				bare = append(bare, cs)
			}
		}
		s.mu.Unlock()
		for _, cs := range bare {
			s.logf("closed a connection from %s: no session on it for %s", cs.remote, sessionless)
			_ = cs.conn.Close()
		}
		for _, ls := range open {
			if reread && !s.stillGranted(ls) {
				s.end(ls, "your key is no longer granted "+string(ls.info.person.Role)+" by the server's keys files")
				continue
			}
			if s.cfg.IdleTimeout > 0 && ls.act.idle() >= s.cfg.IdleTimeout {
				s.end(ls, "idle for "+s.cfg.IdleTimeout.String()+" (no key pressed): closed")
			}
		}
	}
}

// stillGranted: the session's key is in the files with the same role.
func (s *Server) stillGranted(ls *liveSession) bool {
	for _, p := range s.keys.people() {
		if p.Fingerprint == ls.info.person.Fingerprint {
			return p.Role == ls.info.person.Role
		}
	}
	return false
}

// sessionCount is how many sessions run (tests).
func (s *Server) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

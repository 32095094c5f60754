package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"aipwatch/internal/keysrc"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// The tests drive the real server over loopback with golang.org/x/crypto/ssh
// as the client, against the simulator: what an operator's ssh does.

// wait bounds every wait for a frame or an event: a hang guard on a loaded
// machine, never a timing assertion.
const wait = 30 * time.Second

// fixture is a simulated daemon and a server reading it.
type fixture struct {
	t        *testing.T
	fleet    *sim.Fleet
	token    string
	srv      *Server
	addr     string
	dir      string
	watcher  gossh.Signer
	operator gossh.Signer
	stranger gossh.Signer
	log      *syncBuffer
	audit    string
	served   chan error
}

// The simulated fleet's actions.
const (
	liveID    = "act_serve_sync_long"
	asyncID   = "act_serve_async_long"
	chatID    = "act_serve_sync_chat"
	settledID = "act_serve_done_chat_error"
)

type fixtureOpt func(*fixture, *Config)

func newFixture(t *testing.T, opts ...fixtureOpt) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir(), log: &syncBuffer{}}
	f.token = freshToken()
	safe.Protect(f.token)
	fleet, err := sim.NewFleet(sim.FleetKnobs{Token: f.token, GlobalEvents: true},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 1, ActionID: liveID}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: asyncID}},
		// A hostile daemon for this one: it echoes the token into every
		// field it sends of the action (sim.Knobs.EchoToken).
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Speed: 1, ActionID: chatID, EchoToken: f.token}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: settledID}},
	)
	if err != nil {
		t.Fatal(err)
	}
	u, err := fleet.Start()
	if err != nil {
		t.Fatal(err)
	}
	f.fleet = fleet
	t.Cleanup(fleet.Close)
	f.watcher, f.operator, f.stranger = newSigner(t), newSigner(t), newSigner(t)
	watchFile := filepath.Join(f.dir, "watchers")
	opFile := filepath.Join(f.dir, "operators")
	writeKeys(t, watchFile, keyLine(f.watcher, "wanda@watch"))
	writeKeys(t, opFile, keyLine(f.operator, "olga@oncall"))
	f.audit = filepath.Join(f.dir, "audit.jsonl")
	cfg := Config{Listen: "127.0.0.1:0", AuthorizedKeys: watchFile, OperatorKeys: opFile,
		HostKey: filepath.Join(f.dir, "state", HostKeyName), AuditLog: f.audit, ConnRate: 1000, Log: f.log,
		Source: simSource(t, u, f.token), Views: testViews(t)}
	for _, o := range opts {
		o(f, &cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.addr = srv, srv.Addr().String()
	f.served = make(chan error, 1)
	go func() { f.served <- srv.Serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if err := <-f.served; err != nil {
			t.Logf("the server ended: %v", err)
		}
	})
	return f
}

// settledDaemon is a simulated daemon of one settled action (settledID)
// behind a fresh token, protected; it stops when the test ends.
func settledDaemon(t testing.TB) (u, token string) {
	t.Helper()
	token = freshToken()
	safe.Protect(token)
	fleet, err := sim.NewFleet(sim.FleetKnobs{Token: token},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: settledID}})
	if err != nil {
		t.Fatal(err)
	}
	u, err = fleet.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fleet.Close)
	return u, token
}

// simSource reads the simulator as the command's conn would.
func simSource(t testing.TB, u, token string) Source {
	cfg := stream.Config{BaseURL: u, Token: token, BackoffMin: 10 * time.Millisecond, BackoffMax: 200 * time.Millisecond}
	d, err := stream.NewDaemon(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Source{Daemon: d.NewPoller(0), Judge: stream.NewJudge(cfg, stream.JudgeOptions{}),
		Follow: func(id string) stream.Runner {
			c := cfg
			c.ActionID = id
			r, err := stream.New(c)
			if err != nil {
				return nil
			}
			return r
		}}
}

var keysOnce struct {
	sync.Once
	live    ui.KeyMap
	console ui.ConsoleKeyMap
	err     error
}

// testViews are the views' settings with the operator's real keys
// (../keymap.go, read through internal/keysrc as ui's tests do).
func testViews(t testing.TB) Views {
	keysOnce.Do(func() {
		keysOnce.err = keysrc.Load("../keymap.go", map[string]any{"keyMap": &keysOnce.live, "consoleKeyMap": &keysOnce.console})
	})
	if keysOnce.err != nil {
		t.Fatal(keysOnce.err)
	}
	return Views{Keys: keysOnce.console, LiveKeys: keysOnce.live, Version: "test", PollEvery: 500 * time.Millisecond}
}

func freshToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "tok-" + hex.EncodeToString(b)
}

func newSigner(t testing.TB) gossh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keyLine(s gossh.Signer, name string) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey()))) + " " + name
}

func writeKeys(t testing.TB, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// dial connects with key.
func (f *fixture) dial(key gossh.Signer) (*gossh.Client, error) {
	return gossh.Dial("tcp", f.addr, &gossh.ClientConfig{User: "anyone", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
}

// term is one session with a terminal, as ssh -t opens it.
type term struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	stdin  interface{ Write([]byte) (int, error) }
	out    *syncBuffer
	errOut *syncBuffer
	done   chan error
	mark   int // the output's length at the last press
	w, h   int
}

// open opens a session with a w×h terminal: the console (no args), or
// the views of args.
func (f *fixture) open(key gossh.Signer, w, h int, args ...string) *term {
	f.t.Helper()
	return openTerm(f.t, f, key, w, h, args...)
}

func openTerm(t testing.TB, f *fixture, key gossh.Signer, w, h int, args ...string) *term {
	t.Helper()
	c, err := f.dial(key)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, client: c, sess: sess, out: &syncBuffer{}, errOut: &syncBuffer{}, done: make(chan error, 1), w: w, h: h}
	sess.Stdout, sess.Stderr = tm.out, tm.errOut
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tm.stdin = in
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if len(args) == 0 {
		err = sess.Shell()
	} else {
		err = sess.Start(strings.Join(args, " "))
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() { tm.done <- sess.Wait() }()
	t.Cleanup(func() { tm.close() })
	return tm
}

func (tm *term) close() {
	_ = tm.sess.Close()
	_ = tm.client.Close()
}

// press sends keys as typed; waitNew then looks at what is drawn after.
func (tm *term) press(keys string) {
	tm.t.Helper()
	tm.mark = tm.out.len()
	if _, err := tm.stdin.Write([]byte(keys)); err != nil {
		tm.t.Fatal(err)
	}
}

// waitFor waits until the screen's text (escape sequences removed) holds
// want.
func (tm *term) waitFor(want string) {
	tm.t.Helper()
	tm.waitFrom(0, want)
}

// waitNew waits until what was drawn since the last press holds want.
func (tm *term) waitNew(want string) {
	tm.t.Helper()
	tm.waitFrom(tm.mark, want)
}

// waitFrom waits until what was drawn from byte from on holds want. The
// renderer draws only the cells that changed, so a line can reach the
// client in pieces: when want is not there soon, a window change of the
// same size (which redraws every line whole) is asked for, again until
// the hang guard. The test sees what a terminal would show.
func (tm *term) waitFrom(from int, want string) {
	tm.t.Helper()
	if tm.out.waitTextFrom(from, want, time.Second) {
		return
	}
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); {
		m := tm.out.len()
		if err := tm.sess.WindowChange(tm.h, tm.w); err != nil {
			break
		}
		if tm.out.waitTextFrom(m, want, 2*time.Second) {
			return
		}
	}
	tm.t.Fatalf("never on screen: %q\nscreen text (end): %q", want, tail(tm.out.text(), 2000))
}

// exit waits for the session to end.
func (tm *term) exit() error {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		return err
	case <-time.After(wait):
		tm.t.Fatal("the session never ended")
		return nil
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// syncBuffer is a buffer written by one goroutine and read by another,
// which can wait for text to appear.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	wake chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// text is what was written with the escape sequences removed.
func (b *syncBuffer) text() string { return ansi.Strip(b.String()) }

func (b *syncBuffer) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Len()
}

// waitTextFrom waits for want in what was written from byte from on.
func (b *syncBuffer) waitTextFrom(from int, want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		b.mu.Lock()
		got := strings.Contains(ansi.Strip(string(b.b.Bytes()[from:])), want)
		if got {
			b.mu.Unlock()
			return true
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		select {
		case <-wake:
		case <-time.After(left):
		}
	}
}

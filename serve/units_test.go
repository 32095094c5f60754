package serve

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"aipwatch/stream"
)

// Every line of a keys file is a key whose comment names a person; what
// serve would not honour is refused, with the file and line named.
func TestKeysFileRules(t *testing.T) {
	dir := t.TempDir()
	k := newSigner(t)
	line := keyLine(k, "ana@example.org")
	bare := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.PublicKey())))
	for name, tc := range map[string]struct {
		body, want string
	}{
		"options":    {`from="10.0.0.0/8" ` + line, "key options"},
		"no comment": {bare, "no comment"},
		"garbage":    {"ssh-ed25519 AAAAnotbase64 x", ":1: not an OpenSSH public key"},
		"twice":      {line + "\n" + line, "the key of line 1 again"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		writeKeys(t, p, tc.body)
		_, err := newKeyring(p, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// A file others may write is refused, as the config file is.
	p := filepath.Join(dir, "loose")
	writeKeys(t, p, line)
	if err := os.Chmod(p, 0o622); err != nil {
		t.Fatal(err)
	}
	if _, err := newKeyring(p, ""); err == nil || !strings.Contains(err.Error(), "group or others") {
		t.Errorf("a group-writable keys file: %v", err)
	}
	// Comments and blank lines are skipped; the operators' file wins for
	// a key in both.
	w, o := filepath.Join(dir, "w"), filepath.Join(dir, "o")
	writeKeys(t, w, "# the team", "", line)
	writeKeys(t, o, line)
	kr, err := newKeyring(w, o)
	if err != nil {
		t.Fatal(err)
	}
	p2, ok := kr.lookup(k.PublicKey())
	if !ok || p2.Role != RoleOperator || p2.Name != "ana@example.org" || p2.Fingerprint != gossh.FingerprintSHA256(k.PublicKey()) {
		t.Fatalf("lookup: %+v %v", p2, ok)
	}
}

// A key removed from its file loses its open session, and may not
// connect again.
func TestRemovedKeyLosesItsSession(t *testing.T) {
	f := newFixture(t)
	tm := f.open(f.watcher, 80, 24)
	tm.waitFor(listedAsync)
	writeKeys(t, filepath.Join(f.dir, "watchers"), "# nobody")
	// A later mtime, whatever the file system's granularity.
	later := time.Now().Add(2 * time.Second)
	_ = os.Chtimes(filepath.Join(f.dir, "watchers"), later, later)
	if err := tm.exit(); err == nil {
		t.Fatal("the session ended well")
	}
	if !strings.Contains(tm.errOut.String(), "no longer granted") {
		t.Fatalf("the session was not told why: %q", tm.errOut.String())
	}
	if c, err := f.dial(f.watcher); err == nil {
		_ = c.Close()
		t.Fatal("a removed key connected")
	}
}

// A client that never reads: the program's writes never wait for it, the
// queue stays within its bound, writes are dropped, and once the client
// reads again a whole frame is asked for.
func TestStalledClientDropsFrames(t *testing.T) {
	stall := &stallWriter{open: make(chan struct{})}
	fw := newFrameWriter(stall)
	var repaints atomic.Int32
	fw.setRepaint(func() { repaints.Add(1) })
	frame := []byte(strings.Repeat("x", 64<<10))
	done := make(chan struct{})
	go func() {
		for range 200 { // 12.5 MiB, six times the bound
			_, _ = fw.Write(frame)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("a write waited for a client that does not read")
	}
	fw.mu.Lock()
	pending := len(fw.pending)
	fw.mu.Unlock()
	if pending > 2<<20 {
		t.Fatalf("%d bytes queued for a stalled client, over the 2 MiB bound", pending)
	}
	if fw.dropped.Load() == 0 {
		t.Fatal("nothing was dropped")
	}
	close(stall.open)
	waitUntil(t, "a whole frame asked for once the client reads", func() bool { return repaints.Load() == 1 })
	fw.close()
}

type stallWriter struct {
	open chan struct{}
	n    atomic.Int64
}

func (s *stallWriter) Write(p []byte) (int, error) {
	<-s.open
	s.n.Add(int64(len(p)))
	return len(p), nil
}

// Twenty consoles polling at once cost the daemon one poll; the next one
// after the poll period a second.
func TestPollsShared(t *testing.T) {
	d := &countingDaemon{gate: make(chan struct{})}
	h := newHub(t.Context(), Source{Daemon: d}, time.Hour)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.daemon().Poll(t.Context()); err != nil {
				t.Error(err)
			}
		}()
	}
	waitUntil(t, "the poll starts", func() bool { return d.polls.Load() == 1 })
	close(d.gate)
	wg.Wait()
	if _, err := h.daemon().Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := d.polls.Load(); n != 1 {
		t.Fatalf("%d polls of the daemon for 21 consoles within the period, want 1", n)
	}
	h.pollEvery = time.Nanosecond
	if _, err := h.daemon().Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := d.polls.Load(); n != 2 {
		t.Fatalf("%d polls after the period, want 2", n)
	}
}

type countingDaemon struct {
	polls atomic.Int64
	gate  chan struct{}
}

func (d *countingDaemon) Poll(ctx context.Context) (stream.Window, error) {
	d.polls.Add(1)
	select {
	case <-d.gate:
	case <-ctx.Done():
	}
	return stream.Window{}, nil
}

func (d *countingDaemon) ListAt(context.Context, stream.ListQuery, int, int) (stream.ListPage, error) {
	return stream.ListPage{}, nil
}

func (d *countingDaemon) FollowGlobal(ctx context.Context, _ stream.GlobalOptions, _ stream.Sink) error {
	<-ctx.Done()
	return ctx.Err()
}

// The audit line is on disk before the cancel request leaves; a log that
// cannot record it sends nothing.
func TestAuditBeforeCancel(t *testing.T) {
	dir := t.TempDir()
	au, err := openAudit(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{audit: au, log: io.Discard}
	si := &sessionInfo{id: 7, person: Person{Name: "olga", Fingerprint: "SHA256:x", Role: RoleOperator}, remote: "10.0.0.1:5"}
	var seen string
	inner := &fakeRunner{cancel: func(reason string) stream.CancelMsg {
		b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
		seen = string(b)
		if !strings.Contains(reason, "olga") || !strings.Contains(reason, "SHA256:x") {
			t.Errorf("the reason sent names no operator: %q", reason)
		}
		return stream.CancelMsg{Accepted: true}
	}}
	r := &sessionRunner{Runner: inner, s: s, si: si, id: "act_1"}
	if reply := r.Cancel(t.Context(), "whatever the view said"); !reply.Accepted {
		t.Fatalf("reply: %+v", reply)
	}
	if !strings.Contains(seen, `"event":"cancel"`) || !strings.Contains(seen, `"action":"act_1"`) {
		t.Fatalf("the audit log when the request left: %q", seen)
	}
	_ = au.close()
	inner.calls = 0
	if reply := r.Cancel(t.Context(), ""); reply.Accepted || inner.calls != 0 {
		t.Fatalf("a cancel the audit log could not record was sent: %+v", reply)
	}
	// A watcher's runner sends nothing.
	w := &sessionRunner{Runner: inner, s: s, si: &sessionInfo{person: Person{Role: RoleWatch}}, id: "act_1"}
	if reply := w.Cancel(t.Context(), ""); reply.Accepted || inner.calls != 0 {
		t.Fatalf("a watcher's cancel was sent: %+v", reply)
	}
}

type fakeRunner struct {
	calls  int
	cancel func(string) stream.CancelMsg
}

func (f *fakeRunner) Run(ctx context.Context, _ stream.Sink) error { <-ctx.Done(); return ctx.Err() }

func (f *fakeRunner) Cancel(_ context.Context, reason string) stream.CancelMsg {
	f.calls++
	return f.cancel(reason)
}

// The per-address rate: past it a connection is refused, and the
// refusal logged once a minute.
func TestConnRate(t *testing.T) {
	g := newGate(3, 100)
	addr := &fakeAddr{"10.1.2.3:4000"}
	now := time.Now()
	for i := range 3 {
		if why, _ := g.admit(addr, now); why != "" {
			t.Fatalf("connection %d refused: %s", i+1, why)
		}
	}
	why, logged := g.admit(addr, now)
	if why == "" || !logged {
		t.Fatalf("the 4th connection in a minute: %q %v", why, logged)
	}
	if _, logged := g.admit(addr, now); logged {
		t.Fatal("a second refusal within the minute logged again")
	}
	if why, _ := g.admit(&fakeAddr{"10.9.9.9:1"}, now); why != "" {
		t.Fatalf("another address refused: %s", why)
	}
	if why, _ := g.admit(addr, now.Add(30*time.Second)); why != "" {
		t.Fatalf("refused after the bucket refilled: %s", why)
	}
}

type fakeAddr struct{ s string }

func (a *fakeAddr) Network() string { return "tcp" }
func (a *fakeAddr) String() string  { return a.s }

// A session without a key pressed for the idle timeout is closed, and
// told why. (It waits for no screen first: on a loaded machine the first
// list may take longer than the timeout to draw.)
func TestIdleSessionClosed(t *testing.T) {
	f := newFixture(t, func(_ *fixture, c *Config) { c.IdleTimeout = 2 * time.Second })
	tm := f.open(f.watcher, 80, 24)
	if err := tm.exit(); err == nil {
		t.Fatal("the idle session ended well")
	}
	if !strings.Contains(tm.errOut.String(), "idle for 2s") {
		t.Fatalf("the session was not told why: %q", tm.errOut.String())
	}
	waitUntil(t, "the session log says why it closed", func() bool { return strings.Contains(f.log.String(), "closed: idle") })
}

// The host key is made once (0600) and read on the next start; one that
// others may read is refused.
func TestHostKey(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state", HostKeyName)
	s1, made, err := loadHostKey(p)
	if err != nil || !made {
		t.Fatalf("first start: %v %v", made, err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host key's mode: %v %v", fi.Mode(), err)
	}
	s2, made, err := loadHostKey(p)
	if err != nil || made {
		t.Fatalf("second start: %v %v", made, err)
	}
	if gossh.FingerprintSHA256(s1.PublicKey()) != gossh.FingerprintSHA256(s2.PublicKey()) {
		t.Fatal("the second start made another key")
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadHostKey(p); err == nil || !strings.Contains(err.Error(), "group or others") {
		t.Fatalf("a readable host key: %v", err)
	}
}

// A connection that runs no session (it only opens channels, or sends
// requests) is closed after the grace; one with a session is not.
func TestSessionlessConnectionClosed(t *testing.T) {
	old := sessionless
	// Long enough that the busy session's handshake and shell request,
	// on a loaded machine, come well inside it; short for a test.
	sessionless = 5 * time.Second
	t.Cleanup(func() { sessionless = old })
	f := newFixture(t)
	busy := f.open(f.watcher, 80, 24)
	busy.waitFor(listedAsync)
	c, err := f.dial(f.watcher)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NewSession(); err != nil { // a channel, never a terminal or a shell
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Wait() }()
	select {
	case err := <-closed:
		t.Logf("the connection closed: %v", err)
	case <-time.After(wait):
		t.Fatal("a connection without a session stayed open")
	}
	if !strings.Contains(f.log.String(), "no session on it") {
		t.Fatalf("the log: %q", f.log.String())
	}
	if f.srv.sessionCount() != 1 {
		t.Fatalf("%d sessions, want the busy one", f.srv.sessionCount())
	}
}

// One frame larger than the queue's bound (a huge window's) is written
// when nothing else is queued, not dropped for ever.
func TestFrameLargerThanTheBound(t *testing.T) {
	out := &syncBuffer{}
	fw := newFrameWriter(out)
	defer fw.close()
	big := strings.Repeat("y", 3<<20)
	if _, err := fw.Write([]byte(big)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the big frame written", func() bool { return out.len() == len(big) })
	if fw.dropped.Load() != 0 {
		t.Fatal("the frame was dropped")
	}
}

package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"aipwatch/sim"
)

// BenchmarkServe: 1, 5 and 20 sessions of the console (and as many of the
// live view of the streaming action, ssh -t HOST act_…) on the
// production-sized simulator (100,000 settled actions, 1,000,000 events
// in the global log, two live actions), each session a real SSH client
// pressing keys for the window after a warm-up of 5 s (SERVE_BENCH_WINDOW,
// default 30s; the
// console's poll period is its default, 3 s). Reported: the daemon's list
// requests, global-log requests and requests to the live actions per
// minute (flat in N: the hub reads once for all), the follows of an
// action and of the global log the hub opened (one each, whatever N: a
// follow is one long request, so its requests a minute are its
// reconnections), the server's resident
// memory a session (RSS after / before, over N, after a GC; the clients
// are in the process too, and count), and the p99 of a key's frame: from
// a key written to the first bytes of the frame it changed, per session.
//
//	go test -run '^$' -bench Serve -benchtime 1x ./serve/
func BenchmarkServe(b *testing.B) {
	window := 30 * time.Second
	if s := os.Getenv("SERVE_BENCH_WINDOW"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			window = d
		}
	}
	for _, view := range []string{"console", "live"} {
		for _, n := range []int{1, 5, 20} {
			b.Run(fmt.Sprintf("%s/sessions=%d", view, n), func(b *testing.B) {
				var args []string
				if view == "live" {
					args = []string{sim.ProductionLive[0]} // the streaming action's live view
				}
				for range b.N {
					benchSessions(b, n, window, args)
				}
			})
		}
	}
}

// warmUp is how long the sessions run before the window: their joins
// (the global log's catch-up, a live view's replay) are not counted.
const warmUp = 5 * time.Second

func benchSessions(b *testing.B, n int, window time.Duration, args []string) {
	fleet, err := sim.ProductionFleet(1, sim.History{Actions: 100_000, Events: 1_000_000})
	if err != nil {
		b.Fatal(err)
	}
	u, err := fleet.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer fleet.Close()
	dir := b.TempDir()
	key := newSigner(b)
	writeKeys(b, filepath.Join(dir, "watchers"), keyLine(key, "bench@watch"))
	views := testViews(b)
	views.PollEvery = 0 // the console's own period
	srv, err := New(Config{Listen: "127.0.0.1:0", AuthorizedKeys: filepath.Join(dir, "watchers"),
		HostKey: filepath.Join(dir, HostKeyName), AuditLog: filepath.Join(dir, "audit.jsonl"),
		MaxSessions: n, ConnRate: 1000, Source: simSource(b, u, ""), Views: views})
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		_ = srv.Shutdown(ctx)
		cancel()
		if err := <-served; err != nil {
			b.Logf("the server ended: %v", err)
		}
	}()
	runtime.GC()
	debug.FreeOSMemory()
	before := rssBytes()
	clients := make([]*benchClient, n)
	for i := range clients {
		clients[i] = dialBench(b, srv.Addr().String(), key, args)
	}
	for _, c := range clients {
		c.waitBytes(b, 4096) // the screen drawn
	}
	time.Sleep(warmUp)
	st0, act0 := fleet.Stats(), liveRequests(fleet)
	cpu0 := cpuTime()
	start := time.Now()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := c.pressFor(b, window)
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1 := cpuTime()
	st1, act1 := fleet.Stats(), liveRequests(fleet)
	runtime.GC()
	debug.FreeOSMemory()
	after := rssBytes()
	perMin := func(d int64) float64 { return float64(d) * float64(time.Minute) / float64(elapsed) }
	b.ReportMetric(perMin(st1.ListRequests-st0.ListRequests), "list-req/min")
	b.ReportMetric(perMin(st1.EventRequests-st0.EventRequests), "global-req/min")
	b.ReportMetric(perMin(act1-act0), "action-req/min")
	b.ReportMetric(float64(srv.hub.counts.follows.Load()), "action-follows")
	b.ReportMetric(float64(srv.hub.counts.globals.Load()), "global-follows")
	b.ReportMetric(float64(after-before)/float64(n)/(1<<20), "RSS-MB/session")
	b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/elapsed.Seconds()/float64(n), "cpu-ms/s/session")
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "frame-p99-ms")
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "frame-p50-ms")
	}
	for _, c := range clients {
		c.close()
	}
}

// cpuTime is the process's CPU time (user and system): the server, the
// simulator and the clients, all in this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveRequests counts the requests the fleet's live actions received.
func liveRequests(f *sim.Fleet) int64 {
	var n int64
	for _, s := range f.Actions() {
		n += int64(len(s.Requests()))
	}
	return n
}

// rssBytes is the process's resident set (Linux; 0 elsewhere).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// benchClient is one session whose output is counted, not kept.
type benchClient struct {
	client *gossh.Client
	sess   *gossh.Session
	in     interface{ Write([]byte) (int, error) }
	bytes  atomic.Int64
	wake   chan struct{}
}

func (c *benchClient) Write(p []byte) (int, error) {
	c.bytes.Add(int64(len(p)))
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func dialBench(b *testing.B, addr string, key gossh.Signer, args []string) *benchClient {
	cl, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: wait})
	if err != nil {
		b.Fatal(err)
	}
	s, err := cl.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	c := &benchClient{client: cl, sess: s, wake: make(chan struct{}, 1)}
	s.Stdout, s.Stderr = c, c
	if c.in, err = s.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		b.Fatal(err)
	}
	if len(args) == 0 {
		err = s.Shell()
	} else {
		err = s.Start(strings.Join(args, " "))
	}
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func (c *benchClient) waitBytes(b *testing.B, n int64) {
	deadline := time.After(wait)
	for c.bytes.Load() < n {
		select {
		case <-c.wake:
		case <-deadline:
			b.Fatalf("the session drew %d bytes, waited for %d", c.bytes.Load(), n)
		}
	}
}

// pressFor presses ? (the help, and back) until window has passed, and
// returns each key's wait for the first bytes of its frame.
func (c *benchClient) pressFor(b *testing.B, window time.Duration) []time.Duration {
	var lat []time.Duration
	end := time.Now().Add(window)
	for time.Now().Before(end) {
		// Drain what the polls drew, then press.
		for drained := false; !drained; {
			select {
			case <-c.wake:
			default:
				drained = true
			}
		}
		before := c.bytes.Load()
		t0 := time.Now()
		if _, err := c.in.Write([]byte("?")); err != nil {
			b.Fatal(err)
		}
		for c.bytes.Load() == before {
			select {
			case <-c.wake:
			case <-time.After(wait):
				b.Fatal("a key drew no frame")
			}
		}
		lat = append(lat, time.Since(t0))
		// A person's pace, not a benchmark's: a key each 200 ms.
		time.Sleep(200 * time.Millisecond)
	}
	return lat
}

func (c *benchClient) close() {
	_ = c.sess.Close()
	_ = c.client.Close()
}

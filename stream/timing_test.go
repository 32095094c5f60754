package stream

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// starvation watches how late a 10 ms ticker fires, like the fault
// campaign's gate: a test binary starved of CPU (-race on 2 cores beside
// other builds) stalls its goroutines for longer than a short idle
// timeout, and then keep-alives look like silence. Timing rules are held
// only when no such stall happened.
type starvation struct {
	last  atomic.Int64 // UnixNano of the latest stall seen
	limit time.Duration
	stop  chan struct{}
	wg    sync.WaitGroup
}

func watchStarvation(t *testing.T, limit time.Duration) *starvation {
	s := &starvation{limit: limit, stop: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		const every = 10 * time.Millisecond
		tk := time.NewTicker(every)
		defer tk.Stop()
		prev := time.Now()
		for {
			select {
			case <-s.stop:
				return
			case now := <-tk.C:
				if now.Sub(prev) > every+limit {
					s.last.Store(now.UnixNano())
				}
				prev = now
			}
		}
	}()
	t.Cleanup(func() { close(s.stop); s.wg.Wait() })
	return s
}

// since reports whether a stall happened after start.
func (s *starvation) since(start time.Time) bool { return s.last.Load() >= start.UnixNano() }

// The watchdogs fire after IdleTimeout of silence, never before, and not
// much later: silence after a frame, and a reply whose headers never come
// (the tests read only the message text). The upper bound is
// held only when the process was not starved meanwhile.
func TestRunIdleWatchdogElapsed(t *testing.T) {
	const idle = 300 * time.Millisecond
	var mu sync.Mutex
	var silentFrom [2]time.Time // server side: the last byte written, the request seen
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0:
			sseOK(w)
			write(w, partA)
			mu.Lock()
			silentFrom[0] = time.Now()
			mu.Unlock()
			hang(r)
		case 1:
			mu.Lock()
			silentFrom[1] = time.Now()
			mu.Unlock()
			hang(r)
		default:
			stream(partB)(w, r, n)
		}
	}
	cfg := testConfig(f)
	cfg.IdleTimeout = idle
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	starved := watchStarvation(t, idle/2)
	start := time.Now()
	var fired []time.Time
	rec := &recorder{on: func(m Msg) {
		if _, ok := m.(ReconnectingMsg); ok {
			fired = append(fired, time.Now()) // Send runs on the run's goroutine
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if len(fired) != 2 {
		t.Fatalf("%d reconnects: %s", len(fired), summary(rec.all()))
	}
	mu.Lock()
	defer mu.Unlock()
	// Lower bounds, each measured from a moment before the client's own
	// start: the server's last write (the client reads it later), and the
	// first reconnect (the second connection starts after it and its
	// back-off). The server seeing the second request comes after the
	// client armed its header timer, so that is no lower bound.
	if d := fired[0].Sub(silentFrom[0]); d < idle {
		t.Errorf("no data: the watchdog fired %v after the last byte was written, before the %v idle timeout", d, idle)
	}
	if d := fired[1].Sub(fired[0]); d < idle {
		t.Errorf("no reply: the watchdog fired %v after the previous reconnect, before the %v idle timeout", d, idle)
	}
	// Upper bounds, measured from moments after the client's start (the
	// server seeing the request) or about at it (the last byte written).
	for i, what := range []string{"no data", "no reply"} {
		elapsed := fired[i].Sub(silentFrom[i])
		if starved.since(start) {
			t.Logf("%s: fired after %v; upper bound not held (the process was starved)", what, elapsed)
		} else if elapsed > 2*idle {
			t.Errorf("%s: the watchdog fired after %v, more than twice the %v idle timeout", what, elapsed, idle)
		}
	}
}

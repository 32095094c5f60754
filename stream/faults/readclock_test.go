package faults

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// readClock measures, on the client's side, the longest time a follow
// reply went without the client reading the end of a frame ("\n\n",
// keep-alives included): from the reply's headers to the first frame end,
// between frame ends, and from the last one to when the client closed the
// body. It is timed when the client's reader gets the bytes, so it
// includes whatever delayed them on this side: a process starved of CPU
// stretches it just as it stretches the watchdog's view. The simulator's
// own clock (frameClock) cannot see that; an idle reconnect while the
// client read a frame end at least every few hundred milliseconds is the
// watchdog's fault, whatever the scheduler did.
type readClock struct {
	next    http.RoundTripper
	longest atomic.Int64 // ns, over every follow reply
}

func (c *readClock) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || r.URL.Query().Get("follow") != "true" {
		return resp, err
	}
	resp.Body = &clockedBody{ReadCloser: resp.Body, clock: c, last: time.Now()}
	return resp, nil
}

// clockedBody marks each frame end as the client reads it.
type clockedBody struct {
	io.ReadCloser
	clock *readClock

	mu      sync.Mutex
	last    time.Time
	longest time.Duration
	ends    frameEnds
	closed  bool
}

func (b *clockedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ends.scan(p[:n]) {
		b.markLocked()
	}
	return n, err
}

func (b *clockedBody) markLocked() {
	now := time.Now()
	b.longest = max(b.longest, now.Sub(b.last))
	b.last = now
}

func (b *clockedBody) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.markLocked()
		for d := int64(b.longest); ; {
			old := b.clock.longest.Load()
			if d <= old || b.clock.longest.CompareAndSwap(old, d) {
				break
			}
		}
	}
	b.mu.Unlock()
	return b.ReadCloser.Close()
}

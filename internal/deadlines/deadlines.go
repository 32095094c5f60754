// Package deadlines is a transport for the tests of a bound (design §7,
// §9): it refuses every request at once and keeps the deadline each one
// carried, so that a test reads a bound from the requests instead of
// waiting it out (a test that waited would depend on the machine's speed).
package deadlines

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Recorder is an http.RoundTripper that answers 403 to everything and
// keeps each request's deadline. Safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	deadlines []time.Time
	none      int // requests with no deadline
}

// RoundTrip keeps r's deadline and refuses r.
func (d *Recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	if dl, ok := r.Context().Deadline(); ok {
		d.deadlines = append(d.deadlines, dl)
	} else {
		d.none++
	}
	d.mu.Unlock()
	body := `{"error":{"code":"auth.forbidden","message":"no"}}`
	return &http.Response{StatusCode: http.StatusForbidden, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

// Check is nil when requests came, each with a deadline bound after the
// start of the call that made it, which began between before and after.
func (d *Recorder) Check(before, after time.Time, bound time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.none > 0 || len(d.deadlines) == 0 {
		return fmt.Errorf("%d requests without a deadline, %d with", d.none, len(d.deadlines))
	}
	for _, dl := range d.deadlines {
		if dl.Before(before.Add(bound)) || dl.After(after.Add(bound)) {
			return fmt.Errorf("a request's deadline is %v after the call started, want %v", dl.Sub(before).Round(time.Millisecond), bound)
		}
	}
	return nil
}

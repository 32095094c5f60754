// Package deadlines keeps the deadline of every request a client sends, for
// the tests of a bound the contract states (the 10 s of each daemon's part
// of a poll, the 1 s of a completion's read): a test reads the bound from
// the requests' deadlines instead of waiting on the wall clock for a daemon
// that never answers.
package deadlines

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Log is a client's transport that keeps each request's deadline, then
// hands the request to Next (nil: http.DefaultTransport).
type Log struct {
	Next http.RoundTripper

	mu        sync.Mutex
	deadlines []time.Time
	none      int // requests with no deadline
}

// RoundTrip keeps r's deadline and sends r on.
func (l *Log) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	if dl, ok := r.Context().Deadline(); ok {
		l.deadlines = append(l.deadlines, dl)
	} else {
		l.none++
	}
	l.mu.Unlock()
	next := l.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// Within says why the requests do not all carry a deadline bound after a
// start between before and after (nil when they do): a request without
// one, none at all, or one outside [before+bound, after+bound].
func (l *Log) Within(before, after time.Time, bound time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.none > 0 || len(l.deadlines) == 0 {
		return fmt.Errorf("%d requests without a deadline, %d with", l.none, len(l.deadlines))
	}
	for _, dl := range l.deadlines {
		if dl.Before(before.Add(bound)) || dl.After(after.Add(bound)) {
			return fmt.Errorf("a request's deadline is %v after the start, want %v", dl.Sub(before).Round(time.Millisecond), bound)
		}
	}
	return nil
}

package stream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Config.RequestTimeout bounds the wait for a daemon to start answering
// (issue 46 item 9: a daemon that accepts and never answers), not the
// reply: a list whose headers came at once is read to its end however
// long its body takes.
func TestRequestTimeoutBoundsTheWaitForAnAnswerOnly(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	body := `{"action_list":{"actions":[],"total_size":0}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("state") == "queued" { // never answers
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-release // the body only once the test says so, long after the bound
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	c, err := NewDaemon(Config{BaseURL: srv.URL, RequestTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.ReadState(context.Background(), ListQuery{State: "queued"})
	if err == nil || !strings.HasPrefix(err.Error(), "list: no answer from 127.0.0.1:") || !strings.HasSuffix(err.Error(), "within 100ms") {
		t.Fatalf("%v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := c.ReadState(context.Background(), ListQuery{State: "running"})
		done <- err
	}()
	// The reply has started; its body waits for release. Past the bound
	// the read must still be waiting, not given up.
	select {
	case err := <-done:
		t.Fatalf("the read ended before its body came: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("a reply slower than the bound was given up: %v", err)
	}
}

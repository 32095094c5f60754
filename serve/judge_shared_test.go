package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"aipwatch/stream"
)

// A session that leaves while its verdict is being read does not cancel
// the read: other sessions wait for the same one (the judge reads an ID
// once for all who ask), and it is kept for them. Here the daemon holds
// the read until the asking session has gone; the verdict is cached
// after all.
func TestJudgeReadOutlivesTheSessionThatAsked(t *testing.T) {
	u, token := settledDaemon(t)
	target, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate, started := make(chan struct{}), make(chan struct{})
	var once sync.Once
	held := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(started) })
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(held.Close)

	judge := stream.NewJudge(stream.Config{BaseURL: held.URL, Token: token}, stream.JudgeOptions{})
	h := newHub(t.Context(), Source{Daemon: &countingDaemon{gate: make(chan struct{})}, Judge: judge}, 0)
	session, leave := context.WithCancel(t.Context())
	asked := make(chan stream.Judgement, 1)
	go func() { asked <- h.judge().Judge(session, settledID) }()
	select {
	case <-started:
	case <-asked:
		t.Fatal("judged before the daemon was read")
	case <-time.After(wait): // a hang guard
		t.Fatal("the daemon was never read")
	}
	leave()
	<-asked
	close(gate)
	waitUntil(t, "the verdict read for a session that left is kept for the others", func() bool {
		jg, ok := judge.Cached(settledID)
		return ok && jg.Err == nil && jg.Word != stream.VerdictUnknown
	})
}

package stream

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// A daemon that stalls every read: each judgement would wait its own 30 s
// bound, four at a time, without end on a long listing. A listing bounds
// its judgements as a whole: once its bound runs out, the rows still
// waiting or being read are not judged, say so in their word, and are
// named.
func TestListingBoundsTheJudgementsAsAWhole(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // stall
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	j := NewJudge(Config{BaseURL: srv.URL}, JudgeOptions{})
	l := j.NewListing(300 * time.Millisecond)
	defer l.Close()

	const rows = 10
	words := make([]string, rows)
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			words[i] = l.Judge(fmt.Sprintf("act_%d", i)).Word
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // far below one judgement's 30 s
		t.Fatal("the listing's judgements did not end with its bound")
	}
	for i, w := range words {
		if w != VerdictNotJudged {
			t.Fatalf("row %d: %q, want %q", i, w, VerdictNotJudged)
		}
	}
	if ids, bound := l.NotJudged(); len(ids) != rows || bound != 300*time.Millisecond {
		t.Fatalf("not judged: %q, bound %s", ids, bound)
	}
	// Not judged is not cached: a later listing reads again.
	if _, ok := j.Cached("act_0"); ok {
		t.Fatal("a row not judged was cached")
	}
}

package stream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"aipwatch/internal/deadlines"
	"aipwatch/model"
	"aipwatch/sim"
)

// A daemon that stalls every read: each judgement would wait its own 30 s
// bound, four at a time, without end on a long listing. A listing bounds
// its judgements as a whole: once its bound runs out, the rows still
// waiting or being read are not judged, say so in their word, and are
// named.
func TestListingBoundsTheJudgementsAsAWhole(t *testing.T) {
	t.Parallel()
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

// A listing asked for no bound of its own has the one design §7 states for
// `ls --verdict`: 2 minutes for the whole listing. Within it a settled row
// is judged (a listing whose bound had already run out would call every
// row not judged).
func TestListingDefaultBoundIsTwoMinutes(t *testing.T) {
	t.Parallel()
	f, err := sim.ConsoleFleet(4)
	u := startFleet(t, f, err)
	l := NewJudge(Config{BaseURL: u}, JudgeOptions{}).NewListing(0)
	defer l.Close()
	if _, bound := l.NotJudged(); bound != 2*time.Minute {
		t.Fatalf("a listing's default bound is %s, want 2m (design §7)", bound)
	}
	if jg := l.Judge("act_sim_console_done_responses"); jg.Word != model.VerdictVerified {
		t.Fatalf("judged %q (%v) within a fresh listing, want %q", jg.Word, jg.Err, model.VerdictVerified)
	}
	if ids, _ := l.NotJudged(); len(ids) != 0 {
		t.Fatalf("rows not judged within a fresh listing: %q", ids)
	}
}

// A read that fails within the listing's bound is unknown, not "not
// judged": only the bound running out makes a row not judged (design §7),
// and only those rows are named.
func TestListingFailedReadIsUnknownNotNotJudged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"error":{"code":"auth.forbidden","message":"no"}}`))
	}))
	t.Cleanup(srv.Close)
	l := NewJudge(Config{BaseURL: srv.URL}, JudgeOptions{}).NewListing(time.Hour)
	defer l.Close()
	if jg := l.Judge("act_refused"); jg.Word != VerdictUnknown || jg.Err == nil {
		t.Fatalf("a refused read judged %q (%v), want %q with its error", jg.Word, jg.Err, VerdictUnknown)
	}
	if ids, _ := l.NotJudged(); len(ids) != 0 {
		t.Fatalf("a refused read was named not judged: %q", ids)
	}
}

// One judgement's reads are bounded by its timeout, and by that only: the
// deadline of each request is the timeout from the judgement's start (read
// from the requests, not waited for).
func TestJudgeReadsWithinItsTimeout(t *testing.T) {
	tr := &deadlines.Log{Next: refuse{}}
	j := NewJudge(Config{BaseURL: "http://127.0.0.1:9", HTTP: &http.Client{Transport: tr}}, JudgeOptions{Timeout: time.Hour})
	before := time.Now()
	jg := j.Judge(context.Background(), "act_refused")
	after := time.Now()
	if jg.Word != VerdictUnknown {
		t.Fatalf("a refused read judged %+v", jg)
	}
	if err := tr.Within(before, after, time.Hour); err != nil {
		t.Fatal(err)
	}
}

package stream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
)

// countingProxy fronts a simulated daemon and counts what reaches it: every
// request, and the most actions with a request in flight at once. With a
// gate, each request waits for a token from it, so the judgements started
// together pile up at the door and the count shows how many were let in.
type countingProxy struct {
	srv      *httptest.Server
	requests atomic.Int64
	gate     chan struct{}

	mu       sync.Mutex
	inflight map[string]int
	maxIDs   int
}

func newCountingProxy(t *testing.T, target string, gated bool) *countingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{inflight: map[string]int{}}
	if gated {
		p.gate = make(chan struct{})
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		id := actionOf(r.URL.Path)
		p.mu.Lock()
		p.inflight[id]++
		if n := len(p.inflight); n > p.maxIDs {
			p.maxIDs = n
		}
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			if p.inflight[id]--; p.inflight[id] == 0 {
				delete(p.inflight, id)
			}
			p.mu.Unlock()
		}()
		if p.gate != nil {
			select {
			case <-p.gate:
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// actionOf is the action ID in /aip/v1/actions/{id}[/…].
func actionOf(path string) string {
	rest, _ := strings.CutPrefix(path, "/aip/v1/actions/")
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// quickRetries is a judge's configuration for u with short back-offs. The
// cancelled action of the console fleet answers its result reads "not
// ready" until the third settles it by its state (settle.go): at the
// default 250 ms back-off that is 0.6 s of waiting a judgement, which no
// judge test is about (the reads are counted, not timed).
func quickRetries(u string) Config {
	return Config{BaseURL: u, BackoffMin: time.Millisecond, BackoffMax: 20 * time.Millisecond}
}

func startFleet(t *testing.T, f *sim.Fleet, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Each settled row of the console demo gets the verdict a review gives:
// the Chat turn whose AIP result is completed but whose provider failed
// reads failed (design §7), never completed.
func TestJudgeConsoleFleet(t *testing.T) {
	t.Parallel()
	f, err := sim.ConsoleFleet(4)
	u := startFleet(t, f, err)
	j := NewJudge(quickRetries(u), JudgeOptions{})
	want := map[string]string{
		"act_sim_console_done_chat_error": model.VerdictFailed,
		"act_sim_console_done_responses":  model.VerdictVerified,
		"act_sim_console_cancelled":       model.VerdictCancelled,
		"act_sim_console_dead_lettered":   model.VerdictFailed,
	}
	for id, w := range want {
		jg := j.Judge(context.Background(), id)
		if jg.Word != w || jg.Err != nil || jg.Live {
			t.Errorf("%s: %q (err %v, live %v), want %q", id, jg.Word, jg.Err, jg.Live, w)
		}
		if jg.Verdict.Word != jg.Word || !jg.Verdict.Final {
			t.Errorf("%s: verdict %+v does not back the word %q", id, jg.Verdict, jg.Word)
		}
	}
	if jg := j.Judge(context.Background(), "act_sim_console_done_responses"); !jg.Usage.Reported {
		t.Errorf("done_responses: no usage in the judgement: %+v", jg.Usage)
	}
}

// A judgement of an action that has not settled follows nothing: it says
// Live at once, and is not cached.
func TestJudgeLiveAction(t *testing.T) {
	f, err := sim.NewFleet(sim.FleetKnobs{}, sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 0.01, ActionID: "act_live"}})
	u := startFleet(t, f, err)
	j := NewJudge(Config{BaseURL: u}, JudgeOptions{})
	jg := j.Judge(context.Background(), "act_live")
	if !jg.Live || jg.Word != "" {
		t.Fatalf("live action judged %+v", jg)
	}
	if _, ok := j.Cached("act_live"); ok {
		t.Fatal("a live judgement was cached")
	}
}

// An action that cannot be read is unknown, with the error, and not cached.
func TestJudgeUnknown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error":{"code":"auth.forbidden","message":"no"}}`)
	}))
	defer srv.Close()
	j := NewJudge(Config{BaseURL: srv.URL}, JudgeOptions{})
	jg := j.Judge(context.Background(), "act_x")
	if jg.Word != VerdictUnknown || jg.Err == nil {
		t.Fatalf("unreadable action judged %+v", jg)
	}
	if _, ok := j.Cached("act_x"); ok {
		t.Fatal("an unknown judgement was cached")
	}
}

// A settled action does not change: its second judgement reads nothing.
func TestJudgeCacheReadsNothing(t *testing.T) {
	f, err := sim.ConsoleFleet(4)
	p := newCountingProxy(t, startFleet(t, f, err), false)
	j := NewJudge(Config{BaseURL: p.srv.URL}, JudgeOptions{})
	first := j.Judge(context.Background(), "act_sim_console_done_chat_error")
	n := p.requests.Load()
	if n == 0 || first.Word != model.VerdictFailed {
		t.Fatalf("first judgement: %d requests, %+v", n, first)
	}
	again := j.Judge(context.Background(), "act_sim_console_done_chat_error")
	if got := p.requests.Load(); got != n {
		t.Fatalf("second judgement read %d requests", got-n)
	}
	if again.Word != first.Word {
		t.Fatalf("cached %q, first %q", again.Word, first.Word)
	}
}

// The cache is bounded: beyond its size the least recently used goes. A
// use is a Cached read or a judgement answered from the cache.
func TestJudgeCacheBounded(t *testing.T) {
	t.Parallel()
	f, err := sim.ConsoleFleet(4)
	u := startFleet(t, f, err)
	ctx := context.Background()
	for name, use := range map[string]func(j *Judge, id string){
		"Cached": func(j *Judge, id string) { j.Cached(id) },
		"Judge":  func(j *Judge, id string) { j.Judge(ctx, id) },
	} {
		j := NewJudge(quickRetries(u), JudgeOptions{Cache: 2})
		j.Judge(ctx, "act_sim_console_done_chat_error")
		j.Judge(ctx, "act_sim_console_done_responses")
		use(j, "act_sim_console_done_chat_error") // now the most recent
		j.Judge(ctx, "act_sim_console_cancelled")
		if _, ok := j.Cached("act_sim_console_done_responses"); ok {
			t.Errorf("%s: the least recently used judgement was kept beyond the bound", name)
		}
		for _, id := range []string{"act_sim_console_done_chat_error", "act_sim_console_cancelled"} {
			if _, ok := j.Cached(id); !ok {
				t.Errorf("%s: %s dropped", name, id)
			}
		}
	}
}

// At most Limit actions are read at once, however many are asked for
// together (design §7: at most four judgements at once).
func TestJudgeAtMostFourAtOnce(t *testing.T) {
	t.Parallel()
	const n = 12
	members := make([]sim.Member, n)
	for i := range members {
		members[i] = sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: fmt.Sprintf("act_judge_%02d", i)}}
	}
	f, err := sim.NewFleet(sim.FleetKnobs{}, members...)
	p := newCountingProxy(t, startFleet(t, f, err), true)
	j := NewJudge(Config{BaseURL: p.srv.URL}, JudgeOptions{})
	done := make(chan struct{})
	go func() { // let the requests through one at a time
		for {
			select {
			case p.gate <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	words := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			words[i] = j.Judge(context.Background(), members[i].Knobs.ActionID).Word
		}()
	}
	wg.Wait()
	close(done)
	for i, w := range words {
		if w != model.VerdictFailed {
			t.Errorf("%s: %q", members[i].Knobs.ActionID, w)
		}
	}
	const atOnce = 4 // design §7, written as the contract states it
	if p.maxIDs > atOnce || p.maxIDs == 0 {
		t.Fatalf("%d actions read at once, want 1..%d", p.maxIDs, atOnce)
	}
}

// Review reads again and gives the model it built: a notification's verdict
// line comes from it.
func TestJudgeReview(t *testing.T) {
	f, err := sim.ConsoleFleet(4)
	p := newCountingProxy(t, startFleet(t, f, err), false)
	j := NewJudge(Config{BaseURL: p.srv.URL}, JudgeOptions{})
	a, jg := j.Review(context.Background(), "act_sim_console_done_chat_error")
	if a == nil || jg.Word != model.VerdictFailed || a.Verdict().Word != jg.Word {
		t.Fatalf("review: %v %+v", a, jg)
	}
	n := p.requests.Load()
	if again := j.Judge(context.Background(), "act_sim_console_done_chat_error"); again.Word != jg.Word || p.requests.Load() != n {
		t.Fatalf("the review's judgement not cached: %+v, %d more requests", again, p.requests.Load()-n)
	}
}

// design §14: on the fleet the settled rows recorded no chunk; the judge
// (the console's VERDICT column, ls --verdict) reads them from their
// results: the Chat turn cut by its length is partial, the complete one
// verified, never incomplete for want of a terminal frame.
func TestJudgeConnectorHostFleetFromResults(t *testing.T) {
	t.Parallel()
	f, err := sim.ConnectorHostFleet(4, false)
	u := startFleet(t, f, err)
	j := NewJudge(quickRetries(u), JudgeOptions{})
	for id, w := range map[string]string{
		sim.ConnectorHostActions[5]: model.VerdictPartial,
		sim.ConnectorHostActions[6]: model.VerdictVerified,
	} {
		if jg := j.Judge(context.Background(), id); jg.Word != w || jg.Err != nil {
			t.Errorf("%s: %q %v (err %v), want %q", id, jg.Word, jg.Verdict.Reasons, jg.Err, w)
		}
	}
}

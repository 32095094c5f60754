package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/internal/deadlines"
	"aipwatch/model"
	"aipwatch/sim"
)

// The bounds of design §7 and §9 the judge and Multi keep, each held by a
// test that fails when the bound is broken (see docs/mutation.md).

// Judgements of one action asked for together share one read (design §7:
// one review per row judged): eight at once cost what one costs.
func TestJudgeOneReadPerIDAskedTogether(t *testing.T) {
	const id = "act_sim_console_done_chat_error"
	f, err := sim.ConsoleFleet(4)
	u := startFleet(t, f, err)

	solo := newCountingProxy(t, u, false)
	if jg := NewJudge(Config{BaseURL: solo.srv.URL}, JudgeOptions{}).Judge(context.Background(), id); jg.Word != model.VerdictFailed {
		t.Fatalf("one judgement alone: %+v", jg)
	}
	one := solo.requests.Load()

	p := newCountingProxy(t, u, true)
	j := NewJudge(Config{BaseURL: p.srv.URL}, JudgeOptions{})
	const n = 8
	var started, done sync.WaitGroup
	words := make([]string, n)
	for i := range n {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			started.Done()
			words[i] = j.Judge(context.Background(), id).Word
		}()
	}
	// Every judgement asked for, the first read held at the door (no
	// token yet): then the requests through, one at a time.
	started.Wait()
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case p.gate <- struct{}{}:
			case <-stop:
				return
			}
		}
	}()
	done.Wait()
	close(stop)
	for i, w := range words {
		if w != model.VerdictFailed {
			t.Errorf("judgement %d: %q", i, w)
		}
	}
	if got := p.requests.Load(); got != one {
		t.Fatalf("%d judgements of one action asked together made %d requests; one judgement makes %d", n, got, one)
	}
}

// A judgement whose verdict is not final (the action reads settled to the
// status route, but its review ends with no outcome: the result is gone
// and the state decides nothing) is unknown, never the live word, and is
// not cached: the next judgement reads again.
func TestJudgeNonFinalIsNotCached(t *testing.T) {
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	f.result = func(int) (int, string) { return 410, envelope("action.gone", "not_found", "gone") }
	j := NewJudge(Config{BaseURL: f.srv.URL}, JudgeOptions{})
	jg := j.Judge(context.Background(), "act_1")
	if jg.Word != VerdictUnknown || jg.Live || jg.Err == nil || !strings.Contains(jg.Err.Error(), "no verdict") {
		t.Fatalf("a review with no final verdict judged %+v", jg)
	}
	if c, ok := j.Cached("act_1"); ok {
		t.Fatalf("a non-final judgement was cached: %+v", c)
	}
	before := f.count("GET /aip/v1/actions/act_1")
	if again := j.Judge(context.Background(), "act_1"); again.Word != VerdictUnknown {
		t.Fatalf("second judgement %+v", again)
	}
	if f.count("GET /aip/v1/actions/act_1") == before {
		t.Fatal("the second judgement read nothing: the non-final one was kept")
	}
}

// refuse answers every request at once with a refusal.
type refuse struct{}

func (refuse) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"error":{"code":"auth.forbidden","message":"no"}}`
	return &http.Response{StatusCode: http.StatusForbidden, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

// Across contexts each daemon's part of a poll has 10 s (design §9: a
// slow daemon does not hold the others' rows back longer): the requests
// to a daemon carry a deadline 10 s from the poll's start, whatever the
// caller's context allows. Read from the requests' deadlines, not by
// waiting 10 s for a daemon that never answers.
func TestMultiGivesEachDaemonTenSeconds(t *testing.T) {
	tr := &deadlines.Log{Next: refuse{}}
	d, err := NewDaemon(Config{BaseURL: "http://127.0.0.1:9", HTTP: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	m := &Multi{Sources: []MultiSource{{Name: "slow", Poller: d.NewPoller(0)}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	before := time.Now()
	w, err := m.Poll(ctx)
	after := time.Now()
	if err != nil || len(w.Live) != 1 || w.Live[0].Context != "slow" || !strings.Contains(w.Live[0].Unreachable, "403") {
		t.Fatalf("the refusing daemon is not one row with its error: %v %+v", err, w.Live)
	}
	if err := tr.Within(before, after, 10*time.Second); err != nil { // design §9
		t.Fatal(err)
	}
}

// One judgement is bounded (JudgeOptions.Timeout, 30 s by default): a
// daemon that never answers gives an unknown verdict that says so, and
// gives its slot back for the next judgement.
func TestJudgeIsBoundedByItsTimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { hang(r) }))
	defer srv.Close()
	j := NewJudge(Config{BaseURL: srv.URL}, JudgeOptions{Limit: 1, Timeout: 50 * time.Millisecond})
	for _, id := range []string{"act_1", "act_2"} { // one slot: the second runs once the first gave it back
		jg := j.Judge(context.Background(), id)
		if jg.Word != VerdictUnknown || jg.Err == nil || !strings.Contains(jg.Err.Error(), "no verdict within 50ms") {
			t.Fatalf("%s on a daemon that never answers: %+v", id, jg)
		}
	}
}

// Across contexts a poll's list end is every daemon's together (the
// console's count of actions listed), and a daemon's global-log link
// change names its context only when it has a cause to name: a refusal
// reads "east: …", a link that went live carries no cause.
func TestMultiSumsTheEndsAndNamesCauses(t *testing.T) {
	t.Parallel()
	east := fleetClient(t, sim.FleetKnobs{History: sim.History{Actions: 30}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_east_1"}})
	west := fleetClient(t, sim.FleetKnobs{GlobalEvents: true, History: sim.History{Actions: 50}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_west_1"}})
	m := &Multi{Sources: []MultiSource{{Name: "east", Poller: east.NewPoller(0)}, {Name: "west", Poller: west.NewPoller(0)}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := m.Poll(ctx)
	if err != nil || w.Recent.End != 31+51 {
		t.Fatalf("the list's end across contexts: %d (%v), want 31 + 51", w.Recent.End, err)
	}

	var mu sync.Mutex
	links := map[string]GlobalLinkMsg{} // "east" (denied) and "west" (live)
	fctx, fcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- m.FollowGlobal(fctx, GlobalOptions{Kinds: []string{"aip.stream.chunk"}}, SinkFunc(func(msg Msg) {
			l, ok := msg.(GlobalLinkMsg)
			if !ok {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case l.Denied:
				links["east"] = l
			case l.Live:
				links["west"] = l
			}
			if len(links) == 2 {
				fcancel()
			}
		}))
	}()
	select {
	case err := <-done: // east's refusal, west's cancel
		t.Logf("the follows ended: %v", err)
	case <-ctx.Done():
		t.Fatal("the follows did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if l := links["east"]; !strings.HasPrefix(l.Cause, "east: ") || len(l.Cause) == len("east: ") {
		t.Errorf("the refusal's cause does not name its context: %+v", l)
	}
	if l, ok := links["west"]; !ok || l.Cause != "" {
		t.Errorf("the live link of west: %+v (seen %v)", l, ok)
	}
}

package stream

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The status re-read after the result (design §2 step 9) retries
// transient failures with a growing back-off and reports the state it
// finally read, never the failed read's empty one.
func TestFinalStatusRetries(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.follow = stream(canned)
	var mu sync.Mutex
	var at []time.Time
	f.status = func(n int) (int, string) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		switch {
		case n == 0:
			return 200, statusJSON("running")
		case n <= 5:
			return 503, envelope("storage.unavailable", "temporary", "busy")
		}
		return 200, statusJSON("completed")
	}
	cfg := testConfig(f)
	cfg.BackoffMin, cfg.BackoffMax = time.Millisecond, time.Second
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var final []StatusMsg
	for _, m := range find[StatusMsg](msgs) {
		if m.Final {
			final = append(final, m)
		}
	}
	if len(final) != 1 || final[0].Status.State != "completed" {
		t.Fatalf("final status %+v: %s", final, summary(msgs))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(at) != 7 {
		t.Fatalf("%d status reads, want the first, 5 failed and 1 good", len(at))
	}
	// The fifth failure waits 16 ms less at most a quarter of jitter: a
	// lower bound, which a loaded machine only makes longer.
	if gap := at[6].Sub(at[5]); gap < 12*time.Millisecond {
		t.Fatalf("the back-off did not grow: %v before the last read", gap)
	}
}

// An action aipd never heard of, whose follows end at once, fails on the
// appear timeout checked between reconnects (design §2 step 1), with
// the error, not quietly.
func TestAppearTimeoutBetweenReconnects(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) { sseOK(w) } // EOF, nothing read
	cfg := testConfig(f)
	cfg.AppearTimeout = 100 * time.Millisecond
	cfg.BackoffMin, cfg.BackoffMax = 5*time.Millisecond, 20*time.Millisecond
	msgs, err := runWith(t, cfg)
	var e *Error
	if !errors.As(err, &e) || e.Code != codeUnknown || !strings.Contains(e.Message, "has no record of it") {
		t.Fatalf("err %v: %s", err, summary(msgs))
	}
	if len(find[ErrorMsg](msgs)) != 1 {
		t.Fatalf("no error message: %s", summary(msgs))
	}
}

// The stall rule (§2 step 6b) reads the result once: a result that names
// no action counts (aipd's replies may leave the ID out), one for another
// action does not.
func TestStallResultWithoutActionID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id        string
		unsettled bool
	}{{"", false}, {`"action_id":"act_other",`, true}} {
		f := newFake(t)
		f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
		f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
			sseOK(w)
			write(w, partA)
			hang(r)
		}
		f.result = func(int) (int, string) {
			return 200, `{"action_result":{` + tc.id + `"status":"completed","output":{"operation":"chat_stream","terminal":true,"text":"alpha"}}}`
		}
		f.page = func(cursor string, n int) (int, string) { return 200, pageJSON(cursor, true) }
		cfg := testConfig(f)
		cfg.StallTimeout = 150 * time.Millisecond
		msgs, err := runWith(t, cfg)
		if err != nil {
			t.Fatal(err, summary(msgs))
		}
		if got := len(find[UnsettledMsg](msgs)) == 1; got != tc.unsettled {
			t.Fatalf("result %q: unsettled %v: %s", tc.id, got, summary(msgs))
		}
	}
}

// A result that is not found is read again notFoundReads times in all (a
// synchronous action is stored only as it settles, protocol
// §10.7), visibly, then the run fails naming the code; the bound is the
// not-found one, not MaxResultReads.
func TestResultNotFoundBound(t *testing.T) {
	f := newFake(t)
	f.follow = stream(canned)
	f.result = func(int) (int, string) { return 404, envelope("action.not_found", "not_found", "no result") }
	msgs, err := runWith(t, testConfig(f))
	var e *Error
	if !errors.As(err, &e) || e.Code != "action.not_found" {
		t.Fatalf("err %v: %s", err, summary(msgs))
	}
	if n := f.count("GET /aip/v1/actions/act_1/result"); n != notFoundReads {
		t.Fatalf("%d result reads, want %d", n, notFoundReads)
	}
	waits := find[ResultWaitMsg](msgs)
	if len(waits) != notFoundReads-1 || waits[0].Attempt != 2 || waits[0].Code != "action.not_found" {
		t.Fatalf("result waits %+v", waits)
	}
}

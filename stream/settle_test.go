package stream

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// Tests of the rules that depend on what the real daemon records
// (settle.go, cursorfree.go): design §2 steps 1, 6, 6b and 7.

// keepalives answers a follow with headers and then only keep-alives until
// the client goes away: what aipd sends for an action with nothing new.
func keepalives(w http.ResponseWriter, r *http.Request) {
	sseOK(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(5 * time.Millisecond):
			write(w, ": keep-alive\n\n")
		}
	}
}

func TestRunUnknownIsFollowed(t *testing.T) {
	// A synchronous action reads unknown until it settles; it is followed,
	// said so, and settles on its terminal frame like any other.
	f := newFake(t)
	f.status = func(n int) (int, string) {
		if n == 0 {
			return 200, statusJSON("unknown")
		}
		return 200, statusJSON("completed")
	}
	f.follow = stream(canned)
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(msgs); !strings.HasPrefix(got, "Status(unknown) NoRecord Mode(review=false) Connected(1,,false)") {
		t.Fatal(got)
	}
	nr := find[NoRecordMsg](msgs)
	if len(nr) != 1 || !strings.Contains(model.NoRecordLine(nr[0].ActionID, nr[0].AppearTimeout), "aipd has no record of act_1 yet (a synchronous or streaming action has none while it runs): waiting for its first event") {
		t.Fatalf("%+v", nr)
	}
	if a := fold(msgs); !a.Settled() || !a.Verdict().Final || a.Result == nil {
		t.Fatal(a.Verdict())
	}
}

func TestRunAppearTimeout(t *testing.T) {
	t.Parallel()
	// Nothing of the action ever arrives: give up after AppearTimeout with
	// one line naming the ID, what was checked and the three causes.
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) { keepalives(w, r) }
	cfg := testConfig(f)
	cfg.AppearTimeout = 150 * time.Millisecond
	start := time.Now()
	msgs, err := runWith(t, cfg)
	var e *Error
	if !errors.As(err, &e) || e.Code != codeUnknown {
		t.Fatalf("err %v: %s", err, summary(msgs))
	}
	for _, want := range []string{"act_1", "within 150ms", f.srv.URL[len("http://"):], "never submitted", "rejected before it ran",
		"synchronous run that failed before its first chunk"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("%q does not say %q", e.Error(), want)
		}
	}
	if strings.Contains(e.Error(), "\n") {
		t.Errorf("not one line: %q", e.Error())
	}
	if time.Since(start) < cfg.AppearTimeout {
		t.Fatal("gave up before the appear timeout")
	}
}

func TestRunAppearLateRecord(t *testing.T) {
	t.Parallel()
	// The appear check finds a record (an async action queued late): the
	// follow goes on, and ends on the terminal frame.
	f := newFake(t)
	f.status = func(n int) (int, string) {
		switch n {
		case 0:
			return 200, statusJSON("unknown")
		case 1:
			return 200, statusJSON("queued")
		}
		return 200, statusJSON("completed")
	}
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		time.Sleep(300 * time.Millisecond)
		write(w, canned)
	}
	cfg := testConfig(f)
	cfg.AppearTimeout = 50 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatalf("%v: %s", err, summary(msgs))
	}
	if got := summary(msgs); !strings.Contains(got, "Status(queued)") || !fold(msgs).Settled() {
		t.Fatal(got)
	}
}

func TestRunStallUnsettled(t *testing.T) {
	t.Parallel()
	// §2 step 6b: chunks, no record, no result, no new chunk for the stall
	// timeout: settled incomplete, "no AIP result". /result of such a run
	// answers action.not_found (protocol §10, the table).
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, partA)
		keepalives(w, r)
	}
	f.result = func(int) (int, string) { return 400, envelope("action.not_found", "permanent", "action not found") }
	cfg := testConfig(f)
	cfg.StallTimeout = 150 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatalf("%v: %s", err, summary(msgs))
	}
	if got := summary(msgs); !strings.HasSuffix(got, "Unsettled(no AIP result: the run ended without one) Done") {
		t.Fatal(got)
	}
	v := fold(msgs).Verdict()
	if v.Word != model.VerdictIncomplete || v.ExitCode != model.ExitIncomplete || !strings.Contains(strings.Join(v.Reasons, ","), "no AIP result") {
		t.Fatalf("%+v", v)
	}
}

func TestRunStallNotForRecordedActions(t *testing.T) {
	t.Parallel()
	// An action with a record (async, running) is never declared
	// unsettled, however quiet it is.
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, partA)
		time.Sleep(300 * time.Millisecond)
		write(w, partB)
	}
	cfg := testConfig(f)
	cfg.StallTimeout = 50 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil || len(find[UnsettledMsg](msgs)) != 0 || !fold(msgs).Settled() {
		t.Fatalf("%v: %s", err, summary(msgs))
	}
}

func TestRunCancelledWithoutResult(t *testing.T) {
	// protocol §10.1: an async action cancelled in flight reads
	// cancelled and its result is never ready: settled cancelled by state.
	f := newFake(t)
	f.status = func(n int) (int, string) {
		if n == 0 {
			return 200, statusJSON("running")
		}
		return 200, statusJSON("cancelled")
	}
	f.follow = stream(partA + cursorSSE("aev_cursor_4_0") + terminalSSE("aev_cursor_4_0"))
	f.result = func(int) (int, string) {
		return 503, envelope("action.result_not_ready", "temporary", "action result is not ready yet")
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatalf("%v: %s", err, summary(msgs))
	}
	if n := f.count("GET /aip/v1/actions/act_1/result"); n != cancelledSettleAfter {
		t.Fatalf("%d result reads", n)
	}
	v := fold(msgs).Verdict()
	if v.Word != model.VerdictCancelled || v.ExitCode != model.ExitCancelled || v.Row != 1 {
		t.Fatalf("%+v: %s", v, summary(msgs))
	}
}

func TestRunResultBound(t *testing.T) {
	t.Parallel()
	// A result that is never ready (and a state that does not settle the
	// action) ends the run visibly after MaxResultReads.
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("running") }
	f.follow = stream(canned)
	f.result = func(int) (int, string) { return 503, envelope("action.result_not_ready", "temporary", "not ready") }
	msgs, err := runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "no result after 20 reads") {
		t.Fatalf("%v", err)
	}
	if n := len(find[ResultWaitMsg](msgs)); n != MaxResultReads-1 {
		t.Fatalf("%d visible retries", n)
	}
}

func TestRunForeignResult(t *testing.T) {
	// Contract §3: a result naming another action is an error, not evidence.
	f := newFake(t)
	f.follow = stream(canned)
	f.result = func(int) (int, string) { return 200, strings.Replace(resultJSON, `"act_1"`, `"act_other"`, 1) }
	msgs, err := runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "names another action (act_other)") {
		t.Fatalf("%v", err)
	}
	if len(find[ResultMsg](msgs)) != 0 {
		t.Fatal("a foreign result reached the model")
	}
}

func TestRunReconnectBound(t *testing.T) {
	t.Parallel()
	// Every connection delivers one frame, then drops, never moving the
	// cursor: the run ends (exit 1, naming the cause) instead of looping,
	// and the back-off is not reset by the frame.
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, chunkSSE(chunk0, 0))
	}
	msgs, err := runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "reconnects in a row without progress") {
		t.Fatalf("%v", err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) != MaxReconnectsWithoutProgress-1 {
		t.Fatalf("%d reconnects", len(rc))
	}
	// Without a reset the waits reach the cap (20 ms in testConfig).
	if last := rc[len(rc)-1].Wait; last < 15*time.Millisecond {
		t.Fatalf("back-off was reset by frames that made no progress: last wait %s", last)
	}
}

func TestRunWatchdogCountsFrames(t *testing.T) {
	t.Parallel()
	// One byte at a time inside a frame that never ends is not liveness.
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 0 {
			stream(canned)(w, r, n)
			return
		}
		sseOK(w)
		for i := 0; ; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
				write(w, "x")
			}
		}
	}
	cfg := testConfig(f)
	cfg.IdleTimeout = 100 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) == 0 || rc[0].Cause != "no complete frame for 100ms" {
		t.Fatal(summary(msgs))
	}
}

func TestRunPageCycle(t *testing.T) {
	// Review pages whose cursors alternate never end by themselves.
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	f.page = func(cursor string, n int) (int, string) {
		next := "aev_cursor_1_0"
		if cursor == next {
			next = "aev_cursor_2_0"
		}
		return 200, pageJSON(next, true, chunk0)
	}
	_, err := runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "go round in a circle") {
		t.Fatalf("%v", err)
	}
}

func TestRunCursorFreeReview(t *testing.T) {
	// A review on a daemon that refuses its own cursors reads every chunk in
	// one status read with include_chunks=true.
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	f.page = func(cursor string, n int) (int, string) {
		if cursor != "" {
			return 400, envelope("query.invalid_cursor", "permanent", "event cursor `evt_cursor_0` must use `pg_evt_<seq>` format")
		}
		return 200, pageJSON("aev_cursor_0_0", true, chunk0)
	}
	f.statusChunks = func(int) (int, string) { return 200, statusChunksJSON("completed", 0, 3) }
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatalf("%v: %s", err, summary(msgs))
	}
	got := summary(msgs)
	if !strings.Contains(got, "Restart(query.invalid_cursor)") || !strings.Contains(got, "CursorFree(query.invalid_cursor) Batch(c1,c2,c3)") {
		t.Fatal(got)
	}
	if fold(msgs).ChunkCount() != 4 {
		t.Fatal(got)
	}
}

// Contract §2 step 5: an undecodable chunk in an events page is an anomaly
// and a conflict for the verdict, as one in a follow frame is.
func TestRunUndecodablePageChunkIsAConflict(t *testing.T) {
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	bad := `{"action_id":"act_1","sequence":"not a number","kind":"data","data":{}}`
	f.page = func(cursor string, n int) (int, string) {
		if cursor == "" {
			return 200, pageJSON("aev_cursor_3_1", true, chunk0, bad)
		}
		return 200, pageJSON(cursor, true)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	a := fold(msgs)
	found := false
	for _, an := range a.Anomalies() {
		found = found || an.Kind == model.AnomalyUndecodable
	}
	if !found || a.Verdict().Word == model.VerdictVerified {
		t.Fatalf("anomalies %+v, verdict %+v", a.Anomalies(), a.Verdict())
	}
}

// The appear timeout ends the run on its own clock, not when the next
// frame happens to arrive: aipd sends a keep-alive only every 15 s (here
// every hour, and the idle rule is an hour too), so a deadline looked at
// only when a frame comes waited for it. Both while the reply's headers
// are awaited (a daemon that sends them with its first frame, as the
// simulator does) and after them. The run must end well before the
// keep-alive: a budget of 20 s for a 200 ms timeout, below the transport's
// 30 s reply-header limit, which ended the wait before the fix.
func TestAppearTimeoutFiresWithoutFrames(t *testing.T) {
	t.Parallel()
	hourly := func(w http.ResponseWriter, r *http.Request) {
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Hour):
				write(w, ": keep-alive\n\n")
			}
		}
	}
	for name, follow := range map[string]func(http.ResponseWriter, *http.Request, int){
		"after the headers": func(w http.ResponseWriter, r *http.Request, _ int) { sseOK(w); hourly(w, r) },
		"before the headers": func(w http.ResponseWriter, r *http.Request, _ int) {
			w.Header().Set("Content-Type", "text/event-stream")
			hourly(w, r) // the headers go with the first keep-alive
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
			f.follow = follow
			cfg := testConfig(f)
			cfg.IdleTimeout = time.Hour
			cfg.AppearTimeout = 200 * time.Millisecond
			msgs, err := runWithin(t, cfg, 20*time.Second)
			var e *Error
			if !errors.As(err, &e) || e.Code != codeUnknown {
				t.Fatalf("err %v: %s", err, summary(msgs))
			}
		})
	}
}

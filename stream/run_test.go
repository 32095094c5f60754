package stream

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

const cannedSummary = "Status(running) Mode(review=false) Connected(1,,false) Batch(c0) Cursor(aev_cursor_3_0) " +
	"Batch(c1,e:evt_x) Cursor(aev_cursor_5_1) Terminal(aev_cursor_5_1) Result(completed) Status(completed,final) Done"

// checkFollowRequests: every follow request has the fixed query, the
// bearer token, Accept: text/event-stream, no Last-Event-ID, and a cursor
// that is never a chunk or event id.
func checkFollowRequests(t *testing.T, f *fake, cursors ...string) {
	t.Helper()
	fs := f.follows()
	if len(fs) != len(cursors) {
		t.Fatalf("%d follow requests, want %d", len(fs), len(cursors))
	}
	for i, r := range fs {
		q := r.Query
		if q.Get("include_chunks") != "true" || q.Get("limit") != "1000" || q.Get("tenant_id") != "" {
			t.Errorf("follow %d query %v", i, q)
		}
		if _, has := q["cursor"]; has != (cursors[i] != "") || q.Get("cursor") != cursors[i] {
			t.Errorf("follow %d cursor %q, want %q", i, q.Get("cursor"), cursors[i])
		}
		if c := q.Get("cursor"); strings.HasPrefix(c, "chunk:") || (strings.HasPrefix(c, "evt_") && !strings.HasPrefix(c, "evt_cursor_")) {
			t.Errorf("follow %d resumed from a non-cursor id %q", i, c)
		}
		if r.Header.Get("Accept") != "text/event-stream" || r.Header.Values("Last-Event-ID") != nil {
			t.Errorf("follow %d headers %v", i, r.Header)
		}
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			t.Errorf("follow %d Authorization %q", i, r.Header.Get("Authorization"))
		}
	}
}

func TestRunCanned(t *testing.T) {
	f := newFake(t)
	f.follow = stream(canned)
	var seen []Frame
	cfg := testConfig(f)
	cfg.OnFrame = func(fr Frame) { seen = append(seen, fr) }
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(msgs); got != cannedSummary {
		t.Fatalf("got  %s\nwant %s", got, cannedSummary)
	}
	checkFollowRequests(t, f, "")
	var paths []string
	for _, r := range f.requests() {
		paths = append(paths, r.Method+" "+r.Path+" "+r.Query.Encode())
	}
	want := []string{
		"GET /aip/v1/actions/act_1 ",
		"GET /aip/v1/actions/act_1/events follow=true&include_chunks=true&limit=1000",
		"GET /aip/v1/actions/act_1/events cursor=aev_cursor_5_1&include_chunks=true&limit=1000",
		"GET /aip/v1/actions/act_1/result ",
		"GET /aip/v1/actions/act_1 ",
	}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s", strings.Join(paths, "\n"))
	}
	// OnFrame saw the seven frames and the keep-alive, as received.
	if len(seen) != 7 || seen[2].Comment != "keep-alive" || seen[0].ID != "chunk:0" || seen[6].Event != "aip.stream.terminal" {
		t.Fatalf("frames: %+v", seen)
	}
	if live := find[LivenessMsg](msgs); len(live) == 0 {
		t.Fatal("no liveness")
	}
	a := fold(msgs)
	if a.ChunkCount() != 2 || a.Cursor != "aev_cursor_5_1" || !a.Settled() || !a.TerminalFrameSeen || a.Text() != "alpha" {
		t.Fatalf("model: chunks %d cursor %q settled %v text %q", a.ChunkCount(), a.Cursor, a.Settled(), a.Text())
	}
}

func TestRunVariants(t *testing.T) {
	eventForm := func(seq int, id string) string {
		return "event: aip.stream.chunk\nid: " + id + "\ndata: {\"event\":{\"id\":\"" + id +
			"\",\"kind\":\"aip.stream.chunk\",\"occurred_at\":\"2025-01-01T00:00:00Z\",\"data\":{\"action_id\":\"act_1\",\"sequence\":" + strconv.Itoa(seq) + ",\"kind\":\"data\"}}}\n\n"
	}
	for name, body := range map[string]string{
		"CRLF": strings.ReplaceAll(canned, "\n", "\r\n"),
		"CR":   strings.ReplaceAll(canned, "\n", "\r"),
		"id first": strings.NewReplacer(
			"event: aip.stream.chunk\ndata: {\"chunk\":"+chunk0+"}\nid: chunk:0\n", "id: chunk:0\nevent: aip.stream.chunk\ndata: {\"chunk\":"+chunk0+"}\n",
			"event: aip.stream.terminal\ndata: {\"terminal\":true,\"action_id\":\"act_1\"}\nid: aev_cursor_5_1\n", "id: aev_cursor_5_1\nevent: aip.stream.terminal\ndata:{\"terminal\":true,\"action_id\":\"act_1\"}\n",
		).Replace(canned),
		"multi-line data": strings.Replace(canned, "data: {\"chunk\":{", "data: {\"chunk\":\ndata: {", 1),
		"event-form chunks": eventForm(0, "evt_stream_00") + partA +
			eventForm(1, "evt_stream_01") + eventForm(1, "evt_stream_01") + partB,
		"comment inside a frame": strings.Replace(canned, "event: aip.stream.terminal\n", ": last one\nevent: aip.stream.terminal\nx-unknown: 1\n", 1),
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			f.follow = stream(body)
			msgs, err := runWith(t, testConfig(f))
			if err != nil {
				t.Fatal(err)
			}
			if bad := find[BadFrameMsg](msgs); len(bad) > 0 {
				t.Fatalf("bad frames: %+v", bad)
			}
			a := fold(msgs)
			if a.ChunkCount() != 2 || a.Cursor != "aev_cursor_5_1" || !a.Settled() || a.Text() != "alpha" {
				t.Fatalf("%s\nmodel: chunks %d cursor %q", summary(msgs), a.ChunkCount(), a.Cursor)
			}
			if name == "event-form chunks" {
				// The chunk events give their chunks' times and are not
				// kept; evt_x is.
				if ev := a.Events(); len(ev) != 1 || ev[0].ID != "evt_x" {
					t.Fatalf("events %+v", ev)
				}
				for seq := range uint64(2) {
					if at, ok := a.Occurred(seq); !ok || !at.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
						t.Fatalf("chunk %d: time %v %v", seq, at, ok)
					}
				}
			}
			checkFollowRequests(t, f, "")
		})
	}
}

func TestRunKeepalives(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, ": keep-alive\n\n")
		time.Sleep(1100 * time.Millisecond) // liveness is sent at most once a second
		write(w, ":keep-alive\r\n\r\n", canned)
	}
	cfg := testConfig(f)
	cfg.IdleTimeout = 3 * time.Second
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	live := find[LivenessMsg](msgs)
	if len(live) != 2 || !live[0].Keepalive || !live[1].Keepalive {
		t.Fatalf("liveness %+v", live)
	}
	// Liveness never overtakes a pending batch: the first is right after Connected.
	if _, ok := msgs[3].(LivenessMsg); !ok {
		t.Fatalf("order: %T", msgs[3])
	}
}

func TestRunFrameCutByEOF(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if n == 0 {
			// chunk 1 arrives without its blank line: it must not be used.
			write(w, partA, strings.TrimSuffix(chunkSSE(chunk1, 1), "\n"))
			return
		}
		write(w, partB)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	want := "Status(running) Mode(review=false) Connected(1,,false) Batch(c0) Cursor(aev_cursor_3_0) " +
		"Reconnecting(2,connection closed in the middle of a frame) Connected(2,aev_cursor_3_0,true) " +
		"Batch(c1,e:evt_x) Cursor(aev_cursor_5_1) Terminal(aev_cursor_5_1) Result(completed) Status(completed,final) Done"
	if got := summary(msgs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	checkFollowRequests(t, f, "", "aev_cursor_3_0")
}

func TestRunEOFWithoutTerminal(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if n == 0 {
			write(w, partA, chunkSSE(chunk1, 1)) // complete frames, then EOF
			return
		}
		write(w, partB)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary(msgs), "Batch(c0) Cursor(aev_cursor_3_0) Batch(c1) Reconnecting(2,connection closed without a terminal frame) Connected(2,aev_cursor_3_0,true)") {
		t.Fatal(summary(msgs))
	}
	a := fold(msgs)
	if a.ChunkCount() != 2 || a.ReplayCount() != 1 { // chunk 1 came twice: a replay
		t.Fatalf("chunks %d replays %d", a.ChunkCount(), a.ReplayCount())
	}
}

func TestRunAIPErrorFatal(t *testing.T) {
	f := newFake(t)
	f.follow = stream(partA, errorSSE("auth.not_authorized", "auth", ""))
	msgs, err := runWith(t, testConfig(f))
	var e *Error
	if !errors.As(err, &e) || e.Code != "auth.not_authorized" || e.Error() != "follow: auth.not_authorized: m" {
		t.Fatalf("err %v", err)
	}
	want := "Status(running) Mode(review=false) Connected(1,,false) Batch(c0) Cursor(aev_cursor_3_0) Error(follow: auth.not_authorized: m) Done"
	if got := summary(msgs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A permanent error that is not about the cursor is fatal too.
	f2 := newFake(t)
	f2.follow = stream(errorSSE("gateway.error", "permanent", ""))
	if _, err := runWith(t, testConfig(f2)); err == nil || f2.count("GET /aip/v1/actions/act_1/events follow") != 1 {
		t.Fatalf("gateway.error: %v", err)
	}
}

func TestRunAIPErrorRetryable(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		switch n {
		case 0:
			write(w, errorSSE("storage.unavailable", "temporary", `,"retryable":true,"retry_after_ms":15`))
		case 1:
			write(w, "event: aip.error\ndata: stream error\n\n")
		default:
			write(w, canned)
		}
	}
	cfg := testConfig(f)
	cfg.BackoffMax = 50 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) != 2 || rc[0].Cause != "storage.unavailable: m" || rc[0].Wait < 15*time.Millisecond || rc[1].Cause != "stream error" {
		t.Fatalf("reconnects %+v", rc)
	}
	// aip.error frames do not make a connection healthy: the backoff grows.
	if rc[1].Wait < 3*time.Millisecond/2 {
		t.Fatalf("second wait %v", rc[1].Wait)
	}
}

func TestRunHTTPErrorsOnFollow(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			w.Write([]byte("<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"))
		case 1:
			w.WriteHeader(503)
			w.Write([]byte(envelope("storage.unavailable", "temporary", "storage down")))
		default:
			stream(canned)(w, r, n)
		}
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) != 2 || rc[0].Cause != "HTTP 502: 502 Bad Gateway" || rc[1].Cause != "storage.unavailable (HTTP 503): storage down" {
		t.Fatalf("reconnects %+v", rc)
	}
	if c := find[ConnectedMsg](msgs); len(c) != 1 || c[0].Attempt != 3 || !c[0].Resumed {
		t.Fatalf("connected %+v", c)
	}
}

func TestRunStatusErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		code int
		body string
		want string
	}{
		{"401 envelope", 401, envelope("auth.native_http_unauthorized", "auth", "missing bearer token"),
			"status: auth.native_http_unauthorized (HTTP 401): missing bearer token"},
		{"small shape", 400, `{"error":{"code":"connector_catalog.x","message":"nope"}}`, "status: connector_catalog.x (HTTP 400): nope"},
		{"html 502", 502, "<html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("x", 5000) + "</body></html>", "status: HTTP 502: 502 Bad Gateway"},
		{"axum plain 400", 400, "Failed to deserialize query string: limit: invalid digit found in string\nmore", "status: HTTP 400: Failed to deserialize query string: limit: invalid digit found in string more"},
		{"token echoed", 400, "bad header Bearer " + testToken, "status: HTTP 400: bad header Bearer [redacted]"},
		{"not a status", 200, `{"foo":1}`, "status: the reply is not an action status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.status = func(int) (int, string) { return tc.code, tc.body }
			msgs, err := runWith(t, testConfig(f))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err %v\nwant %s", err, tc.want)
			}
			em := find[ErrorMsg](msgs)
			if len(em) != 1 || em[0].Err.Error() != tc.want {
				t.Fatalf("msgs %s", summary(msgs))
			}
			if _, ok := msgs[len(msgs)-1].(DoneMsg); !ok {
				t.Fatal("no DoneMsg last")
			}
			if len(f.follows()) != 0 {
				t.Fatal("followed anyway")
			}
			if strings.Contains(summary(msgs), testToken) {
				t.Fatal("token shown")
			}
		})
	}
}

func TestRunFollowUnauthorized(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(401)
		w.Write([]byte(envelope("auth.native_http_unauthorized", "auth", "invalid bearer token")))
	}
	_, err := runWith(t, testConfig(f))
	var e *Error
	if !errors.As(err, &e) || e.Code != "auth.native_http_unauthorized" || e.HTTPStatus != 401 || len(f.follows()) != 1 {
		t.Fatalf("err %v, %d follows", err, len(f.follows()))
	}
	// 403 without an AIP body, and a 200 that is not an event stream.
	for _, h := range []func(http.ResponseWriter){
		func(w http.ResponseWriter) { w.WriteHeader(403); w.Write([]byte("forbidden")) },
		func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>login</html>"))
		},
	} {
		f := newFake(t)
		f.follow = func(w http.ResponseWriter, r *http.Request, n int) { h(w) }
		if _, err := runWith(t, testConfig(f)); err == nil || len(f.follows()) != 1 {
			t.Fatalf("err %v, %d follows", err, len(f.follows()))
		}
	}
}

func TestRunCursorRefused(t *testing.T) {
	t.Run("frame", func(t *testing.T) {
		f := newFake(t)
		f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
			sseOK(w)
			if n == 0 {
				write(w, errorSSE("stream.cursor_expired", "permanent", `,"details":{"cursor":"aev_cursor_99_0","available_events":3}`))
				return
			}
			write(w, canned)
		}
		cfg := testConfig(f)
		cfg.Cursor = "aev_cursor_99_0"
		msgs, err := runWith(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(summary(msgs), "Status(running) Mode(review=false) Connected(1,aev_cursor_99_0,false) Restart(stream.cursor_expired) Connected(2,,true) Batch(c0)") {
			t.Fatal(summary(msgs))
		}
		checkFollowRequests(t, f, "aev_cursor_99_0", "")
	})
	t.Run("HTTP 400", func(t *testing.T) {
		f := newFake(t)
		f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 0 {
				w.WriteHeader(400)
				w.Write([]byte(envelope("query.invalid_cursor", "permanent", "bad cursor")))
				return
			}
			stream(canned)(w, r, n)
		}
		cfg := testConfig(f)
		cfg.Cursor = "bogus"
		msgs, err := runWith(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(summary(msgs), "Status(running) Mode(review=false) Restart(query.invalid_cursor) Connected(2,,true)") {
			t.Fatal(summary(msgs))
		}
	})
	t.Run("twice reads without cursors", func(t *testing.T) {
		// protocol §10.2: a daemon that refuses its own cursors
		// again after the restart is read without cursors from then on.
		f := newFake(t)
		f.follow = stream(partA, errorSSE("stream.cursor_expired", "permanent", ""))
		f.status = func(n int) (int, string) {
			if n == 0 {
				return 200, statusJSON("running")
			}
			return 200, statusJSON("completed")
		}
		f.statusChunks = func(int) (int, string) { return 200, statusChunksJSON("streaming", 0, 1) }
		msgs, err := runWith(t, testConfig(f))
		if err != nil || len(f.follows()) != 2 {
			t.Fatalf("err %v follows %d", err, len(f.follows()))
		}
		if n := len(find[RestartMsg](msgs)); n != 1 {
			t.Fatalf("%d restarts", n)
		}
		if n := len(find[CursorFreeMsg](msgs)); n != 1 {
			t.Fatalf("%d cursor-free notices: %s", n, summary(msgs))
		}
		if !fold(msgs).Settled() {
			t.Fatal(summary(msgs))
		}
		checkFollowRequests(t, f, "", "")
	})
}

func TestRunResultRetries(t *testing.T) {
	f := newFake(t)
	f.follow = stream(canned)
	f.result = func(n int) (int, string) {
		switch n {
		case 0:
			return 503, envelope("action.result_not_ready", "temporary", "not ready")
		case 1:
			return 502, "<html><title>bad gateway</title></html>"
		}
		return 200, resultJSON
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(cannedSummary, "Result(", "ResultWait(2,action.result_not_ready) ResultWait(3,HTTP 502: bad gateway) Result(", 1)
	if got := summary(msgs); got != want || f.count("GET /aip/v1/actions/act_1/result") != 3 {
		t.Fatalf("%s; %d result reads", got, f.count("GET /aip/v1/actions/act_1/result"))
	}
}

func TestRunResultGone(t *testing.T) {
	for _, code := range []string{"action.gone", "action.dead_lettered"} {
		f := newFake(t)
		f.follow = stream(canned)
		f.result = func(int) (int, string) { return 400, envelope(code, "permanent", "no result") }
		f.status = func(n int) (int, string) {
			if n == 0 {
				return 200, statusJSON("running")
			}
			return 200, statusJSON("expired")
		}
		msgs, err := runWith(t, testConfig(f))
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(msgs); !strings.HasSuffix(got, "Terminal(aev_cursor_5_1) Status(expired,final) Done") {
			t.Fatal(got)
		}
		if a := fold(msgs); !a.Settled() {
			t.Fatal("not settled")
		}
	}
	// Any other permanent result error is fatal.
	f := newFake(t)
	f.follow = stream(canned)
	f.result = func(int) (int, string) { return 400, envelope("action.not_found", "permanent", "act_1") }
	if _, err := runWith(t, testConfig(f)); err == nil || !strings.Contains(err.Error(), "action.not_found") {
		t.Fatal(err)
	}
}

// Timings are generous for a loaded 2-core machine: an idle timeout of
// 200 ms, keep-alives every 25 ms for longer than it, and the no-reconnect
// rule held only when the process was not starved (TestRunIdleWatchdogElapsed
// checks the watchdogs' timing itself).
func TestRunIdleWatchdog(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0: // headers, one frame, then silence
			sseOK(w)
			write(w, partA)
			hang(r)
		case 1: // no reply headers at all
			hang(r)
		default:
			stream(partB)(w, r, n)
		}
	}
	cfg := testConfig(f)
	cfg.IdleTimeout = 200 * time.Millisecond
	starved := watchStarvation(t, cfg.IdleTimeout/2)
	start := time.Now()
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) < 2 || rc[0].Cause != "no complete frame for 200ms" || rc[1].Cause != "no reply within 200ms" ||
		len(rc) > 2 && !starved.since(start) {
		t.Fatalf("%s", summary(msgs))
	}
	if len(rc) == 2 {
		checkFollowRequests(t, f, "", "aev_cursor_3_0", "aev_cursor_3_0")
	}

	// Keep-alives count: a stream quiet for longer than the idle timeout,
	// but with keep-alives, stays up.
	f2 := newFake(t)
	f2.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		for range 16 {
			write(w, ": keep-alive\n\n")
			time.Sleep(25 * time.Millisecond)
		}
		write(w, canned)
	}
	cfg2 := testConfig(f2)
	cfg2.IdleTimeout = 200 * time.Millisecond
	start = time.Now()
	msgs, err = runWith(t, cfg2)
	if err != nil {
		t.Fatalf("%v %s", err, summary(msgs))
	}
	if n := len(find[ReconnectingMsg](msgs)); n != 0 {
		if !starved.since(start) {
			t.Fatalf("keep-alives: %s", summary(msgs))
		}
		t.Logf("keep-alives: %d reconnects while the process was starved", n)
	}
}

func TestRunBackoffReset(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0, 1, 3, 4:
			w.WriteHeader(503)
		case 2:
			stream(partA)(w, r, n) // healthy, then EOF
		default:
			stream(partB)(w, r, n)
		}
	}
	cfg := testConfig(f)
	cfg.BackoffMin = 8 * time.Millisecond
	cfg.BackoffMax = 200 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rc := find[ReconnectingMsg](msgs)
	if len(rc) != 5 {
		t.Fatalf("%s", summary(msgs))
	}
	within := func(d, lo, hi time.Duration) bool { return d >= lo && d <= hi }
	m := cfg.BackoffMin
	if !within(rc[0].Wait, m*3/4, m) || !within(rc[1].Wait, 2*m*3/4, 2*m) || // 503, 503
		!within(rc[2].Wait, m*3/4, m) || // after the healthy connection: reset
		!within(rc[3].Wait, 2*m*3/4, 2*m) || !within(rc[4].Wait, 4*m*3/4, 4*m) {
		t.Fatalf("waits %v %v %v %v %v", rc[0].Wait, rc[1].Wait, rc[2].Wait, rc[3].Wait, rc[4].Wait)
	}
	for i, r := range rc {
		if r.Attempt != i+2 {
			t.Fatalf("attempt %d: %d", i, r.Attempt)
		}
	}
	checkFollowRequests(t, f, "", "", "", "aev_cursor_3_0", "aev_cursor_3_0", "aev_cursor_3_0")
}

func TestBackoffCap(t *testing.T) {
	r := newRunner(&Client{cfg: Config{BackoffMin: 250 * time.Millisecond, BackoffMax: 10 * time.Second}}, nil)
	for n, lo := range map[int]time.Duration{1: 187 * time.Millisecond, 3: 750 * time.Millisecond, 6: 6 * time.Second, 50: 7500 * time.Millisecond} {
		if d := r.backoff(n, 0); d < lo || d > 10*time.Second {
			t.Errorf("backoff(%d) = %v", n, d)
		}
	}
	if d := r.backoff(1, time.Minute); d != 10*time.Second {
		t.Errorf("hint not capped: %v", d)
	}
	if d := r.backoff(1, 2*time.Second); d != 2*time.Second {
		t.Errorf("hint not respected: %v", d)
	}
}

func TestRunRetryAfterHeader(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(429)
			return
		}
		stream(canned)(w, r, n)
	}
	cfg := testConfig(f)
	cfg.BackoffMax = 30 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rc := find[ReconnectingMsg](msgs); len(rc) != 1 || rc[0].Wait != 30*time.Millisecond || rc[0].Cause != "HTTP 429: Too Many Requests" {
		t.Fatalf("%+v", rc)
	}
}

func TestRunReview(t *testing.T) {
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	f.page = func(cursor string, n int) (int, string) {
		switch cursor {
		case "":
			return 200, pageJSON("aev_cursor_2_0", true, evtX, chunk0)
		case "aev_cursor_2_0":
			return 200, pageJSON("aev_cursor_3_1", true, chunk1)
		}
		return 200, pageJSON(cursor, true)
	}
	var seen []Frame
	cfg := testConfig(f)
	cfg.OnFrame = func(fr Frame) { seen = append(seen, fr) }
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := "Status(completed) Mode(review=true) Batch(e:evt_x,c0) Cursor(aev_cursor_2_0) Batch(c1) Cursor(aev_cursor_3_1) " +
		"Terminal(aev_cursor_3_1) Result(completed) Status(completed,final) Done"
	if got := summary(msgs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if len(f.follows()) != 0 || f.count("GET /aip/v1/actions/act_1/events") != 3 {
		t.Fatal("review must page, not follow")
	}
	// The recording gets the pages in the follow form, replayable by route.
	var kinds []string
	for _, fr := range seen {
		if !fr.Page {
			t.Fatal("page frame without Page")
		}
		kinds = append(kinds, fr.Event+"="+fr.ID)
	}
	wantFrames := "aip.action.result=evt_x aip.stream.chunk=chunk:0 aip.stream.cursor=aev_cursor_2_0 aip.stream.chunk=chunk:1 aip.stream.cursor=aev_cursor_3_1 aip.stream.terminal=aev_cursor_3_1"
	if strings.Join(kinds, " ") != wantFrames {
		t.Fatal(strings.Join(kinds, " "))
	}
	for i := range seen {
		if rt := route(&seen[i]); rt.kind == routeBad || rt.kind == routeIgnore {
			t.Fatalf("frame %d does not route: %+v", i, seen[i])
		}
	}
}

func TestRunDrain(t *testing.T) {
	f := newFake(t)
	f.follow = stream(canned)
	chunk2 := chunkObj(2, "data", `{"x":1}`)
	f.page = func(cursor string, n int) (int, string) {
		switch {
		case cursor == "aev_cursor_5_1":
			return 200, pageJSON("aev_cursor_6_2", true, chunk2, `"nope"`, `{"sequence":"nope"}`)
		case cursor == "aev_cursor_6_2" && n == 1:
			return 503, envelope("storage.unavailable", "temporary", "later")
		case cursor == "aev_cursor_6_2" && n == 2:
			return 400, envelope("stream.cursor_expired", "permanent", "gone")
		case cursor == "":
			return 200, pageJSON("aev_cursor_6_2", true, chunk0, chunk1, chunk2)
		}
		return 200, pageJSON(cursor, true)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	want := "Status(running) Mode(review=false) Connected(1,,false) Batch(c0) Cursor(aev_cursor_3_0) Batch(c1,e:evt_x) Cursor(aev_cursor_5_1) Terminal(aev_cursor_5_1) " +
		"Bad(2) Batch(c2) Cursor(aev_cursor_6_2) Restart(stream.cursor_expired) Batch(c0,c1,c2) Cursor(aev_cursor_6_2) Result(completed) Status(completed,final) Done"
	if got := summary(msgs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	a := fold(msgs)
	if a.ChunkCount() != 3 || a.ReplayCount() != 3 || a.Cursor != "aev_cursor_6_2" {
		t.Fatalf("chunks %d replays %d cursor %s", a.ChunkCount(), a.ReplayCount(), a.Cursor)
	}
}

func TestRunContextCancel(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, partA)
		hang(r)
	}
	c, err := New(testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{on: func(m Msg) {
		if _, ok := m.(CursorMsg); ok {
			cancel()
		}
	}}
	done := make(chan error)
	go func() { done <- c.Run(ctx, rec) }()
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	for _, m := range rec.all() {
		if _, ok := m.(DoneMsg); ok {
			t.Fatal("DoneMsg after cancel")
		}
		if _, ok := m.(ErrorMsg); ok {
			t.Fatal("ErrorMsg after cancel")
		}
	}

	// Cancelled while waiting to reconnect, and while waiting for a result.
	for _, setup := range []func(*fake){
		func(f *fake) { f.follow = func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) } },
		func(f *fake) {
			f.follow = stream(canned)
			f.result = func(int) (int, string) { return 503, envelope("action.result_not_ready", "temporary", "") }
		},
	} {
		f := newFake(t)
		setup(f)
		cfg := testConfig(f)
		cfg.BackoffMin, cfg.BackoffMax = time.Hour, time.Hour
		c, _ := New(cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := c.Run(ctx, &recorder{})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
	}
}

func TestRunBatching(t *testing.T) {
	f := newFake(t)
	var b strings.Builder
	for i := range 300 {
		if i == 150 {
			b.WriteString(chunkSSE(chunkObj(i, "tool", `{"t":1}`), i))
			continue
		}
		b.WriteString(chunkSSE(chunkObj(i, "data", `{"hermes_sse":{"data":{"choices":[{"delta":{"content":"x"}}]},"raw_data":"","terminal":false}}`), i))
	}
	f.follow = stream(b.String(), cursorSSE("aev_cursor_9_299"), terminalSSE("aev_cursor_9_299"))
	cfg := testConfig(f)
	cfg.BatchInterval = time.Second // only a structural chunk or another message flushes
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	batches := find[BatchMsg](msgs)
	var seqs []uint64
	for _, bm := range batches {
		for _, c := range bm.Chunks {
			seqs = append(seqs, c.Sequence)
		}
	}
	for i, s := range seqs {
		if s != uint64(i) {
			t.Fatalf("order broken at %d: %d", i, s)
		}
	}
	if len(seqs) != 300 {
		t.Fatalf("%d chunks", len(seqs))
	}
	// The first chunk goes at once (no batch for a second before it), the
	// structural chunk 150 ends a batch, the cursor frame flushes the rest.
	if len(batches) != 3 || len(batches[0].Chunks) != 1 || batches[1].Chunks[len(batches[1].Chunks)-1].Sequence != 150 {
		var sizes []int
		for _, bm := range batches {
			sizes = append(sizes, len(bm.Chunks))
		}
		t.Fatalf("batches %v", sizes)
	}
}

func TestRunBatchTimer(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		for i := range 20 {
			write(w, chunkSSE(chunkObj(i, "data", `{"d":"x"}`), i))
			time.Sleep(5 * time.Millisecond)
		}
		write(w, cursorSSE("aev_cursor_1_19"), terminalSSE("aev_cursor_1_19"))
	}
	cfg := testConfig(f)
	cfg.BatchInterval = 30 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	batches := find[BatchMsg](msgs)
	// ~100 ms of chunks at one batch per 30 ms: a handful, not twenty.
	if len(batches) < 2 || len(batches) > 8 {
		t.Fatalf("%d batches", len(batches))
	}
}

func TestNewConfig(t *testing.T) {
	for _, bad := range []Config{
		{BaseURL: "http://127.0.0.1:1"},
		{BaseURL: "ftp://x", ActionID: "act_1"},
		{BaseURL: "127.0.0.1:8080", ActionID: "act_1"},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:8080/prefix/", ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	if u := c.actionURL("/events", nil); u != "http://127.0.0.1:8080/prefix/aip/v1/actions/act_1/events" {
		t.Fatal(u)
	}
	if c.cfg.IdleTimeout != 45*time.Second || c.cfg.BackoffMin != 250*time.Millisecond || c.cfg.BackoffMax != 10*time.Second || c.cfg.BatchInterval != 33*time.Millisecond {
		t.Fatalf("defaults %+v", c.cfg)
	}
	if c.follow.Timeout != 0 {
		t.Fatal("follow with an overall timeout")
	}
	c2, _ := New(Config{BaseURL: "http://h", ActionID: "act_x/../y"})
	if u := c2.actionURL("", nil); u != "http://h/aip/v1/actions/act_x%2F..%2Fy" {
		t.Fatal(u)
	}
}

func TestRunAbortMidFrame(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if n == 0 {
			write(w, partA, chunkSSE(chunk1, 1)[:40])
			panic(http.ErrAbortHandler) // the connection is cut, not ended
		}
		write(w, partB)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	if bad := find[BadFrameMsg](msgs); len(bad) != 0 {
		t.Fatalf("the partial frame was dispatched: %s", summary(msgs))
	}
	if !strings.Contains(summary(msgs), "Batch(c0) Cursor(aev_cursor_3_0) Reconnecting(2,connection closed by ") {
		t.Fatal(summary(msgs))
	}
}

func TestRunStuckCatchesUpWithPages(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if r.URL.Query().Get("cursor") != "aev_cursor_9_1" {
			write(w, chunkSSE(chunk0, 0)) // always cut before the page's cursor frame
			return
		}
		write(w, terminalSSE("aev_cursor_9_1"))
	}
	f.page = func(cursor string, n int) (int, string) {
		if cursor == "" {
			return 200, pageJSON("aev_cursor_9_1", false, chunk0, chunk1)
		}
		return 200, pageJSON(cursor, false)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	want := "Status(running) Mode(review=false) Connected(1,,false) Batch(c0) Reconnecting(2,connection closed without a terminal frame) " +
		"Connected(2,,true) Batch(c0) Reconnecting(3,connection closed without a terminal frame) " +
		"Connected(3,,true) Batch(c0) Reconnecting(4,connection closed without a terminal frame) " +
		"Batch(c0,c1) Cursor(aev_cursor_9_1) Connected(4,aev_cursor_9_1,true) Terminal(aev_cursor_9_1) Result(completed) Status(completed,final) Done"
	if got := summary(msgs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestRunFailedConnectsDoNotPage(t *testing.T) {
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 5 {
			w.WriteHeader(503)
			return
		}
		stream(canned)(w, r, n)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	if n := f.count("GET /aip/v1/actions/act_1/events"); n != 1 || len(find[ReconnectingMsg](msgs)) != 5 {
		t.Fatalf("%d pages; %s", n, summary(msgs))
	}
}

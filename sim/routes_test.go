package sim

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{Token: "s3cret-token"})
	status := u + "/aip/v1/actions/" + s.ActionID()
	cases := []struct {
		name, header, msg string
	}{
		{"missing", "", "missing bearer token"},
		{"wrong", "Bearer nope", "invalid bearer token"},
		{"basic", "Basic czNjcmV0", "invalid authorization header: "},
		{"empty bearer", "Bearer ", "invalid authorization header: "},
		{"non-ascii", "Bearer s3cret-tökén", "invalid authorization header: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hdr []string
			if c.header != "" {
				hdr = []string{"Authorization", c.header}
			}
			for _, url := range []string{status, status + "/result", followURL(u, s.ActionID(), "")} {
				pe := envelopeError(t, get(t, url, hdr...), http.StatusUnauthorized)
				if pe.Code != "auth.native_http_unauthorized" || pe.Category != "auth" || pe.Retryable ||
					!strings.HasPrefix(pe.Message, c.msg) || pe.Source["component"] != "aip.server.native_http" {
					t.Fatalf("%s: %+v", url, pe)
				}
			}
			pe := envelopeError(t, do(t, http.MethodPost, status+"/cancel", `{"reason":"x"}`, hdr...), http.StatusUnauthorized)
			if pe.Code != "auth.native_http_unauthorized" {
				t.Fatalf("cancel: %+v", pe)
			}
		})
	}
	if r := get(t, status, "Authorization", "Bearer s3cret-token"); r.status != http.StatusOK {
		t.Fatalf("good token: %d %s", r.status, r.body)
	}
	if r := get(t, status, "Authorization", "bearer s3cret-token"); r.status != http.StatusOK {
		t.Fatalf("scheme is case-insensitive: %d", r.status)
	}
	if r := get(t, u+"/health"); r.status != http.StatusOK {
		t.Fatalf("health is outside the bearer check: %d", r.status)
	}
	// The rejected cancels were POSTs all the same.
	if n := s.CancelCount(); n != len(cases) {
		t.Fatalf("CancelCount %d, want %d", n, len(cases))
	}
}

func TestTokenSentToTokenlessDaemon(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{})
	r := get(t, u+"/aip/v1/actions/"+s.ActionID(), "Authorization", "Bearer whatever")
	pe := envelopeError(t, r, http.StatusUnauthorized)
	if pe.Message != "native bearer authentication is not configured" {
		t.Fatalf("%+v", pe)
	}
	if r := get(t, u+"/aip/v1/actions/"+s.ActionID()); r.status != http.StatusOK {
		t.Fatalf("no header, no token: %d", r.status)
	}
}

func TestActionIDMustStartWithAct(t *testing.T) {
	t.Parallel()
	_, u := start(t, "late-cancel", Knobs{})
	for _, r := range []reply{
		get(t, u+"/aip/v1/actions/sim_1"),
		get(t, u+"/aip/v1/actions/sim_1/events"),
		get(t, u+"/aip/v1/actions/sim_1/events?follow=true"),
		get(t, u+"/aip/v1/actions/sim_1/result"),
		do(t, http.MethodPost, u+"/aip/v1/actions/sim_1/cancel", ""),
	} {
		pe := envelopeError(t, r, http.StatusBadRequest)
		if pe.Code != "query.invalid" || pe.Category != "permanent" || pe.Source["component"] != "aip.server.http" {
			t.Fatalf("%+v", pe)
		}
	}
}

func TestUnknownAction(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{})
	const other = "act_nobody_here"
	st := statusT(t, u, other)
	if st["state"] != "unknown" || st["action_id"] != other {
		t.Fatalf("status %v", st)
	}
	pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+other+"/result"), http.StatusBadRequest)
	if pe.Code != "action.not_found" {
		t.Fatalf("result: %+v", pe)
	}
	pe = envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions/"+other+"/cancel", `{"reason":"x"}`), http.StatusBadRequest)
	if pe.Code != "resource.not_found" || pe.Message != other || pe.Category != "permanent" {
		t.Fatalf("cancel: %+v", pe)
	}
	p, raw := readPageT(t, u, other, "include_chunks=true")
	if len(p.Events) != 0 || p.Terminal || p.Cursor != "aev_cursor_0_none" || strings.Contains(string(raw), `"chunks"`) {
		t.Fatalf("page %s", raw)
	}
	if s.CancelCount() != 1 {
		t.Fatalf("CancelCount %d", s.CancelCount())
	}
}

func TestStatusResultLifecycle(t *testing.T) {
	t.Parallel()
	// Synchronous (the guide's action call): no record while it runs
	// (protocol §10, the table and A5). The run is held after its first
	// chunk (Knobs.Hold) until its states while it runs are read, then
	// settles at once.
	hold := make(chan struct{})
	s, u := start(t, "chat-error", Knobs{Speed: 4, Hold: hold})
	st := statusT(t, u, s.ActionID())
	if st["state"] != "unknown" || st["capability_id"] != nil || st["started_at"] != nil || st["queued_state"] != nil {
		t.Fatalf("before the first chunk: %v", st)
	}
	pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"), http.StatusBadRequest)
	if pe.Code != "action.not_found" || pe.Source["component"] != "aip-runtime" {
		t.Fatalf("%+v", pe)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st = statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] == "streaming" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never streaming: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st = statusT(t, u, s.ActionID()); st["state"] != "unknown" {
		t.Fatalf("streaming without include_chunks: %v", st)
	}
	close(hold)
	waitSettled(t, s)
	st = statusT(t, u, s.ActionID())
	if st["state"] != "completed" || st["result_status"] != "completed" || st["completed_at"] == nil ||
		st["capability_id"] != "cap:hermes_agent:sim:chat_stream" || st["queued_state"] != "completed" || st["started_at"] != st["completed_at"] {
		t.Fatalf("settled: %v", st)
	}
	if res := resultT(t, s, u); res.Status != "completed" || res.ActionID != s.ActionID() {
		t.Fatalf("result %+v", res)
	}
	// action_lifecycle_state looks at the stored result before the loaded
	// chunks: a settled action reads its result's status with them too.
	r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"?include_result=true&include_chunks=true")
	var withResult struct {
		S struct {
			State  string        `json:"state"`
			Result *actionResult `json:"result"`
			Chunks []chunk       `json:"chunks"`
		} `json:"action_status"`
	}
	mustJSON(t, r.body, &withResult)
	if withResult.S.Result == nil || withResult.S.Result.Status != "completed" || len(withResult.S.Chunks) == 0 || withResult.S.State != "completed" {
		t.Fatalf("include_result/include_chunks: %s", truncate(r.body))
	}
}

func TestStatusResultLifecycleAsync(t *testing.T) {
	// Asynchronous: a queue record at once, queued then running under a
	// worker's lease; the result route answers not ready, temporary but
	// retryable false (protocol §1.2, §2.1, A5, B5). Speed 2: 125 ms in
	// the queue; the run is then held after its first chunk (Knobs.Hold)
	// until it was read running, and settles at once.
	hold := make(chan struct{})
	s, u := start(t, "chat-error", Knobs{Speed: 2, Mode: ModeAsync, Hold: hold})
	st := statusT(t, u, s.ActionID())
	if st["state"] != "queued" || st["queued_state"] != "queued" || st["capability_id"] != "cap:hermes_agent:sim:chat_stream" || st["started_at"] == nil {
		t.Fatalf("queued: %v", st)
	}
	pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"), http.StatusServiceUnavailable)
	if pe.Code != "action.result_not_ready" || pe.Category != "temporary" || pe.Retryable || pe.Source["component"] != "aip-runtime" {
		t.Fatalf("%+v", pe)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st = statusT(t, u, s.ActionID()); st["state"] == "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never running: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if lease, _ := st["lease"].(map[string]any); lease["worker_id"] == nil || lease["expires_at"] == nil {
		t.Fatalf("running without a lease: %v", st)
	}
	close(hold)
	waitSettled(t, s)
	if st = statusT(t, u, s.ActionID()); st["state"] != "completed" || st["lease"] != nil {
		t.Fatalf("settled: %v", st)
	}
}

var cursorRE = regexp.MustCompile(`^aev_cursor_\d+_(\d+|none)$`)

func TestPaging(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{})
	full, _ := readPageT(t, u, s.ActionID(), "include_chunks=true&limit=1000")
	nc := len(full.Chunks)
	if nc < 20 || len(full.Events) != nc+1 || !full.Terminal {
		t.Fatalf("full page: %d events, %d chunks, terminal %v", len(full.Events), nc, full.Terminal)
	}
	if want := "aev_cursor_" + strconv.Itoa(nc+1) + "_" + strconv.Itoa(nc-1); full.Cursor != want {
		t.Fatalf("cursor %s, want %s", full.Cursor, want)
	}
	for i, e := range full.Events[:nc] {
		if e.Kind != "aip.stream.chunk" || e.ID != chunkEventID(s.ActionID(), uint64(i)) ||
			e.Data["sequence"] != float64(i) || e.Data["kind"] != full.Chunks[i].Kind || e.Data["action_id"] != s.ActionID() {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	if last := full.Events[nc]; last.Kind != "aip.action.result" || last.Data["status"] != "completed" {
		t.Fatalf("last event %+v", last)
	}

	// Small pages: events first, then chunks, never more than limit items.
	const limit = 7
	var events, chunks int
	mixed := false
	cur := ""
	for pages := 0; ; pages++ {
		q := "include_chunks=true&limit=" + strconv.Itoa(limit)
		if cur != "" {
			q += "&cursor=" + cur
		}
		p, raw := readPageT(t, u, s.ActionID(), q)
		if !cursorRE.MatchString(p.Cursor) {
			t.Fatalf("cursor %q", p.Cursor)
		}
		n := len(p.Events) + len(p.Chunks)
		if n > limit {
			t.Fatalf("page of %d items", n)
		}
		if len(p.Chunks) > 0 && events+len(p.Events) < len(full.Events) {
			t.Fatalf("chunks before all events were read")
		}
		if len(p.Events) > 0 && len(p.Chunks) > 0 {
			mixed = true
			if n != limit {
				t.Fatalf("mixed page not filled: %d", n)
			}
		}
		for i, c := range p.Chunks {
			if c.Sequence != uint64(chunks+i) {
				t.Fatalf("chunk %d has sequence %d", chunks+i, c.Sequence)
			}
		}
		events += len(p.Events)
		chunks += len(p.Chunks)
		if n == 0 {
			if !p.Terminal || p.Cursor != cur || strings.Contains(string(raw), `"chunks"`) {
				t.Fatalf("empty page %s (previous cursor %s)", raw, cur)
			}
			break
		}
		cur = p.Cursor
		if pages > 100 {
			t.Fatal("paging does not end")
		}
	}
	if events != len(full.Events) || chunks != nc || !mixed {
		t.Fatalf("paged %d events, %d chunks (mixed %v)", events, chunks, mixed)
	}

	// Without chunks the cursor keeps its chunk part.
	p, raw := readPageT(t, u, s.ActionID(), "limit=3")
	if len(p.Events) != 3 || p.Cursor != "aev_cursor_3_none" || strings.Contains(string(raw), `"chunks"`) {
		t.Fatalf("no chunks: %s", truncate(raw))
	}
	// limit is clamped into 1..=1000; the default is 100.
	if p, _ := readPageT(t, u, s.ActionID(), "limit=0"); len(p.Events) != 1 {
		t.Fatalf("limit=0 gave %d", len(p.Events))
	}
	// kind filters events.
	p, _ = readPageT(t, u, s.ActionID(), "kind=aip.action.result&include_chunks=true&limit=1000")
	if len(p.Events) != 1 || p.Events[0].Kind != "aip.action.result" || len(p.Chunks) != nc {
		t.Fatalf("kind filter: %d events", len(p.Events))
	}
	// /chunks is events of kind aip.stream.chunk plus the chunks.
	r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"/chunks?limit=1000")
	var cp struct {
		AE actionEvents `json:"action_events"`
	}
	mustJSON(t, r.body, &cp)
	if len(cp.AE.Events) != nc || len(cp.AE.Chunks) != nc {
		t.Fatalf("/chunks: %d events %d chunks", len(cp.AE.Events), len(cp.AE.Chunks))
	}
	// Query parse errors are axum's plain-text 400s.
	for _, q := range []string{"limit=ten", "follow=yes", "include_chunks=1"} {
		r := get(t, eventsURL(u, s.ActionID(), q))
		if r.status != http.StatusBadRequest || !strings.HasPrefix(string(r.body), "Failed to deserialize query string") {
			t.Fatalf("%s: %d %s", q, r.status, r.body)
		}
	}
}

func TestLimitClampHigh(t *testing.T) {
	t.Parallel()
	s, u := start(t, "firehose", Knobs{FirehoseN: 1200})
	p, _ := readPageT(t, u, s.ActionID(), "limit=5000&include_chunks=true")
	if len(p.Events) != 1000 || len(p.Chunks) != 0 || p.Cursor != "aev_cursor_1000_none" {
		t.Fatalf("limit=5000: %d events %d chunks %s", len(p.Events), len(p.Chunks), p.Cursor)
	}
	if p, _ := readPageT(t, u, s.ActionID(), ""); len(p.Events) != 100 {
		t.Fatalf("default limit: %d", len(p.Events))
	}
}

func TestCursors(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{})
	id := s.ActionID()
	full, _ := readPageT(t, u, id, "include_chunks=true&limit=1000")
	ne := len(full.Events)

	for _, bad := range []string{"bogus", "chunk:3", "evt_stream_00", "aev_cursor_x_none", "aev_cursor_1", "aev_cursor_1_-2", "evt_cursor_"} {
		pe := envelopeError(t, get(t, eventsURL(u, id, "cursor="+bad)), http.StatusBadRequest)
		if pe.Code != "query.invalid_cursor" || pe.Details["cursor"] != bad {
			t.Fatalf("%s: %+v", bad, pe)
		}
	}
	past := "aev_cursor_" + strconv.Itoa(ne+1) + "_none"
	pe := envelopeError(t, get(t, eventsURL(u, id, "cursor="+past)), http.StatusBadRequest)
	if pe.Code != "stream.cursor_expired" || pe.Category != "permanent" ||
		pe.Details["cursor"] != past || pe.Details["available_events"] != float64(ne) {
		t.Fatalf("expired: %+v", pe)
	}
	// The end of the log itself is fine, and empty.
	if p, _ := readPageT(t, u, id, "cursor=aev_cursor_"+strconv.Itoa(ne)+"_none"); len(p.Events) != 0 {
		t.Fatalf("end of log: %d events", len(p.Events))
	}
	// evt_cursor_<n> is an event offset without a chunk part.
	p, _ := readPageT(t, u, id, "cursor=evt_cursor_3&include_chunks=true&limit=1000")
	if len(p.Events) != ne-3 || len(p.Chunks) != len(full.Chunks) || p.Events[0].ID != full.Events[3].ID {
		t.Fatalf("evt_cursor_3: %d events %d chunks", len(p.Events), len(p.Chunks))
	}
	// Chunks resume after the cursor's chunk sequence.
	p, _ = readPageT(t, u, id, "cursor=aev_cursor_0_2&include_chunks=true&limit=1000")
	if len(p.Chunks) != len(full.Chunks)-3 || p.Chunks[0].Sequence != 3 {
		t.Fatalf("aev_cursor_0_2: %d chunks", len(p.Chunks))
	}
	// Last-Event-ID is the cursor when the query has none; the query wins.
	p, _ = readPageT(t, u, id, "limit=1000", "Last-Event-ID", " evt_cursor_2 ")
	if len(p.Events) != ne-2 {
		t.Fatalf("Last-Event-ID: %d events", len(p.Events))
	}
	p, _ = readPageT(t, u, id, "limit=1000&cursor=evt_cursor_4", "Last-Event-ID", "evt_cursor_2")
	if len(p.Events) != ne-4 {
		t.Fatalf("query over header: %d events", len(p.Events))
	}
	pe = envelopeError(t, get(t, eventsURL(u, id, ""), "Last-Event-ID", "chunk:1"), http.StatusBadRequest)
	if pe.Code != "query.invalid_cursor" {
		t.Fatalf("bad Last-Event-ID: %+v", pe)
	}
	var sawHeader bool
	for _, r := range s.Requests() {
		if r.LastEventID == "chunk:1" && r.Path == "/aip/v1/actions/"+id+"/events" && r.Method == http.MethodGet {
			sawHeader = true
		}
	}
	if !sawHeader {
		t.Fatal("Requests() did not record Last-Event-ID")
	}
}

func TestResultNotReadyKnob(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{ResultNotReady: 2})
	for i := range 2 {
		pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"), http.StatusServiceUnavailable)
		if pe.Code != "action.result_not_ready" || pe.Details["state"] != "running" {
			t.Fatalf("read %d: %+v", i, pe)
		}
	}
	if res := resultT(t, s, u); res.Status != "completed" {
		t.Fatalf("third read: %+v", res)
	}
}

func TestHandlerWithoutStart(t *testing.T) {
	t.Parallel()
	s, err := New("chat-crash", Knobs{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	defer s.Close()
	if s.URL() != "" {
		t.Fatalf("URL before Start: %q", s.URL())
	}
	if res := resultT(t, s, ts.URL); res.Status != "completed" {
		t.Fatalf("%+v", res)
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	_, err := New("nope", Knobs{})
	if err == nil || !strings.Contains(err.Error(), "chat-tools") || !strings.Contains(err.Error(), "firehose") {
		t.Fatalf("unknown scenario error should list the names: %v", err)
	}
	if _, err := New("long", Knobs{Speed: -1}); err == nil {
		t.Fatal("negative speed accepted")
	}
	for _, name := range Scenarios() {
		if Describe(name) == "" {
			t.Fatalf("%s has no description", name)
		}
	}
	if Describe("nope") != "" {
		t.Fatal("description for an unknown scenario")
	}
}

package stream

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"aipwatch/model"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testToken = "tok-s3cret-value"

// req is one request the fake aipd saw.
type req struct {
	Method, Path string
	Query        url.Values
	Header       http.Header
	Body         string
}

// fake is a scripted aipd. Each handler gets the 0-based index of its call.
type fake struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	reqs   []req
	counts map[string]int

	status func(n int) (int, string)
	// statusChunks answers the status route with include_chunks=true
	// (cursor-free reading); nil = an unexpected request.
	statusChunks func(n int) (int, string)
	follow       func(w http.ResponseWriter, r *http.Request, n int)
	page         func(cursor string, n int) (int, string)
	result       func(n int) (int, string)
	cancel       func(body string) (int, string)
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t, counts: map[string]int{}}
	// Defaults: running, then completed; empty pages; a completed result.
	f.status = func(n int) (int, string) {
		if n == 0 {
			return 200, statusJSON("running")
		}
		return 200, statusJSON("completed")
	}
	f.page = func(cursor string, n int) (int, string) { return 200, pageJSON(cursor, true) }
	f.statusChunks = func(int) (int, string) { return 200, statusChunksJSON("streaming", 0, 1) }
	f.result = func(int) (int, string) { return 200, resultJSON }
	f.cancel = func(string) (int, string) {
		return 200, `{"action_result":{"action_id":"act_1","status":"cancelled","output":{"cancelled":true}}}`
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, req{r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone(), string(body)})
	key := r.Method + " " + r.URL.Path
	if r.URL.Query().Get("follow") == "true" {
		key += " follow"
	}
	withChunks := r.URL.Path == "/aip/v1/actions/act_1" && r.URL.Query().Get("include_chunks") == "true"
	if withChunks {
		key += " chunks"
	}
	n := f.counts[key]
	f.counts[key]++
	f.mu.Unlock()

	reply := func(code int, body string) {
		if strings.HasPrefix(body, "<") {
			w.Header().Set("Content-Type", "text/html")
		} else if strings.HasPrefix(body, "{") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
	switch {
	case r.Method == "GET" && withChunks:
		if f.statusChunks == nil {
			f.t.Errorf("unexpected status read with chunks")
			reply(500, "no chunks")
			return
		}
		reply(f.statusChunks(n))
	case r.Method == "GET" && r.URL.Path == "/aip/v1/actions/act_1":
		reply(f.status(n))
	case r.Method == "GET" && r.URL.Path == "/aip/v1/actions/act_1/events" && r.URL.Query().Get("follow") == "true":
		if f.follow == nil {
			f.t.Errorf("unexpected follow request")
			reply(500, "no follow")
			return
		}
		f.follow(w, r, n)
	case r.Method == "GET" && r.URL.Path == "/aip/v1/actions/act_1/events":
		reply(f.page(r.URL.Query().Get("cursor"), n))
	case r.Method == "GET" && r.URL.Path == "/aip/v1/actions/act_1/result":
		reply(f.result(n))
	case r.Method == "POST" && r.URL.Path == "/aip/v1/actions/act_1/cancel":
		reply(f.cancel(string(body)))
	default:
		reply(404, "not found")
	}
}

func (f *fake) requests() []req {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]req(nil), f.reqs...)
}

// follows returns the follow requests.
func (f *fake) follows() []req {
	var out []req
	for _, r := range f.requests() {
		if r.Query.Get("follow") == "true" {
			out = append(out, r)
		}
	}
	return out
}

func (f *fake) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[key]
}

// sseOK starts an event-stream reply.
func sseOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	w.(http.Flusher).Flush()
}

// write sends parts, flushing after each.
func write(w http.ResponseWriter, parts ...string) {
	for _, p := range parts {
		io.WriteString(w, p)
		w.(http.Flusher).Flush()
	}
}

// stream replies with one event stream of parts and closes it.
func stream(parts ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, parts...)
	}
}

// hang keeps the connection open until the client goes away.
func hang(r *http.Request) { <-r.Context().Done() }

func statusJSON(state string) string {
	return fmt.Sprintf(`{"action_status":{"action_id":"act_1","state":%q,"updated_at":"2025-01-01T00:00:00Z"}}`, state)
}

// statusChunksJSON is a status read with include_chunks=true holding Chat
// delta chunks with the sequences from..to.
func statusChunksJSON(state string, from, to int) string {
	var cs []string
	for i := from; i <= to; i++ {
		cs = append(cs, fmt.Sprintf(`{"action_id":"act_1","sequence":%d,"kind":"data","data":{"n":%d},"part":{"type":"text","text":"t%d"}}`, i, i, i))
	}
	return fmt.Sprintf(`{"action_status":{"action_id":"act_1","state":%q,"updated_at":"2025-01-01T00:00:00Z","chunks":[%s]}}`,
		state, strings.Join(cs, ","))
}

const resultJSON = `{"action_result":{"action_id":"act_1","status":"completed","output":{"operation":"chat_stream","terminal":true,"truncated":false,"text":"alpha"}}}`

func envelope(code, category, msg string) string {
	return fmt.Sprintf(`{"aip_version":"1.0","message_type":"aip.core.v1.error","message_id":"msg_1","sent_at":"2025-01-01T00:00:00Z",`+
		`"body":{"error":{"error":{"code":%q,"message":%q,"category":%q,"retryable":false}}}}`, code, msg, category)
}

func pageJSON(cursor string, terminal bool, items ...string) string {
	var ev, ch []string
	for _, it := range items {
		if strings.Contains(it, `"sequence"`) && !strings.Contains(it, `"kind":"aip.`) {
			ch = append(ch, it)
		} else {
			ev = append(ev, it)
		}
	}
	s := fmt.Sprintf(`{"action_events":{"action_id":"act_1","events":[%s]`, strings.Join(ev, ","))
	if len(ch) > 0 {
		s += fmt.Sprintf(`,"chunks":[%s]`, strings.Join(ch, ","))
	}
	if cursor != "" {
		s += fmt.Sprintf(`,"cursor":%q`, cursor)
	}
	return s + fmt.Sprintf(`,"terminal":%v}}`, terminal)
}

// ---- canned frames (protocol §5.2) ----

func chunkObj(seq int, kind, data string) string {
	return fmt.Sprintf(`{"action_id":"act_1","sequence":%d,"kind":%q,"data":%s}`, seq, kind, data)
}

var (
	chunk0 = chunkObj(0, "data", `{"hermes_sse":{"data":{"choices":[{"delta":{"content":"alpha"}}]},"raw_data":"{\"choices\":[{\"delta\":{\"content\":\"alpha\"}}]}","terminal":false}}`)
	chunk1 = chunkObj(1, "done", `{"hermes_sse":{"data":"[DONE]","raw_data":"[DONE]","terminal":true}}`)
	evtX   = `{"id":"evt_x","kind":"aip.action.result","occurred_at":"2025-01-01T00:00:00Z","action_id":"act_1","data":{"action_id":"act_1","status":"completed"}}`
)

func chunkSSE(c string, seq int) string {
	return fmt.Sprintf("event: aip.stream.chunk\ndata: {\"chunk\":%s}\nid: chunk:%d\n\n", c, seq)
}

func cursorSSE(c string) string {
	return fmt.Sprintf("event: aip.stream.cursor\ndata: {\"next_cursor\":%q}\nid: %s\n\n", c, c)
}

func terminalSSE(c string) string {
	return fmt.Sprintf("event: aip.stream.terminal\ndata: {\"terminal\":true,\"action_id\":\"act_1\"}\nid: %s\n\n", c)
}

func errorSSE(code, category string, extra string) string {
	return fmt.Sprintf("event: aip.error\ndata: {\"error\":{\"code\":%q,\"message\":\"m\",\"category\":%q%s}}\n\n", code, category, extra)
}

var (
	partA = chunkSSE(chunk0, 0) + cursorSSE("aev_cursor_3_0") + ": keep-alive\n\n"
	partB = chunkSSE(chunk1, 1) +
		"event: aip.action.result\ndata: {\"event\":" + evtX + "}\nid: evt_x\n\n" +
		cursorSSE("aev_cursor_5_1") + terminalSSE("aev_cursor_5_1")
	canned = partA + partB
)

// ---- running ----

// recorder is a Sink that keeps every message.
type recorder struct {
	mu   sync.Mutex
	msgs []Msg
	on   func(Msg)
}

func (r *recorder) Send(m Msg) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	on := r.on
	r.mu.Unlock()
	if on != nil {
		on(m)
	}
}

func (r *recorder) all() []Msg {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Msg(nil), r.msgs...)
}

func testConfig(f *fake) Config {
	return Config{
		BaseURL:       f.srv.URL + "/",
		Token:         testToken,
		ActionID:      "act_1",
		IdleTimeout:   2 * time.Second,
		BackoffMin:    time.Millisecond,
		BackoffMax:    20 * time.Millisecond,
		BatchInterval: 5 * time.Millisecond,
	}
}

// runWith runs a client to the end (or 60 s) and returns the messages.
// The 60 s are a budget, not a bound under test: a run takes well under a
// second, but TestLimitDataLineWithoutEnd (16 MiB read under -race) went
// past 10 s at load 19 on 2 cores.
func runWith(t *testing.T, cfg Config) ([]Msg, error) {
	t.Helper()
	return runWithin(t, cfg, time.Minute)
}

// runWithin is runWith with another budget.
func runWithin(t *testing.T, cfg Config, budget time.Duration) ([]Msg, error) {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	rec := &recorder{}
	err = c.Run(ctx, rec)
	if ctx.Err() != nil {
		t.Fatalf("run did not end: %v", summary(rec.all()))
	}
	return rec.all(), err
}

// summary renders messages as short tokens, leaving out LivenessMsg and
// merging consecutive batches (their cut depends on timing; their order
// does not).
func summary(msgs []Msg) string {
	var out []string
	var batch []string
	flush := func() {
		if batch != nil {
			out = append(out, "Batch("+strings.Join(batch, ",")+")")
			batch = nil
		}
	}
	for _, m := range msgs {
		if b, ok := m.(BatchMsg); ok {
			for _, e := range b.Events {
				batch = append(batch, "e:"+e.ID)
			}
			for _, c := range b.Chunks {
				batch = append(batch, fmt.Sprintf("c%d", c.Sequence))
			}
			continue
		}
		if _, ok := m.(LivenessMsg); ok {
			continue
		}
		flush()
		switch m := m.(type) {
		case StatusMsg:
			if m.Final {
				out = append(out, "Status("+m.Status.State+",final)")
			} else {
				out = append(out, "Status("+m.Status.State+")")
			}
		case ModeMsg:
			out = append(out, fmt.Sprintf("Mode(review=%v)", m.Review))
		case ConnectedMsg:
			out = append(out, fmt.Sprintf("Connected(%d,%s,%v)", m.Attempt, m.Cursor, m.Resumed))
		case ReconnectingMsg:
			out = append(out, fmt.Sprintf("Reconnecting(%d,%s)", m.Attempt, m.Cause))
		case RestartMsg:
			out = append(out, "Restart("+m.Code+")")
		case CursorMsg:
			out = append(out, "Cursor("+m.Cursor+")")
		case TerminalMsg:
			out = append(out, "Terminal("+m.Cursor+")")
		case ResultMsg:
			out = append(out, "Result("+m.Result.Status+")")
		case ErrorMsg:
			out = append(out, "Error("+m.Err.Error()+")")
		case BadFrameMsg:
			out = append(out, fmt.Sprintf("Bad(%d)", m.Count))
		case NoRecordMsg:
			out = append(out, "NoRecord")
		case CursorFreeMsg:
			out = append(out, "CursorFree("+m.Code+")")
		case ResultWaitMsg:
			out = append(out, fmt.Sprintf("ResultWait(%d,%s)", m.Attempt, m.Code))
		case UnsettledMsg:
			out = append(out, "Unsettled("+m.Reason+")")
		case DoneMsg:
			out = append(out, "Done")
		default:
			out = append(out, fmt.Sprintf("%T", m))
		}
	}
	flush()
	return strings.Join(out, " ")
}

// fold applies the messages to a fresh model.
func fold(msgs []Msg) *model.Action {
	a := model.NewAction("act_1")
	for _, m := range msgs {
		Apply(a, m)
	}
	return a
}

func find[T Msg](msgs []Msg) []T {
	var out []T
	for _, m := range msgs {
		if v, ok := m.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T, scenario string, k Knobs) (*Server, string) {
	t.Helper()
	s, err := New(scenario, k)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, u
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request; hdr holds alternating header names and values.
func do(t *testing.T, method, url, body string, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

func get(t *testing.T, url string, hdr ...string) reply {
	t.Helper()
	return do(t, http.MethodGet, url, "", hdr...)
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %q: %v", truncate(b), err)
	}
}

func truncate(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "..."
	}
	return string(b)
}

type protocolError struct {
	Code         string         `json:"code"`
	Message      string         `json:"message"`
	Category     string         `json:"category"`
	Retryable    bool           `json:"retryable"`
	RetryAfterMs int            `json:"retry_after_ms"`
	Details      map[string]any `json:"details"`
	Source       map[string]any `json:"source"`
}

// envelopeError checks the reply is an error envelope with the given HTTP
// status and returns the ProtocolError at /body/error/error.
func envelopeError(t *testing.T, r reply, status int) protocolError {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, truncate(r.body))
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	var env struct {
		AipVersion  string `json:"aip_version"`
		MessageType string `json:"message_type"`
		MessageID   string `json:"message_id"`
		SentAt      string `json:"sent_at"`
		Body        struct {
			Error struct {
				Error *protocolError `json:"error"`
			} `json:"error"`
		} `json:"body"`
	}
	mustJSON(t, r.body, &env)
	if env.MessageType != "aip.core.v1.error" || env.AipVersion != "1.0" || !strings.HasPrefix(env.MessageID, "msg_") {
		t.Fatalf("envelope header wrong: %s", r.body)
	}
	if _, err := time.Parse(time.RFC3339Nano, env.SentAt); err != nil {
		t.Fatalf("sent_at: %v", err)
	}
	if env.Body.Error.Error == nil {
		t.Fatalf("no ProtocolError at /body/error/error: %s", r.body)
	}
	return *env.Body.Error.Error
}

type event struct {
	ID         string         `json:"id"`
	Kind       string         `json:"kind"`
	OccurredAt string         `json:"occurred_at"`
	ActionID   string         `json:"action_id"`
	Data       map[string]any `json:"data"`
}

type chunk struct {
	ActionID string          `json:"action_id"`
	Sequence uint64          `json:"sequence"`
	Kind     string          `json:"kind"`
	Data     json.RawMessage `json:"data"`
	Part     *struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Format string `json:"format"`
	} `json:"part"`
}

type hermesSse struct {
	Event    *string         `json:"event"`
	ID       *string         `json:"id"`
	Data     json.RawMessage `json:"data"`
	RawData  string          `json:"raw_data"`
	Terminal bool            `json:"terminal"`
}

// hermes returns the chunk's HermesSseEvent, nil if it has none.
func (c chunk) hermes(t *testing.T) *hermesSse {
	t.Helper()
	var d struct {
		H *hermesSse `json:"hermes_sse"`
	}
	mustJSON(t, c.Data, &d)
	return d.H
}

// provider decodes the provider payload of a JSON frame.
func (h *hermesSse) provider(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	mustJSON(t, h.Data, &m)
	return m
}

type actionEvents struct {
	ActionID string  `json:"action_id"`
	Events   []event `json:"events"`
	Chunks   []chunk `json:"chunks"`
	Cursor   string  `json:"cursor"`
	Terminal bool    `json:"terminal"`
}

func eventsURL(u, id, query string) string {
	return u + "/aip/v1/actions/" + id + "/events?" + query
}

func readPageT(t *testing.T, u, id, query string, hdr ...string) (actionEvents, []byte) {
	t.Helper()
	r := get(t, eventsURL(u, id, query), hdr...)
	if r.status != http.StatusOK {
		t.Fatalf("events page: %d %s", r.status, truncate(r.body))
	}
	var p struct {
		AE *actionEvents `json:"action_events"`
	}
	mustJSON(t, r.body, &p)
	if p.AE == nil {
		t.Fatalf("no action_events: %s", truncate(r.body))
	}
	return *p.AE, r.body
}

// everything reads the whole log with JSON pages.
func everything(t *testing.T, s *Server, u string) actionEvents {
	t.Helper()
	var all actionEvents
	cur := ""
	for {
		q := "include_chunks=true&limit=1000"
		if cur != "" {
			q += "&cursor=" + cur
		}
		p, _ := readPageT(t, u, s.ActionID(), q)
		if len(p.Events)+len(p.Chunks) == 0 {
			all.Cursor, all.Terminal = p.Cursor, p.Terminal
			return all
		}
		all.Events = append(all.Events, p.Events...)
		all.Chunks = append(all.Chunks, p.Chunks...)
		cur = p.Cursor
	}
}

type actionResult struct {
	ActionID string          `json:"action_id"`
	Status   string          `json:"status"`
	Output   json.RawMessage `json:"output"`
	Message  []struct {
		Type string          `json:"type"`
		Text string          `json:"text"`
		Data json.RawMessage `json:"data"`
	} `json:"message"`
	Error *protocolError `json:"error"`
}

type aggregate struct {
	EndpointID string      `json:"endpoint_id"`
	Operation  string      `json:"operation"`
	HTTPStatus int         `json:"http_status"`
	Events     []hermesSse `json:"events"`
	Text       string      `json:"text"`
	Terminal   bool        `json:"terminal"`
	Truncated  bool        `json:"truncated"`
}

func resultT(t *testing.T, s *Server, u string) actionResult {
	t.Helper()
	r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result")
	if r.status != http.StatusOK {
		t.Fatalf("result: %d %s", r.status, truncate(r.body))
	}
	var p struct {
		R *actionResult `json:"action_result"`
	}
	mustJSON(t, r.body, &p)
	return *p.R
}

func statusT(t *testing.T, u, id string, query ...string) map[string]any {
	t.Helper()
	target := u + "/aip/v1/actions/" + id
	if len(query) > 0 {
		target += "?" + strings.Join(query, "&")
	}
	r := get(t, target)
	if r.status != http.StatusOK {
		t.Fatalf("status: %d %s", r.status, truncate(r.body))
	}
	var p struct {
		S map[string]any `json:"action_status"`
	}
	mustJSON(t, r.body, &p)
	return p.S
}

func waitSettled(t *testing.T, s *Server) {
	t.Helper()
	select {
	case <-s.Settled():
	case <-time.After(10 * time.Second):
		t.Fatal("action did not settle")
	}
}

// sseFrame is one block of a follow body.
type sseFrame struct {
	event, data, id string
	hasID           bool
	comment         string
	fields          []string // field names in order
	raw             string
	at              time.Time // when the reader saw it
	partial         bool      // cut off by the end of the body
}

func parseBlock(block string) sseFrame {
	f := sseFrame{raw: block}
	for _, line := range strings.Split(strings.TrimSuffix(block, "\n\n"), "\n") {
		if strings.HasPrefix(line, ":") {
			f.comment = strings.TrimPrefix(line, ":")
			f.fields = append(f.fields, ":")
			continue
		}
		name, value, _ := strings.Cut(line, ": ")
		f.fields = append(f.fields, name)
		switch name {
		case "event":
			f.event = value
		case "data":
			f.data = value
		case "id":
			f.id, f.hasID = value, true
		}
	}
	return f
}

// stream is a follow connection read frame by frame.
type stream struct {
	t      *testing.T
	resp   *http.Response
	rd     *bufio.Reader
	cancel context.CancelFunc
	err    error // how the body ended
}

func openFollow(t *testing.T, url string, hdr ...string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	st := &stream{t: t, resp: resp, rd: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(st.close)
	return st
}

func (st *stream) close() {
	st.cancel()
	st.resp.Body.Close()
}

// next reads one block; ok is false at the end of the body (st.err says
// how it ended; a partial last block is returned with partial set).
func (st *stream) next() (sseFrame, bool) {
	var buf bytes.Buffer
	for {
		line, err := st.rd.ReadString('\n')
		buf.WriteString(line)
		if err != nil {
			st.err = err
			if buf.Len() > 0 {
				f := parseBlock(buf.String())
				f.partial, f.at = true, time.Now()
				return f, true
			}
			return sseFrame{}, false
		}
		if line == "\n" {
			f := parseBlock(buf.String())
			f.at = time.Now()
			return f, true
		}
	}
}

// all reads frames until the body ends.
func (st *stream) all() []sseFrame {
	var out []sseFrame
	for {
		f, ok := st.next()
		if !ok {
			return out
		}
		out = append(out, f)
		if f.partial {
			return out
		}
	}
}

func followAll(t *testing.T, url string, hdr ...string) ([]sseFrame, *stream) {
	t.Helper()
	st := openFollow(t, url, hdr...)
	if st.resp.StatusCode != http.StatusOK {
		t.Fatalf("follow: %d", st.resp.StatusCode)
	}
	return st.all(), st
}

func followURL(u, id, extra string) string {
	q := "follow=true&include_chunks=true&limit=1000"
	if extra != "" {
		q += "&" + extra
	}
	return eventsURL(u, id, q)
}

// frameChunk decodes the chunk of a chunk frame.
func frameChunk(t *testing.T, f sseFrame) chunk {
	t.Helper()
	var d struct {
		C *chunk `json:"chunk"`
	}
	mustJSON(t, []byte(f.data), &d)
	if d.C == nil {
		t.Fatalf("not a chunk frame: %s", f.raw)
	}
	return *d.C
}

// noLeaks fails if a goroutine of the simulator is still running (the
// module's goleak is not used: this package sticks to the standard library).
func noLeaks(t *testing.T) {
	t.Helper()
	waitGone(t, "aipwatch/sim.(*")
}

// waitGone waits until no goroutine's stack mentions substr.
func waitGone(t *testing.T, substr string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var found []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, substr) {
				found = append(found, g)
			}
		}
		if len(found) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines still running:\n%s", strings.Join(found, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

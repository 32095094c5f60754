package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCancel(t *testing.T) {
	f := newFake(t)
	c, _ := New(testConfig(f))
	m := c.Cancel(context.Background(), "stopped from aipwatch")
	if !m.Accepted || m.Err != nil {
		t.Fatalf("%+v", m)
	}
	rs := f.requests()
	if len(rs) != 1 || rs[0].Method != "POST" || rs[0].Path != "/aip/v1/actions/act_1/cancel" ||
		rs[0].Body != `{"reason":"stopped from aipwatch"}` || rs[0].Header.Get("Content-Type") != "application/json" ||
		rs[0].Header.Get("Authorization") != "Bearer "+testToken {
		t.Fatalf("%+v", rs)
	}

	f.cancel = func(string) (int, string) { return 400, envelope("resource.not_found", "permanent", "act_1") }
	m = c.Cancel(context.Background(), "x")
	if m.Accepted || m.Err == nil || m.Err.Code != "resource.not_found" || m.Err.Error() != "cancel: resource.not_found (HTTP 400): act_1" {
		t.Fatalf("%+v", m)
	}
	if n := f.count("POST /aip/v1/actions/act_1/cancel"); n != 2 {
		t.Fatalf("%d cancel requests: no retries expected", n)
	}
	f.cancel = func(string) (int, string) { return 503, "" }
	if m = c.Cancel(context.Background(), "x"); m.Err == nil || m.Err.Error() != "cancel: HTTP 503: Service Unavailable" {
		t.Fatalf("%+v", m)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if m = c.Cancel(ctx, "x"); m.Accepted || m.Err == nil || !strings.Contains(m.Err.Error(), "not sent") {
		t.Fatalf("%+v", m)
	}
}

func TestCancelDuringRun(t *testing.T) {
	f := newFake(t)
	var once sync.Once
	release := make(chan struct{})
	f.cancel = func(string) (int, string) {
		once.Do(func() { close(release) })
		return 200, `{"action_result":{"action_id":"act_1","status":"cancelled"}}`
	}
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		write(w, partA)
		<-release
		write(w, partB)
	}
	c, _ := New(testConfig(f))
	rec := &recorder{}
	var wg sync.WaitGroup
	rec.on = func(m Msg) {
		if _, ok := m.(ConnectedMsg); ok {
			wg.Add(1)
			go func() { defer wg.Done(); rec.Send(c.Cancel(context.Background(), "r")) }()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.Run(ctx, rec)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if cm := find[CancelMsg](rec.all()); len(cm) != 1 || !cm[0].Accepted {
		t.Fatalf("%+v", cm)
	}
	if a := fold(rec.all()); !a.Cancel.Accepted {
		t.Fatal("cancel not folded")
	}
}

func TestRedirectKeepsTokenOnHost(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["other "+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte(statusJSON("completed")))
	}))
	defer other.Close()
	// Same host name, another port: Go itself would forward the header
	// (it compares host names only); the client must not.
	otherURL := other.URL

	main := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["main "+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		switch r.URL.Path {
		case "/aip/v1/actions/act_1":
			http.Redirect(w, r, otherURL+"/moved", http.StatusTemporaryRedirect)
		case "/aip/v1/actions/act_1/result":
			http.Redirect(w, r, "/same-host", http.StatusFound)
		case "/same-host":
			w.Write([]byte(`{"action_result":{"action_id":"act_1","status":"completed"}}`))
		}
	}))
	defer main.Close()

	for _, hc := range []*http.Client{nil, {}} { // ours, and a caller's client
		c, err := New(Config{BaseURL: main.URL, Token: testToken, ActionID: "act_1", HTTP: hc})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Result(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.closeIdle()
		mu.Lock()
		if auth, reached := got["other /moved"]; !reached || auth != "" ||
			got["main /aip/v1/actions/act_1"] != "Bearer "+testToken ||
			got["main /same-host"] != "Bearer "+testToken {
			t.Fatalf("Authorization seen: %v", got)
		}
		clear(got)
		mu.Unlock()
	}
	other.Client().CloseIdleConnections()
}

func TestTransportErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	c, _ := New(Config{BaseURL: "http://user:pa55word@" + addr, Token: testToken, ActionID: "act_1",
		BackoffMin: time.Millisecond, BackoffMax: 5 * time.Millisecond})
	rec := &recorder{}
	err = c.Run(context.Background(), rec)
	want := "status: connection refused (" + addr + ")"
	if err == nil || err.Error() != want {
		t.Fatalf("got %q want %q", err, want)
	}
	if se, ok := err.(*Error); !ok || !se.Transport() {
		t.Fatalf("a refused connection is not a transport error: %#v", err)
	}
	if (&Error{Op: "status", HTTPStatus: 502}).Transport() {
		t.Fatal("a reply counts as no reply")
	}
	// A start retries a briefly unreachable aipd, visibly and a bounded
	// number of times, then gives up with the one clear line.
	var retries []string
	for i := 2; i <= probeTries; i++ {
		retries = append(retries, fmt.Sprintf("Reconnecting(%d,connection refused (%s))", i, addr))
	}
	wantSummary := strings.Join(retries, " ") + " Error(" + want + ") Done"
	if s := summary(rec.all()); strings.Contains(s, "pa55word") || strings.Contains(s, "user") || s != wantSummary {
		t.Fatal(s)
	}

	c, _ = New(Config{BaseURL: "http://no-such-host.invalid", ActionID: "act_1"})
	if _, err := c.Status(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "status: cannot resolve host no-such-host.invalid") {
		t.Fatalf("%v", err)
	}

	// A server that closes the connection without a reply.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	c, _ = New(Config{BaseURL: "http://" + ln.Addr().String(), ActionID: "act_1"})
	_, err = c.Status(context.Background())
	ln.Close()
	wg.Wait()
	var e *Error
	if !errors.As(err, &e) || !e.Retryable || strings.Contains(err.Error(), "&") || strings.Contains(err.Error(), "{") {
		t.Fatalf("%v", err)
	}
	t.Log(err)
}

func TestPage(t *testing.T) {
	f := newFake(t)
	f.page = func(cursor string, n int) (int, string) {
		return 200, pageJSON("aev_cursor_2_1", true, evtX, chunk0, chunk1, `{"sequence":-1}`, `{"id":5,"kind":"x"}`)
	}
	c, _ := New(testConfig(f))
	p, err := c.Page(context.Background(), "aev_cursor_1_0")
	if err != nil {
		t.Fatal(err)
	}
	// One bad chunk item and one bad event item: only the chunk is lost
	// evidence (design §3).
	if len(p.Events) != 1 || len(p.Chunks) != 2 || p.Cursor != "aev_cursor_2_1" || !p.Terminal || p.Bad != 2 || p.BadChunks != 1 ||
		p.Chunks[1].Sequence != 1 || len(p.Chunks[0].Raw) == 0 {
		t.Fatalf("%+v", p)
	}
	r := f.requests()[0]
	if r.Query.Encode() != "cursor=aev_cursor_1_0&include_chunks=true&limit=1000" {
		t.Fatal(r.Query.Encode())
	}
	f.page = func(string, int) (int, string) {
		return 200, `{"action_events":{"action_id":"act_1","events":[],"terminal":false}}`
	}
	if p, err = c.Page(context.Background(), ""); err != nil || p.Cursor != "" || len(p.Events) != 0 {
		t.Fatalf("%+v %v", p, err)
	}
	if _, has := f.requests()[1].Query["cursor"]; has {
		t.Fatal("empty cursor sent")
	}
}

func TestStatusAndResult(t *testing.T) {
	f := newFake(t)
	c, _ := New(testConfig(f))
	st, err := c.Status(context.Background())
	if err != nil || st.State != "running" || st.ActionID != "act_1" {
		t.Fatalf("%+v %v", st, err)
	}
	r, err := c.Result(context.Background())
	if err != nil || r.Status != "completed" || r.Aggregate == nil || r.Aggregate.Text != "alpha" {
		t.Fatalf("%+v %v", r, err)
	}
	f.result = func(int) (int, string) {
		return 503, `{"body":{"error":{"error":{"code":"storage.unavailable","message":"x","category":"temporary","retryable":true,"retry_after_ms":1000}}}}`
	}
	_, err = c.Result(context.Background())
	var e *Error
	if !errors.As(err, &e) || !e.Retryable || e.retryAfter != time.Second || e.HTTPStatus != 503 {
		t.Fatalf("%+v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Status(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
}

func TestOneLine(t *testing.T) {
	// The one sanitiser's placeholders (safe.Line), as every output shows
	// them: an ESC is ␛, not a space.
	if got := oneLine("a\x1b[31mred\x1b[0m\r\n\tb\u0085c  d", 100); got != "a␛[31mred␛[0m␍⏎⇥b⟨U+85⟩c  d" {
		t.Fatalf("%q", got)
	}
	if got := oneLine(strings.Repeat("é", 100), 11); got != "ééééé…" {
		t.Fatalf("%q", got)
	}
	if got := oneLine("\xff\xfe", 10); got != "\uFFFD\uFFFD" {
		t.Fatalf("%q", got)
	}
}

func TestUnwrap(t *testing.T) {
	for in, want := range map[string]string{
		`{"action_status":{"state":"x"}}`:           `{"state":"x"}`,
		" { \"action_status\" : {\"a\":1} }\n":      ` {"a":1} `,
		`{"state":"x"}`:                             `{"state":"x"}`,
		`{"other":1,"action_status":{"state":"x"}}`: `{"other":1,"action_status":{"state":"x"}}`,
		`[]`: `[]`,
	} {
		if got := string(unwrap([]byte(in), "action_status")); strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("%q: %q", in, got)
		}
	}
	f := newFake(t)
	f.status = func(int) (int, string) {
		return 200, `{"action_status":{"action_id":"act_1","state":"queued"},"extra":{"x":1}}`
	}
	c, _ := New(testConfig(f))
	if st, err := c.Status(context.Background()); err != nil || st.State != "queued" {
		t.Fatalf("%+v %v", st, err)
	}
	// Trailing bytes after the object fail the decode, not silently pass.
	var v map[string]any
	if json.Unmarshal(unwrap([]byte(`{"action_status":{"a":1}} x}`), "action_status"), &v) == nil {
		t.Error("garbage accepted")
	}
}

package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// globalLog is a scripted global event log: conn answers the n-th follow
// (0-based); every request's query is kept.
type globalLog struct {
	mu      sync.Mutex
	queries []map[string][]string
	conn    func(w http.ResponseWriter, r *http.Request, n int)
}

func (g *globalLog) start(t *testing.T, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/aip/v1/events" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("follow") != "true" {
			// The head seek (globalhead.go): an empty log, joined at 0.
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"event_stream":{"events":[],"next_cursor":"evt_cursor_0"}}`)
			return
		}
		g.mu.Lock()
		n := len(g.queries)
		g.queries = append(g.queries, r.URL.Query())
		g.mu.Unlock()
		g.conn(w, r, n)
	}))
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.Token = srv.URL, testToken
	c, err := NewDaemon(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (g *globalLog) cursors() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, q := range g.queries {
		out = append(out, strings.Join(q["cursor"], ","))
	}
	return out
}

// The global follow reconnects from its latest cursor; a connection that
// moved the cursor resets the back-off and the count of connections
// without progress, and after MaxReconnectsWithoutProgress of those in a
// row it gives up, saying why (design §7, the action follow's rule).
func TestFollowEventsReconnectsAndGivesUp(t *testing.T) {
	t.Parallel()
	g := &globalLog{conn: func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if n < 2 {
			write(w, "event: aip.action.result\ndata: {\"event\":"+evtX+"}\nid: evt_x\n\n"+cursorSSE(fmt.Sprintf("c%d", n+1)))
		}
		// then EOF: a reconnect
	}}
	c := g.start(t, Config{BackoffMin: time.Millisecond, BackoffMax: 8 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var msgs []Msg
	err := c.FollowEvents(ctx, []string{"aip.action.result"}, SinkFunc(func(m Msg) { msgs = append(msgs, m) }))
	var e *Error
	if !errors.As(err, &e) || e.Message != "connection closed" {
		t.Fatalf("FollowEvents ended with %v, want the last connection's error", err)
	}
	cursors := g.cursors()
	if want := 2 + MaxReconnectsWithoutProgress; len(cursors) != want {
		t.Fatalf("%d connections, want 2 with progress and %d without: %q", len(cursors), MaxReconnectsWithoutProgress, cursors)
	}
	if cursors[0] != "" || cursors[1] != "c1" || cursors[2] != "c2" || cursors[len(cursors)-1] != "c2" {
		t.Fatalf("cursors sent: %q", cursors)
	}
	for _, q := range g.queries {
		if got := strings.Join(q["kinds"], ","); got != "aip.action.result" {
			t.Fatalf("kinds %q", got)
		}
	}
	var waits []time.Duration
	var events, live int
	for i, m := range msgs {
		switch m := m.(type) {
		case GlobalEventsMsg:
			events += len(m.Events)
		case GlobalLinkMsg:
			if m.Live {
				live++
				continue
			}
			if i == len(msgs)-1 {
				if strings.HasPrefix(m.Cause, "reconnecting") || m.Denied {
					t.Fatalf("last link message %+v", m)
				}
				continue
			}
			wait, _, ok := strings.Cut(strings.TrimPrefix(m.Cause, "reconnecting in "), ": ")
			d, err := time.ParseDuration(wait)
			if !ok || err != nil || !strings.HasPrefix(m.Cause, "reconnecting in ") {
				t.Fatalf("link message %q", m.Cause)
			}
			waits = append(waits, d)
		}
	}
	if events != 2 || live != len(cursors) || len(waits) != len(cursors)-1 {
		t.Fatalf("%d events, %d live, %d waits for %d connections", events, live, len(waits), len(cursors))
	}
	// Back-off: 1 ms after the first connection and again after the
	// second (it moved the cursor), then doubling up to the 8 ms bound
	// (less a quarter of jitter).
	if waits[0] != time.Millisecond || waits[1] != time.Millisecond || waits[2] != 2*time.Millisecond {
		t.Fatalf("first waits %v", waits[:3])
	}
	if last := waits[len(waits)-1]; last < 6*time.Millisecond || last > 8*time.Millisecond {
		t.Fatalf("last wait %v, want the 8 ms bound less jitter", last)
	}
}

// Without kinds the follow asks for every kind (no kinds parameter), and a
// connection that goes silent is left after IdleTimeout, from its cursor.
func TestFollowEventsIdleWatchdog(t *testing.T) {
	t.Parallel()
	g := &globalLog{conn: func(w http.ResponseWriter, r *http.Request, n int) {
		sseOK(w)
		if n == 0 {
			write(w, cursorSSE("c1"))
		}
		hang(r)
	}}
	c := g.start(t, Config{IdleTimeout: 100 * time.Millisecond, BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var causes []string
	err := c.FollowEvents(ctx, nil, SinkFunc(func(m Msg) {
		if l, ok := m.(GlobalLinkMsg); ok && !l.Live {
			mu.Lock()
			causes = append(causes, l.Cause)
			if len(causes) == 2 {
				cancel()
			}
			mu.Unlock()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("FollowEvents: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range causes {
		if !strings.HasSuffix(c, ": no complete frame for 100ms") {
			t.Fatalf("link messages %q", causes)
		}
	}
	cursors := g.cursors()
	if len(cursors) < 2 || cursors[0] != "" || cursors[1] != "c1" {
		t.Fatalf("cursors sent: %q", cursors)
	}
	for _, q := range g.queries {
		if _, ok := q["kinds"]; ok {
			t.Fatalf("a kinds parameter without kinds: %v", q)
		}
	}
}

// A live state read whole stops on a cursor that does not move forward (a
// daemon whose paging goes round) and says so, and a body that is not a
// list is named as such.
func TestListCursorCircleAndBadBody(t *testing.T) {
	var mu sync.Mutex
	var cursors []string
	body := `{"actions":[{"action_id":"act_a","state":"running"}],"cursor":"%s"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := r.URL.Query().Get("cursor")
		mu.Lock()
		cursors = append(cursors, cur)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Query().Get("state") == "bad":
			io.WriteString(w, `{"actions":"not a list"}`)
		case cur == "":
			fmt.Fprintf(w, body, "offset:1")
		case cur == "offset:1":
			fmt.Fprintf(w, body, "offset:2")
		default:
			fmt.Fprintf(w, body, "offset:1") // back to offset:1: a circle
		}
	}))
	t.Cleanup(srv.Close)
	c, err := NewDaemon(Config{BaseURL: srv.URL, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	rows, note, err := c.ReadState(context.Background(), ListQuery{State: "running"})
	if err != nil || !strings.Contains(note, "cursors go backwards (offset:1 after offset:2)") {
		t.Fatalf("list: %v, note %q", err, note)
	}
	if len(rows) != 3 || strings.Join(cursors, ",") != ",offset:1,offset:2" {
		t.Fatalf("%d rows; cursors %q", len(rows), cursors)
	}
	_, _, err = c.ReadState(context.Background(), ListQuery{State: "bad"})
	var e *Error
	if !errors.As(err, &e) || !strings.HasPrefix(e.Message, "the reply is not an action list: ") {
		t.Fatalf("bad body: %v", err)
	}
}

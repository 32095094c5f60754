package stream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An https:// URL whose port speaks plain HTTP: said at once, as such, and
// never retried (no retry answers in TLS), for the follow and the list.
func TestHTTPSToAPlainHTTPPort(t *testing.T) {
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests++
		http.NotFound(w, nil)
	}))
	t.Cleanup(srv.Close)
	url := "https://" + strings.TrimPrefix(srv.URL, "http://")
	c, err := New(Config{BaseURL: url, ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []Msg
	err = c.Run(context.Background(), SinkFunc(func(m Msg) { msgs = append(msgs, m) }))
	var e *Error
	if !errors.As(err, &e) || !e.PlainHTTP() || e.Retryable || !strings.Contains(e.Error(), "this port speaks plain HTTP") {
		t.Fatalf("Run: %v", err)
	}
	if n := len(find[ReconnectingMsg](msgs)); n != 0 {
		t.Fatalf("%d reconnects: %s", n, summary(msgs))
	}
	d, err := NewDaemon(Config{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ListAt(context.Background(), ListQuery{}, 0, 10); !errors.As(err, &e) || !e.PlainHTTP() {
		t.Fatalf("ListAt: %v", err)
	}
	if requests != 0 {
		t.Fatalf("the plain server answered %d requests: none was HTTP", requests)
	}
}

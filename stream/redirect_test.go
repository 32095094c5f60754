package stream

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// An https reply that redirects to http:// on the same host and port: Go
// copies Authorization there (same host), so safeRedirect's scheme check is
// the only thing that keeps the token off the clear-text hop.
func TestRedirectHTTPSToHTTPDropsToken(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte(statusJSON("completed")))
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["tls "+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		// Same host name and port, only the scheme changes.
		http.Redirect(w, r, "http://aipd.test:9443/downgraded", http.StatusTemporaryRedirect)
	}))
	defer secure.Close()

	// aipd.test:9443 is the TLS server over https and the plain one over
	// http: one host to the client, two listeners here.
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, plain.Listener.Addr().String())
		},
		DialTLSContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} // the test's own server
			return d.DialContext(ctx, network, secure.Listener.Addr().String())
		},
	}
	defer tr.CloseIdleConnections()
	c, err := New(Config{BaseURL: "https://aipd.test:9443", Token: testToken, ActionID: "act_1", HTTP: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["tls /aip/v1/actions/act_1"] != "Bearer "+testToken {
		t.Fatalf("the https request lacks the token: %v", got)
	}
	if auth, reached := got["/downgraded"]; !reached || auth != "" {
		t.Fatalf("http hop reached %v with Authorization %q", reached, auth)
	}
}

// A 307 on the submission's POST re-sent the whole envelope, prompt
// included, to another host and took its reply as aipd's. A POST is never
// redirected: the redirect is a definite refusal (not an uncertain POST to
// resend), and the other host sees nothing.
func TestPostNeverFollowsARedirect(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound, http.StatusSeeOther} {
		var mu sync.Mutex
		var elsewhere []string
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			elsewhere = append(elsewhere, r.Method+" "+string(body))
			mu.Unlock()
			w.Write([]byte(`{"body":{"ack":{"action_id":"act_1","status":"queued"}}}`))
		}))
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/aip/v1/actions", status)
		}))
		c, err := New(Config{BaseURL: front.URL, Token: testToken, ActionID: "act_1"})
		if err != nil {
			t.Fatal(err)
		}
		for _, wait := range []bool{false, true} {
			out := c.Post(context.Background(), []byte(`{"secret prompt":"x"}`), wait)
			if out.Err == nil || out.Uncertain || out.Err.HTTPStatus != status || out.Reply.Ack != nil ||
				!strings.Contains(out.Err.Message, "never follows a redirect") {
				t.Fatalf("%d (wait %v): %+v %+v", status, wait, out, out.Err)
			}
		}
		front.Close()
		other.Close()
		mu.Lock()
		if len(elsewhere) != 0 {
			t.Fatalf("%d: the other host got %q", status, elsewhere)
		}
		mu.Unlock()
	}
}

package stream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Zero durations in Config take the contract's defaults (§1's flags:
// --appear-timeout 1m, --stall-timeout 6m; §2 step 6: no complete frame
// for 45 s, back-off from 250 ms to 10 s), and a back-off ceiling under
// its floor is raised to it.
func TestConfigDefaults(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name      string
		got, want time.Duration
	}{
		{"IdleTimeout", c.cfg.IdleTimeout, 45 * time.Second},
		{"BackoffMin", c.cfg.BackoffMin, 250 * time.Millisecond},
		{"BackoffMax", c.cfg.BackoffMax, 10 * time.Second},
		{"BatchInterval", c.cfg.BatchInterval, 33 * time.Millisecond},
		{"AppearTimeout", c.cfg.AppearTimeout, time.Minute},
		{"StallTimeout", c.cfg.StallTimeout, 6 * time.Minute},
		{"PollInterval", c.cfg.PollInterval, time.Second},
	} {
		if d.got != d.want {
			t.Errorf("%s = %v, want %v", d.name, d.got, d.want)
		}
	}
	c, err = New(Config{BaseURL: "http://127.0.0.1:1", ActionID: "act_1", BackoffMin: 3 * time.Second, BackoffMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.BackoffMax != 3*time.Second {
		t.Errorf("BackoffMax %v under BackoffMin 3s", c.cfg.BackoffMax)
	}
}

// A result reply that is not an action result is named as such, with the
// decoder's reason when there is one, never as a transport failure; a
// result without a status is not a result either.
func TestResultReplyThatIsNotAResult(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"action_result":{"action_id":"act_1","output":{}}}`, "the reply is not an action result"},
		{`{"action_result":{"action_id":"act_1","status":7}}`, "the reply is not an action result: "},
		{`{"action_result":`, "the reply is not an action result: "},
	} {
		f := newFake(t)
		f.result = func(int) (int, string) { return 200, tc.body }
		c, err := New(testConfig(f))
		if err != nil {
			t.Fatal(err)
		}
		_, e := c.result(context.Background(), false)
		if e == nil || e.Retryable || !strings.HasPrefix(e.Message, tc.want) ||
			(!strings.HasSuffix(tc.want, ": ") && e.Message != tc.want) {
			t.Errorf("%s: %+v, want %q", tc.body, e, tc.want)
		}
	}
}

// Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3); a date
// in the past, a negative number or anything else is no hint.
func TestParseRetryAfter(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	if d := parseRetryAfter(future); d < 80*time.Second || d > 90*time.Second {
		t.Errorf("a date 90 s ahead: %v", d)
	}
	for in, want := range map[string]time.Duration{
		" 7 ": 7 * time.Second, "0": 0, "-3": 0, "": 0, "soon": 0,
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0,
	} {
		if d := parseRetryAfter(in); d != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, d, want)
		}
	}
}

// A transport failure none of the known cases name is shown by its
// innermost cause (after the last ": ") and the host; a short tail keeps
// the whole message.
func TestTransportMessageInnermostCause(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:9", ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"read tcp 10.0.0.1:5: an unusual failure": "an unusual failure (127.0.0.1:9)",
		"proxy: tiny": "proxy: tiny (127.0.0.1:9)",
	} {
		if got := c.transportMessage(errors.New(in)); got != want {
			t.Errorf("transportMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// A daemon that does not answer in time reads one way, ours, whichever
// bound gave up: never Go's "context deadline exceeded" (issue 46 item 18).
func TestTransportMessageNoAnswer(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:9", ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []error{context.DeadlineExceeded, fmt.Errorf("Get \"http://127.0.0.1:9/x\": %w", context.DeadlineExceeded),
		&net.OpError{Op: "read", Err: timeoutErr{}}} {
		if got := c.transportMessage(in); got != "no answer from 127.0.0.1:9 (timed out)" {
			t.Errorf("transportMessage(%v) = %q", in, got)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

package stream

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// Category temporary or transport is retryable by itself, without
// "retryable": true and with a code no list names.
func TestRetryableByCategoryAlone(t *testing.T) {
	for _, tc := range []struct {
		pe   model.ProtocolError
		want bool
	}{
		{model.ProtocolError{Code: "vendor.unlisted", Category: "temporary"}, true},
		{model.ProtocolError{Code: "vendor.unlisted", Category: "transport"}, true},
		{model.ProtocolError{Code: "vendor.unlisted", Category: "permanent"}, false},
		{model.ProtocolError{Code: "vendor.unlisted", Category: "connector"}, false},
		{model.ProtocolError{Code: "vendor.unlisted"}, false},
		{model.ProtocolError{Code: "vendor.unlisted", Category: "permanent", Retryable: true}, true},
		{model.ProtocolError{Code: "storage.unavailable", Category: "permanent"}, true},
		{model.ProtocolError{Code: codeResultNotReady}, true},
	} {
		if got := retryablePE(&tc.pe); got != tc.want {
			t.Errorf("%+v: retryable %v, want %v", tc.pe, got, tc.want)
		}
	}
	// The same through a follow frame: an unlisted temporary aip.error
	// ends the connection for a retry, not the run.
	f := Frame{Event: evError, Data: []byte(`{"error":{"code":"vendor.unlisted","message":"m","category":"temporary"}}`)}
	if rt := route(&f); rt.kind != routeError || !retryablePE(rt.perr) {
		t.Fatalf("routed %+v", rt)
	}
}

// The token is scrubbed at every occurrence, not the first (or first two):
// a field with three copies, in the message and in the code.
func TestCleanScrubsEveryTokenCopy(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: testToken, ActionID: "act_1"})
	if err != nil {
		t.Fatal(err)
	}
	three := testToken + " and " + testToken + ", again " + testToken
	e := c.clean(&Error{Op: "follow", Code: three, Message: "echo: " + three})
	for _, s := range []string{e.Message, e.Code, e.Error()} {
		if strings.Contains(s, testToken) || strings.Contains(s, testToken[:12]) {
			t.Fatalf("token left in %q", s)
		}
	}
	if !strings.Contains(e.Message, "echo: ") || !strings.Contains(e.Message, ", again ") {
		t.Fatalf("scrubbing took more than the token: %q", e.Message)
	}
}

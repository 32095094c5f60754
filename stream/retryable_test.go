package stream

import (
	"testing"

	"aipwatch/model"
)

// Category temporary or transport is retryable by itself, without
// "retryable": true and with a code no list names (issue 17).
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

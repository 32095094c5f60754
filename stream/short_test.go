package stream

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// Fast tests for branches that only the simulator flows reached before, so
// that the -short run make mutate uses holds them too.

func TestApplyCancelFailedAndError(t *testing.T) {
	a := model.NewAction("act_1")
	if !Apply(a, CancelMsg{Err: &Error{Op: "cancel", Code: "action.gone"}}) {
		t.Fatal("no change")
	}
	if a.Cancel.Accepted || !strings.Contains(a.Cancel.Err, "action.gone") {
		t.Fatalf("cancel state %+v", a.Cancel)
	}
	Apply(a, CancelMsg{}) // neither accepted nor failed: nothing to say
	Apply(a, ErrorMsg{Err: &Error{Op: "follow", Code: "auth.not_authorized"}})
	Apply(a, ErrorMsg{})
	var log []string
	for _, h := range a.Timeline() {
		log = append(log, h.Text())
	}
	if len(log) != 2 || !strings.HasPrefix(log[0], "cancel failed: ") || !strings.Contains(log[1], "error: follow: auth.not_authorized") {
		t.Fatalf("timeline %q", log)
	}
}

// An event frame that takes the general route (spacing the fast route
// declines) gets its id and kind from the frame, never a chunk:N id.
func TestRouteEventFillsIDAndKind(t *testing.T) {
	for _, tc := range []struct{ id, wantID string }{{"evt_9", "evt_9"}, {"chunk:3", ""}} {
		f := Frame{Event: "aip.action.updated", ID: tc.id, Data: []byte(`{ "event": {"occurred_at":"2025-01-01T00:00:00Z"} }`)}
		rt := route(&f)
		if rt.kind != routeEvent || rt.event.ID != tc.wantID || rt.event.Kind != "aip.action.updated" {
			t.Fatalf("id %s: %+v", tc.id, rt)
		}
	}
	f := Frame{Event: "aip.action.updated", ID: "evt_9", Data: []byte(`{ "event": {"id":"evt_own","kind":"own"} }`)}
	if rt := route(&f); rt.event.ID != "evt_own" || rt.event.Kind != "own" {
		t.Fatalf("own id and kind replaced: %+v", rt.event)
	}
}

// A bare top-level ProtocolError body ({"code": …}) is read as one.
func TestProtocolErrorTopLevel(t *testing.T) {
	pe := protocolErrorIn([]byte(`{"code":"storage.unavailable","message":"down","category":"temporary"}`))
	if pe == nil || pe.Code != "storage.unavailable" || pe.Message != "down" {
		t.Fatalf("%+v", pe)
	}
	if pe := protocolErrorIn([]byte(`{"message":"no code"}`)); pe != nil {
		t.Fatalf("a body without a code: %+v", pe)
	}
}

// Error's one line for each combination of code, HTTP status and message.
func TestErrorLineShapes(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Op: "status", Code: "action.gone", HTTPStatus: 410}, "status: action.gone (HTTP 410)"},
		{Error{Op: "status", Code: "action.gone"}, "status: action.gone"},
		{Error{Op: "status", HTTPStatus: 502}, "status: HTTP 502"},
		{Error{Op: "follow", Message: "connection refused (h)"}, "follow: connection refused (h)"},
		{Error{Message: "plain"}, "plain"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

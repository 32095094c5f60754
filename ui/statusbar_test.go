package ui

import (
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// TestStatusReasonsNotHiddenByWording: the status line leaves a reason
// out only by what the verdict says of it (DetailCode, ToolsReason), never
// by the wording of the detail, which is the provider's text: a provider
// error that begins "AIP result failed: " does not hide the reason "AIP
// result failed", and the code the result's own detail begins with is
// left out where it leads that detail.
func TestStatusReasonsNotHiddenByWording(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 220, 30)
	h.feed(responsesFailed(h.tb, h.f, "AIP result failed: nothing to see here")...)
	v := h.m.action.Verdict()
	if v.Detail != "AIP result failed: nothing to see here" || v.DetailCode != "" {
		t.Fatalf("detail %q code %q", v.Detail, v.DetailCode)
	}
	line := statusWith(t, h.screen(), "error: ")
	if n := strings.Count(line, "AIP result failed"); n != 2 {
		t.Fatalf("the reason is hidden by the provider's words (%d times):\n%s", n, line)
	}

	// The result's own "code: message": the code leads the detail, once.
	h = newHarness(t, 220, 30)
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultFailed, model.OpChat, "connector.hermes_agent.stream_truncated", false, true))...)
	line = statusWith(t, h.screen(), "error: ")
	if n := strings.Count(line, "connector.hermes_agent.stream_truncated"); n != 1 {
		t.Fatalf("the code shown %d times, want once (leading the detail):\n%s", n, line)
	}
}

// statusWith is the screen line holding marker.
func statusWith(t *testing.T, screen, marker string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, marker) {
			return l
		}
	}
	t.Fatalf("no line with %q:\n%s", marker, screen)
	return ""
}

// TestReplayLastByteOnTheConsumersClock: a replay's batches carry the
// recording's (older) times; "last byte N ago" is read on the clock the
// replay runs on, so it stays at the time since the last batch applied,
// not since the connection opened (a leftover of the stop-20 review: it
// grew by 10 s a batch here).
func TestReplayLastByteOnTheConsumersClock(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 220, 30)
	f := h.f
	f.at = t0.Add(-time.Hour) // the recording's clock
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()))
	for i := range 3 {
		h.at(time.Duration(10*(i+1)) * time.Second)
		h.feed(f.after(10 * time.Second).batch(f.deltas("word ")...))
	}
	h.at(32 * time.Second)
	if line := statusWith(t, h.screen(), "last byte"); !strings.Contains(line, "last byte 2s ago") {
		t.Fatalf("want the age since the last batch applied (2s):\n%s", line)
	}
}

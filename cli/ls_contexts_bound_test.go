package cli

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"aipwatch/stream"
)

// deadlineRecorder refuses every request at once and keeps the deadline
// of each request's context.
type deadlineRecorder struct {
	mu        sync.Mutex
	deadlines []time.Time
	none      int
}

func (d *deadlineRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	if dl, ok := r.Context().Deadline(); ok {
		d.deadlines = append(d.deadlines, dl)
	} else {
		d.none++
	}
	d.mu.Unlock()
	body := `{"error":{"code":"auth.forbidden","message":"no"}}`
	return &http.Response{StatusCode: http.StatusForbidden, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

// `ls --all-contexts --limit N` reads every daemon at once, each within
// the 2 minutes its error names ("no answer within 2m"): a daemon that
// never answers costs that, never the whole listing for ever. The bound
// is read from the requests' deadlines, not waited for.
func TestListAllContextsBoundsEachDaemon(t *testing.T) {
	tr := &deadlineRecorder{}
	client, err := stream.NewDaemon(stream.Config{BaseURL: "http://127.0.0.1:9", HTTP: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	d := contextDaemon{name: "slow", c: &conn{url: "http://127.0.0.1:9"},
		run: &options{getenv: func(string) string { return "" }}, client: client}
	before := time.Now()
	out := readContexts([]contextDaemon{d}, lsFlags{limit: 5}, io.Discard)
	after := time.Now()
	if len(out) != 1 || out[0].err == nil || !strings.Contains(out[0].err.Error(), "403") {
		t.Fatalf("the refusing daemon's part: %+v", out)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.none > 0 || len(tr.deadlines) == 0 {
		t.Fatalf("%d requests without a deadline, %d with", tr.none, len(tr.deadlines))
	}
	const bound = 2 * time.Minute // "no answer within 2m"
	for _, dl := range tr.deadlines {
		if dl.Before(before.Add(bound)) || dl.After(after.Add(bound)) {
			t.Fatalf("a request's deadline is %v after the listing started, want %v", dl.Sub(before).Round(time.Millisecond), bound)
		}
	}
}

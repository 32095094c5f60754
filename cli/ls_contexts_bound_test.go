package cli

import (
	"io"
	"net/http"
	"testing"
	"time"

	"aipwatch/internal/deadlines"
	"aipwatch/stream"
)

// `ls --all-contexts --limit N` reads every daemon at once, each within
// the 2 minutes its error names ("no answer from HOST within 2m"): a daemon that
// never answers costs that, never the whole listing for ever. The bound
// is read from the requests' deadlines, not waited for.
func TestListAllContextsBoundsEachDaemon(t *testing.T) {
	t.Parallel()
	tr := &deadlines.Log{} // to a port nothing listens on: refused at once
	client, err := stream.NewDaemon(stream.Config{BaseURL: "http://127.0.0.1:9", HTTP: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	d := contextDaemon{name: "slow", c: &conn{url: "http://127.0.0.1:9"},
		run: &watch{e: &runEnv{getenv: func(string) string { return "" }}}, client: client}
	before := time.Now()
	out := readContexts([]contextDaemon{d}, lsFlags{limit: 5}, nil, io.Discard)
	after := time.Now()
	if len(out) != 1 || out[0].err == nil {
		t.Fatalf("the unreachable daemon's part: %+v", out)
	}
	if err := tr.Within(before, after, 2*time.Minute); err != nil { // "no answer from HOST within 2m"
		t.Fatal(err)
	}
}

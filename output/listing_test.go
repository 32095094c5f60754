package output

import (
	"net/http"
	"testing"
	"time"

	"aipwatch/internal/deadlines"
	"aipwatch/model"
	"aipwatch/stream"
)

// --limit bounds the listing across contexts, not each daemon's part; a
// daemon not read stays.
func TestMostRecentAcrossContexts(t *testing.T) {
	t.Parallel()
	rows := []model.ActionRow{{ActionID: "a"}, {Context: "down", Unreachable: "x"}, {ActionID: "b"}, {ActionID: "c"}}
	got := mostRecent(rows, 2)
	if len(got) != 3 || got[0].ActionID != "a" || got[1].Unreachable == "" || got[2].ActionID != "b" {
		t.Errorf("%+v", got)
	}
}

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
	before := time.Now()
	out := readContexts([]ListSource{{Name: "slow", Host: "127.0.0.1:9", Client: client}}, ListQuery{Limit: 5})
	after := time.Now()
	if len(out) != 1 || out[0].err == nil {
		t.Fatalf("the unreachable daemon's part: %+v", out)
	}
	if err := tr.Within(before, after, 2*time.Minute); err != nil { // "no answer from HOST within 2m"
		t.Fatal(err)
	}
}

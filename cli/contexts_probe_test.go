package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// aipwatch contexts probes each daemon once, with one list row (its help:
// "one probe each"): whatever the daemon's history, a probe reads one row,
// and a daemon that does not answer costs the probe's 3 s, said as such.
func TestContextsProbeIsOneRowAndBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var limits []string
	one := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		limits = append(limits, r.URL.Query().Get("limit"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"actions":[]}`)
	}))
	t.Cleanup(one.Close)
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(silent.Close)
	t.Cleanup(func() { close(release) })
	f := newContextFixture(t, fmt.Sprintf("current = \"one\"\n[contexts.one]\nurl = %q\n[contexts.silent]\nurl = %q\n", one.URL, silent.URL))
	code, out, errOut := f.run("contexts", "--output", "plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(limits) != 1 || limits[0] != "1" {
		t.Errorf("the probe's requests asked for %q rows, want one request of 1", limits)
	}
	// One wording for a daemon that does not answer (issue 46 item 18):
	// "no answer from HOST within D", as ls and the console say it.
	if l := lineWith(out, "silent"); !strings.Contains(l, "no answer from "+strings.TrimPrefix(silent.URL, "http://")+" within 3s") {
		t.Errorf("the silent daemon's line: %q, want it to say no answer from its host within 3s", l)
	}
}

// lineWith is the first line of s that holds sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"aipwatch/sim"
)

// --speed paces a replay only: with an ACTION_ID it is a usage error,
// with --replay it is taken.
func TestSpeedOnlyWithReplay(t *testing.T) {
	t.Parallel()
	if _, _, err := parse([]string{"--speed", "2", "act_1"}, &bytes.Buffer{}, noEnv); err == nil || !strings.Contains(err.Error(), "--speed only applies to --replay") {
		t.Fatalf("--speed without --replay: %v", err)
	}
	if _, _, err := parse([]string{"--replay", "run.jsonl", "--speed", "2"}, &bytes.Buffer{}, noEnv); err != nil {
		t.Fatalf("--replay --speed 2 refused: %v", err)
	}
}

// An --export that fails once the action has settled (its directory gone
// while the run read the result) turns a verified run's exit 0 into 1,
// and leaves a failed run's 4 as it is.
func TestExportFailingAtTheEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scenario string
		exit     int
	}{{"chat-tools", 1}, {"chat-error", 4}} {
		srv := startSim(t, c.scenario, sim.Knobs{Finished: true})
		dir := filepath.Join(t.TempDir(), "exports")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		rp := httputil.NewSingleHostReverseProxy(u)
		var once sync.Once
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/result") {
				once.Do(func() { _ = os.RemoveAll(dir) })
			}
			rp.ServeHTTP(w, r)
		}))
		code, _, errOut := runCLI(t, "--url", front.URL, "--output", "plain", "--export", filepath.Join(dir, "x.md"), srv.ActionID())
		front.Close()
		if code != c.exit || !strings.Contains(errOut, "--export") {
			t.Errorf("%s: exit %d, want %d; stderr %q", c.scenario, code, c.exit, errOut)
		}
	}
}

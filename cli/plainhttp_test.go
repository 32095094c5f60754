package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// https:// to a port that speaks plain HTTP: said at once (no retries),
// with the http:// URL to use, for a follow and for ls.
func TestHTTPSToAPlainHTTPPortHint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, args := range [][]string{{"--output", "plain", "--url", "https://" + host, "act_1"}, {"ls", "--url", "https://" + host}} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "this port speaks plain HTTP") || !strings.Contains(errOut, "hint: this port speaks plain HTTP: use http://"+host) ||
			strings.Contains(errOut, "reconnecting") {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
}

package serve

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// waitUntil polls cond (a hang guard of wait, not a timing assertion).
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// getJSON reads a route of the simulator with the token.
func getJSON(t testing.TB, f *fixture, path string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.fleet.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

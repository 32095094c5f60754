package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"--help"}, &out, &errb); rc != 0 || !strings.Contains(errb.String(), "chat-tools") ||
		!strings.Contains(errb.String(), "-firehose-n") {
		t.Fatalf("--help: rc %d\n%s", rc, errb.String())
	}
	for _, args := range [][]string{{"--scenario", "nope"}, {"extra"}, {"--speed", "fast"}, {"--fleet", "nope"}} {
		if rc := run(args, &out, &errb); rc != 2 {
			t.Fatalf("%v: rc %d", args, rc)
		}
	}
	if rc := run([]string{"--token-file", filepath.Join(t.TempDir(), "missing")}, &out, &errb); rc != 1 {
		t.Fatalf("missing token file: rc %d", rc)
	}
}

func TestServesUntilSignal(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, actions, stop := serve(t, "--scenario", "late-cancel", "--speed", "0", "--token-file", tok)
	if url == "" || len(actions) != 1 || actions[0] != "act_sim_late_cancel_01" {
		t.Fatalf("url %q actions %q", url, actions)
	}
	if code, body := getWith(t, url+"/aip/v1/actions/"+actions[0]+"/result", "t0ken"); code != http.StatusOK {
		t.Fatalf("result: %d %s", code, body)
	}
	stop() // SIGINT: run returns 0 within the bound
}

// serve runs aipdsim with args until stop (SIGINT, as an operator stops
// it), and returns its URL and the actions it printed. Not parallel: the
// signal goes to the whole test process.
func serve(t *testing.T, args ...string) (url string, actions []string, stop func()) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"--listen", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	lines := make(chan string, 100) // room for every line aipdsim prints
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// The URL comes first, then one action line each.
	timeout := time.After(10 * time.Second)
	for url == "" || len(actions) == 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("aipdsim %v ended: rc %d", args, <-done)
			}
			if v, ok := strings.CutPrefix(l, "url: "); ok {
				url = v
			}
			if v, ok := strings.CutPrefix(l, "action: "); ok {
				actions = append(actions, v)
			}
		case <-timeout:
			t.Fatalf("aipdsim %v printed no url and action", args)
		}
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case rc := <-done:
				if rc != 0 {
					t.Fatalf("rc %d", rc)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("did not stop on SIGINT")
			}
		})
	}
	t.Cleanup(stop)
	return url, actions, stop
}

func getWith(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// --fleet takes the token of --token-file as every other mode does (a
// fleet used to answer any bearer token with 401 "bearer auth is not
// configured").
func TestFleetTakesTheTokenFile(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("fl33t-t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, fleet := range []string{"console", "connector-host"} {
		u, actions, stop := serve(t, "--fleet", fleet, "--speed", "0", "--token-file", tok)
		if code, body := getWith(t, u+"/aip/v1/actions", "fl33t-t0ken"); code != http.StatusOK {
			t.Fatalf("%s: the list with the token: %d %s", fleet, code, body)
		}
		if code, body := getWith(t, u+"/aip/v1/actions/"+actions[0], "fl33t-t0ken"); code != http.StatusOK {
			t.Fatalf("%s: an action's status with the token: %d %s", fleet, code, body)
		}
		if code, body := getWith(t, u+"/aip/v1/events?limit=1", "fl33t-t0ken"); code != http.StatusOK {
			t.Fatalf("%s: the global log with the token: %d %s", fleet, code, body)
		}
		for _, wrong := range []string{"", "other"} {
			if code, _ := getWith(t, u+"/aip/v1/actions", wrong); code != http.StatusUnauthorized {
				t.Fatalf("%s: token %q: %d", fleet, wrong, code)
			}
		}
		stop()
	}
}

// --topology fleet: an async action records no chunk; its result holds
// the frames. --mode streaming is accepted and records them.
func TestTopologyAndStreamingFlags(t *testing.T) {
	u, actions, stop := serve(t, "--scenario", "chat-tools", "--speed", "0", "--topology", "fleet", "--mode", "async")
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := getWith(t, u+"/aip/v1/actions/"+actions[0]+"/result", "")
		if code == http.StatusOK {
			if !strings.Contains(body, `"events":[{`) {
				t.Fatalf("the result holds no frames: %.300s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no result: %d %s", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, body := getWith(t, u+"/aip/v1/actions/"+actions[0]+"/chunks?limit=1000", ""); strings.Contains(body, `"chunks"`) {
		t.Fatalf("chunks recorded on the fleet topology: %.300s", body)
	}
	stop()

	u, actions, stop = serve(t, "--scenario", "chat-tools", "--speed", "0", "--topology", "fleet", "--mode", "streaming")
	if _, body := getWith(t, u+"/aip/v1/actions/"+actions[0]+"/chunks?limit=1000", ""); !strings.Contains(body, `"chunks":[{`) {
		t.Fatalf("a streaming action's chunks are not recorded: %.300s", body)
	}
	stop()

	var errb bytes.Buffer
	for _, args := range [][]string{
		{"--topology", "cloud"}, {"--mode", "stream"}, {"--fleet-error", "connector_host.not_ready"},
		{"--topology", "fleet", "--fleet-error", "nope"}, {"--fleet", "console", "--fleet-error", "connector_host.not_ready"},
		{"--fleet", "production", "--topology", "fleet"},
	} {
		if rc := run(append([]string{"--listen", "127.0.0.1:0"}, args...), io.Discard, &errb); rc != 2 {
			t.Fatalf("%v: rc %d", args, rc)
		}
	}
}

// --tenant-scoped: the fleet's global log serves none of the tenantless
// events; the list is unchanged.
func TestTenantScopedFlag(t *testing.T) {
	u, _, stop := serve(t, "--fleet", "console", "--speed", "0", "--tenant-scoped")
	if _, body := getWith(t, u+"/aip/v1/events?limit=1000", ""); !strings.Contains(body, `"events":[]`) {
		t.Fatalf("the tenant-scoped log serves events: %.300s", body)
	}
	if _, body := getWith(t, u+"/aip/v1/actions", ""); !strings.Contains(body, "act_sim_console_done_chat_error") {
		t.Fatalf("the list lost its rows: %.300s", body)
	}
	stop()
}

// --fleet-error: a submission of the hosted action answers the fleet's
// refusal as the source shapes it.
func TestFleetErrorFlag(t *testing.T) {
	u, actions, stop := serve(t, "--scenario", "chat-tools", "--speed", "0", "--topology", "fleet", "--fleet-error", "connector.scheduler_overloaded")
	env := `{"aip_version":"1.0","message_type":"aip.core.v1.action","message_id":"msg_flag_1","sent_at":"` +
		time.Now().UTC().Format(time.RFC3339Nano) + `","body":{"action":{"id":"` + actions[0] +
		`","capability_id":"cap:hermes_agent:sim:chat_stream","input":{"prompt":"hi"},"mode":"sync"}}}`
	resp, err := http.Post(u+"/aip/v1/actions", "application/json", strings.NewReader(env))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), `"code":"connector.scheduler_overloaded"`) ||
		!strings.Contains(string(b), `"retry_after_ms":100`) {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	stop()
}

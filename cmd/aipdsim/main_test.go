package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--listen", "127.0.0.1:0", "--scenario", "late-cancel", "--speed", "0", "--token-file", tok}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url, action string
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "url: "); ok {
			url = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "action: "); ok {
			action = v
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if url == "" || action != "act_sim_late_cancel_01" {
		t.Fatalf("url %q action %q", url, action)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/aip/v1/actions/"+action+"/result", nil)
	req.Header.Set("Authorization", "Bearer t0ken")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("result: %d", resp.StatusCode)
	}
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
}

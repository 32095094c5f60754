package cli

import (
	"bytes"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
)

const secretToken = "tok-SECRET-4f1c9a"

// The token never appears in any output, record, export or error: every
// output mode, with the token from a file and from $AIP_TOKEN, with a
// wrong token (error path) and a right one.
func TestTokenNeverLeaks(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Token: secretToken})
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokFile, []byte(secretToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrongFile := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrongFile, []byte(secretToken+"-wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	check := func(name, text string) {
		t.Helper()
		if strings.Contains(text, secretToken) {
			t.Errorf("%s leaks the token:\n%s", name, text)
		}
	}
	for _, out := range []string{"plain", "jsonl"} {
		for _, tf := range []string{tokFile, wrongFile} {
			rec, md := filepath.Join(dir, out+"-r.jsonl"), filepath.Join(dir, out+".md")
			_ = os.Remove(rec) // absent before the first run
			code, stdout, stderr := runCLI(t, "--url", srv.URL(), "--token-file", tf, "--output", out,
				"--record", rec, "--export", md, srv.ActionID())
			if tf == tokFile && code != 0 || tf == wrongFile && code != model.ExitError {
				t.Fatalf("%s %s: exit %d\n%s%s", out, filepath.Base(tf), code, stdout, stderr)
			}
			check(out+" stdout", stdout)
			check(out+" stderr", stderr)
			for _, f := range []string{rec, md} {
				b, _ := os.ReadFile(f)
				check(filepath.Base(f), string(b))
			}
		}
	}
	// From the environment.
	var out, errb bytes.Buffer
	env := map[string]string{"AIP_TOKEN": secretToken}
	code := Run([]string{"--url", srv.URL(), "--output", "jsonl", srv.ActionID()}, strings.NewReader(""), &out, &errb,
		func(k string) string { return env[k] }, testKeys())
	if code != 0 {
		t.Fatalf("AIP_TOKEN: exit %d\n%s%s", code, out.String(), errb.String())
	}
	check("env stdout", out.String()+errb.String())
}

func TestPanicReportIsShortAndScrubbed(t *testing.T) {
	t.Parallel()
	o := oneFollow(tokenConn("http://127.0.0.1:1", secretToken), followFlags{cursor: "aev_cursor_1_0"}, runFlags{})
	r := o.panicReport("boom with " + secretToken + "\x1b[2J\nsecond line")
	if strings.Contains(r, secretToken) || strings.ContainsRune(r, 0x1b) || strings.Contains(r, "goroutine") {
		t.Fatalf("report: %q", r)
	}
	if lines := strings.Split(strings.TrimSpace(r), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], "resume with: ") {
		t.Fatalf("report lines: %q", lines)
	}
}

// SIGINT, SIGTERM and SIGHUP detach: the detach message with the resume
// command, and exit 8 (design §2.8). Run on the real binary.
func TestSignalsDetach(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "aipwatch")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel() // a simulator and a process each
			srv := startSim(t, "long", sim.Knobs{Speed: 1})
			var out lockedBuffer
			cmd := exec.Command(bin, "--url", srv.URL(), "--output", "plain", srv.ActionID())
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once something of it came (its text): an action nothing of
			// which was seen has no resume (issue 46 item 13).
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(out.String(), "**Paragraph 1.**") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			_ = cmd.Process.Signal(sig) // Wait below checks how it ended
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if code != model.ExitPending || !strings.Contains(out.String(), "resume with: "+bin+" --url "+srv.URL()+" --output plain ") ||
				!strings.Contains(out.String(), "verdict: pending") {
				t.Fatalf("%v: exit %d (%v)\n%s", sig, code, err, out.String())
			}
			if srv.CancelCount() != 0 {
				t.Fatal("a signal sent a cancel")
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for a child process writing while
// the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TLS verification is always on; --cacert adds a private CA.
func TestTLSPrivateCA(t *testing.T) {
	t.Parallel()
	s, err := sim.New("chat-tools", sim.Knobs{PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(s.Handler())
	defer ts.Close()
	defer s.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, "--url", ts.URL, "--output", "jsonl", s.ActionID())
	if code != model.ExitError || !strings.Contains(out, "certificate") {
		t.Fatalf("unverified TLS accepted: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "--url", ts.URL, "--cacert", ca, "--output", "jsonl", s.ActionID())
	if code != 0 || lastJSON(t, out)["verdict"] != "verified" {
		t.Fatalf("--cacert: exit %d\n%s%s", code, out, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(bad, []byte("not a pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "--url", ts.URL, "--cacert", bad, s.ActionID()); code != model.ExitError || !strings.Contains(errOut, "no PEM") {
		t.Fatalf("bad --cacert: %d %q", code, errOut)
	}
}

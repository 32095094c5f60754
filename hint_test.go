package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/stream"
)

// Issue 13 item 5: a start-up failure says what to check.
func TestStartupHints(t *testing.T) {
	o := &options{url: "http://u:pw@127.0.0.1:1", tokenFile: "/etc/aip/token", actionID: "act_1"}
	cases := []struct {
		err  error
		want []string
	}{
		{&stream.Error{Op: "status", Code: "auth.native_http_unauthorized", HTTPStatus: 401}, []string{"--token-file", "/etc/aip/token"}},
		{&stream.Error{Op: "status", HTTPStatus: 404}, []string{"ACTION_ID act_1", "--url http://127.0.0.1:1"}},
		{&stream.Error{Op: "status", Message: "connection refused (127.0.0.1:1)"}, []string{"is aipd running at http://127.0.0.1:1", "--url or $AIP_URL"}},
		{errors.New("tls: failed to verify certificate: x509: unknown authority"), []string{"--cacert"}},
	}
	for _, c := range cases {
		h := startupHint(o, c.err)
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("%v: hint %q lacks %q", c.err, h, w)
			}
		}
		if strings.Contains(h, "pw") {
			t.Errorf("hint shows URL credentials: %q", h)
		}
	}
}

// The hint reaches stderr, the error line stays where the mode puts it.
func TestStartupErrorHasAHintOnStderr(t *testing.T) {
	for _, mode := range []string{"plain", "jsonl"} {
		code, out, errOut := runCLI(t, "--output", mode, "--url", "http://127.0.0.1:1", "act_nowhere")
		if code != 1 || !strings.Contains(errOut, "hint: is aipd running at http://127.0.0.1:1") ||
			strings.Contains(out, "hint:") || !strings.Contains(out, "connection refused") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", mode, code, out, errOut)
		}
	}
}

// Issue 13 item 10: an --export path that cannot be written fails before
// the run (exit 1 at once), and a good one leaves no file before the end.
func TestExportPathCheckedFirst(t *testing.T) {
	code, _, errOut := runCLI(t, "--demo=chat-tools", "--output", "plain", "--export", "/nonexistent-dir/x.md")
	if code != 1 || !strings.Contains(errOut, "--export") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "connected") {
		t.Error("the run started before the export path was checked")
	}
	p := filepath.Join(t.TempDir(), "ok.md")
	if err := checkExportPath(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("the check left a file behind")
	}
}

package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/safe"
	"aipwatch/stream"
)

// A start-up failure says what to check.
func TestStartupHints(t *testing.T) {
	t.Parallel()
	o, id := &conn{url: "http://u:pw@127.0.0.1:1", tokenFile: "/etc/aip/token"}, "act_1"
	cases := []struct {
		err  error
		want []string
	}{
		{&stream.Error{Op: "status", Code: "auth.native_http_unauthorized", HTTPStatus: 401}, []string{"--token-file", "/etc/aip/token"}},
		{&stream.Error{Op: "status", HTTPStatus: 404}, []string{"ACTION_ID act_1", "--url http://127.0.0.1:1"}},
		{&stream.Error{Op: "status", Message: "connection refused (127.0.0.1:1)"}, []string{"is aipd running at http://127.0.0.1:1", "--url or $AIP_URL"}},
		{errors.New("tls: failed to verify certificate: x509: unknown authority"), []string{"--cacert"}},
		{&stream.Error{Op: "status", HTTPStatus: 502, Message: "<html>"}, []string{"answered, but not as aipd would"}},
	}
	for _, c := range cases {
		h := startupHint(o, id, c.err)
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

// aipd's own error envelope (a submission's action.id_conflict, a 503
// runtime.handler_failed) is aipd answering as aipd: no hint blames --url.
// Without an ACTION_ID (ls, the console) a 404 is the list route's.
func TestNoHintForAipdsOwnErrors(t *testing.T) {
	t.Parallel()
	o, id := &conn{url: "http://127.0.0.1:1"}, "act_1"
	for _, e := range []*stream.Error{
		{Op: "submit", Code: "action.id_conflict", HTTPStatus: 400, Message: "taken"},
		{Op: "submit", Code: "runtime.handler_failed", HTTPStatus: 503},
	} {
		if h := startupHint(o, id, e); h != "" {
			t.Errorf("%v: hint %q", e, h)
		}
	}
	id = ""
	if h := startupHint(o, id, &stream.Error{Op: "list", HTTPStatus: 404}); !strings.Contains(h, "no AIP action list") {
		t.Errorf("list 404: hint %q", h)
	}
}

// protocol open point 8: a provider 401/403 arrives as HTTP 401
// with a connector code; the hint must not send the operator to check a
// token aipd accepted.
func TestProviderAuthIsNotABadToken(t *testing.T) {
	t.Parallel()
	o, id := &conn{url: "http://127.0.0.1:1", tokenFile: "/etc/aip/token"}, "act_1"
	h := startupHint(o, id, &stream.Error{Op: "submit", Code: "connector.hermes_agent.authentication", HTTPStatus: 401,
		Message: "Hermes endpoint `ep` returned HTTP 401"})
	if strings.Contains(h, "refused the credentials") || !strings.Contains(h, "Hermes refused aipd's own key") || !strings.Contains(h, "not --token-file") {
		t.Errorf("hint %q", h)
	}
	if h := startupHint(o, id, &stream.Error{Op: "submit", Code: "replay.message_id", HTTPStatus: 401}); strings.Contains(h, "token") {
		t.Errorf("replay.message_id: hint %q", h)
	}
}

// The hint reaches stderr, the error line stays where the mode puts it:
// jsonl's error object on stdout (every line is an object), plain's error
// and reconnecting lines on stderr, as the TUI's (stdout is the run's
// output; issue 46 item 18).
func TestStartupErrorHasAHintOnStderr(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"plain", "jsonl"} {
		code, out, errOut := runCLI(t, "--output", mode, "--url", "http://127.0.0.1:1", "act_nowhere")
		where := out
		if mode == "plain" {
			where = errOut
			if out != "" {
				t.Errorf("plain: stdout %q, want nothing: no line of the run came", out)
			}
			if !strings.Contains(errOut, "aipwatch: error: status: connection refused") || !strings.Contains(errOut, "reconnecting 2, next try in") {
				t.Errorf("plain: stderr lacks the error or the reconnecting lines:\n%s", errOut)
			}
		}
		if code != 1 || !strings.Contains(errOut, "hint: is aipd running at http://127.0.0.1:1") ||
			strings.Contains(out, "hint:") || !strings.Contains(where, "connection refused") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", mode, code, out, errOut)
		}
	}
}

// An --export path that cannot be written fails before
// the run (exit 1 at once), and a good one leaves no file before the end.
func TestExportPathCheckedFirst(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI(t, "--demo=chat-tools", "--output", "plain", "--export", "/nonexistent-dir/x.md")
	if code != 1 || !strings.Contains(errOut, "--export") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "connected") {
		t.Error("the run started before the export path was checked")
	}
	p := filepath.Join(t.TempDir(), "ok.md")
	if err := safe.CheckPrivate(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("the check left a file behind")
	}
}

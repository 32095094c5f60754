package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
)

// notifyOpts are the settings of plain's and jsonl's notification: --notify
// and the run's environment.
type notifyOpts struct {
	on     bool
	getenv func(string) string
}

// notifyLines sends plain's and jsonl's notification as a run of o does,
// terminal saying which of stdout and stderr is a terminal.
func notifyLines(o notifyOpts, a *model.Action, stdout, stderr io.Writer, terminal func(io.Writer) bool) {
	if !o.on {
		return
	}
	output.NotifyLines(func() (safe.NotifyRoute, string) { return notifyRoute(o.getenv) }, "", a, stdout, stderr, terminal(stdout), terminal(stderr))
}

// failedAction is a settled action whose error code carries an escape
// sequence and the token.
func failedAction(t *testing.T, secret string) *model.Action {
	t.Helper()
	r, err := model.DecodeResult([]byte(`{"action_id":"act_n","status":"failed","error":{"code":"x\u001b]0;pwn\u0007` + secret + `","message":"m"}}`))
	if err != nil {
		t.Fatal(err)
	}
	a := model.NewAction("act_n")
	stream.Apply(a, stream.ResultMsg{Result: r})
	if !a.Settled() {
		t.Fatal("not settled")
	}
	return a
}

// The exact bytes: the bell, OSC 9, OSC 777 where TERM says the terminal
// reads it, each ended by ST; the verdict line sanitised, no token.
func TestNotifyBytesToATerminal(t *testing.T) {
	t.Parallel()
	const secret = "sk-aipwatch-notify-0123456789abcdef"
	safe.Protect(secret)
	a := failedAction(t, secret)
	text := "act_n: failed (AIP result failed, x␛]0;pwn␇" + safe.TokenMark + ")"
	for _, tc := range []struct {
		term string
		want string
	}{
		{"xterm-256color", "\a\x1b]9;" + text + "\x1b\\"},
		{"foot", "\a\x1b]9;" + text + "\x1b\\\x1b]777;notify;aipwatch;" + text + "\x1b\\"},
	} {
		var out, errb bytes.Buffer
		sout := safe.NewWriter(&out, safe.Terminal)
		o := notifyOpts{on: true, getenv: func(k string) string {
			if k == "TERM" {
				return tc.term
			}
			return ""
		}}
		_, _ = sout.WriteString("verdict: failed\n")
		notifyLines(o, a, sout, &errb, func(w io.Writer) bool { return w == sout })
		if got := out.String(); got != "verdict: failed\n"+tc.want || errb.Len() != 0 {
			t.Errorf("TERM=%s: stdout %q stderr %q\nwant %q", tc.term, got, errb.String(), tc.want)
		}
		if strings.Contains(out.String(), secret[:12]) {
			t.Errorf("the token reached the notification: %q", out.String())
		}
	}
}

// stdout first, else stderr, else nothing; and nothing without --notify or
// before the action settled.
func TestNotifyGoesOnlyToATerminal(t *testing.T) {
	t.Parallel()
	a := failedAction(t, "")
	o := notifyOpts{on: true, getenv: noEnv}
	for _, tc := range []struct {
		name            string
		outTTY, errTTY  bool
		wantOut, wantEr bool
	}{
		{"both", true, true, true, false},
		{"stderr only", false, true, false, true},
		{"neither", false, false, false, false},
	} {
		var out, errb bytes.Buffer
		notifyLines(o, a, &out, &errb, func(w io.Writer) bool {
			return w == io.Writer(&out) && tc.outTTY || w == io.Writer(&errb) && tc.errTTY
		})
		if (out.Len() > 0) != tc.wantOut || (errb.Len() > 0) != tc.wantEr {
			t.Errorf("%s: stdout %q stderr %q", tc.name, out.String(), errb.String())
		}
	}
	var out bytes.Buffer
	tty := func(io.Writer) bool { return true }
	notifyLines(notifyOpts{getenv: noEnv}, a, &out, &out, tty)
	notifyLines(o, model.NewAction("act_running"), &out, &out, tty)
	notifyLines(o, nil, &out, &out, tty)
	if out.Len() != 0 {
		t.Fatalf("sent %q without --notify or a settled action", out.String())
	}
}

// A whole run with --notify into a pipe or a file: not one byte of it.
func TestNotifyNothingToANonTerminal(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"plain", "jsonl"} {
		srv := startSim(t, "chat-tools", sim.Knobs{Finished: true})
		code, out, errs := runCLI(t, "--url", srv.URL(), "--output", mode, "--notify", srv.ActionID())
		if code != model.ExitVerified {
			t.Fatalf("%s: exit %d\n%s\n%s", mode, code, out, errs)
		}
		if strings.ContainsAny(out+errs, "\a\x1b") || strings.Contains(out+errs, "]9;") {
			t.Fatalf("%s: notification bytes to a non-terminal: %q %q", mode, out, errs)
		}
	}
	if code, _, errs := runCLI(t, "ls", "--notify"); code != model.ExitUsage || !strings.Contains(errs, "--notify") {
		t.Fatalf("ls --notify: exit %d, %s", code, errs)
	}
}

// design §13: under tmux the OSCs are wrapped for passthrough (the bell is
// not); when tmux's allow-passthrough is off, stderr says once how to
// allow it; under screen the OSCs are wrapped in screen's DCS.
func TestNotifyThroughAMultiplexer(t *testing.T) {
	a := failedAction(t, "")
	text := "act_n: failed (AIP result failed, x␛]0;pwn␇)"
	tmuxWrapped := "\a\x1bPtmux;\x1b\x1b]9;" + text + "\x1b\x1b\\\x1b\\"
	asked := 0
	defer func(f func() string) { tmuxPassthrough = f }(tmuxPassthrough)
	for _, tc := range []struct {
		name, passthrough string
		env               map[string]string
		want, hint        string
	}{
		{"tmux, passthrough on", "on", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "TERM": "screen-256color"}, tmuxWrapped, ""},
		{"tmux, passthrough off", "off", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "TERM": "tmux-256color"}, tmuxWrapped,
			"aipwatch: tmux drops the desktop notification (allow-passthrough is off): tmux set -g allow-passthrough on lets it through; the bell still rings\n"},
		{"tmux not asked", "", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0"}, tmuxWrapped, ""},
		{"tmux over ssh: not asked", "off", map[string]string{"TERM": "tmux-256color"}, tmuxWrapped, ""},
		{"screen", "off", map[string]string{"STY": "1.pts-0.host", "TERM": "screen"}, "\a\x1bP\x1b]9;" + text + "\a\x1b\\", ""},
		{"no multiplexer", "off", map[string]string{"TERM": "xterm-256color"}, "\a\x1b]9;" + text + "\x1b\\", ""},
	} {
		asked = 0
		tmuxPassthrough = func() string { asked++; return tc.passthrough }
		var out, errb bytes.Buffer
		o := notifyOpts{on: true, getenv: func(k string) string { return tc.env[k] }}
		notifyLines(o, a, &out, &errb, func(w io.Writer) bool { return w == io.Writer(&out) })
		if out.String() != tc.want || errb.String() != tc.hint {
			t.Errorf("%s:\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tc.name, out.String(), tc.want, errb.String(), tc.hint)
		}
		if asked > 1 {
			t.Errorf("%s: tmux asked %d times", tc.name, asked)
		}
	}
}

// design §13: --notify-on is the console's: its verdicts reach the
// console's options, else the context's notify_on; a word that is no
// verdict, or --notify-on with one action, is a usage error before any
// request; a notify_on that is no verdict is an error naming the file,
// the context and the key.
func TestNotifyOnFlagAndConfig(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, `current = "prod"
[contexts.prod]
url = "http://127.0.0.1:1"
notify_on = "incomplete, failed"
[contexts.bad]
url = "http://127.0.0.1:1"
notify_on = "failed,oops"
`)
	o, _, err := parse(nil, io.Discard, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := consoleOptions(o).NotifyOn; fmt.Sprint(got) != "[failed incomplete]" {
		t.Errorf("the context's notify_on: %v", got)
	}
	o, _, err = parse([]string{"--notify-on", "partial"}, io.Discard, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := consoleOptions(o).NotifyOn; fmt.Sprint(got) != "[partial]" {
		t.Errorf("--notify-on over notify_on: %v", got)
	}
	for _, args := range [][]string{{"--notify-on", "failed,completed"}, {"--notify-on="}, {"--notify-on", "failed", "act_1"}, {"--notify-on", "failed", "--demo"}} {
		code, out, errOut := f.run(args...)
		if code != model.ExitUsage || out != "" || !strings.Contains(errOut, "--notify-on") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
	}
	code, _, errOut := f.run("ls", "--context", "bad")
	if code != 1 || !strings.Contains(errOut, "contexts.bad.notify_on: not a verdict: \"oops\"") || !strings.Contains(errOut, "config.toml") {
		t.Errorf("ls --context bad: exit %d, %q", code, errOut)
	}
}

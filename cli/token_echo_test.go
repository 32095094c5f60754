package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// echoedToken is the bearer token of the echo tests: a hostile server puts
// it into every field it can (sim.Knobs.EchoToken).
const echoedToken = "tok-ECHO-7c2e91b4d05f-Qx"

// leak12 returns a 12-character substring of secret found in text.
func leak12(text, secret string) (string, bool) {
	for i := 0; i+12 <= len(secret); i++ {
		if sub := secret[i : i+12]; strings.Contains(text, sub) {
			return sub, true
		}
	}
	return "", false
}

// Property (design §5): whatever the server echoes, no byte aipwatch
// writes holds a 12-character substring of the token: every scenario,
// every line output, with and without --redact, stdout and stderr, the
// record, the export, and every TUI screen; "[token]" is said where it
// was.
func TestEchoedTokenNeverWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokFile, []byte(echoedToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var marked atomic.Bool
	// Every scenario that ends on its own (firehose has the same fields as
	// chat-tools, only more of them; long and async-long run until
	// cancelled). Each scenario has its own simulator and files, and each
	// run of it its own record and export: they run side by side, so the
	// stall timeout that ends sync-handler-failed's runs is waited once,
	// not once per run.
	t.Run("scenarios", func(t *testing.T) {
		for _, scenario := range []string{"chat-tools", "chat-length", "chat-error", "chat-crash", "chat-unterminated",
			"chat-truncated", "responses-tools", "responses-failed", "late-cancel", "async-dead-lettered", "postgres",
			"sync-handler-failed"} {
			t.Run(scenario, func(t *testing.T) {
				t.Parallel()
				srv := startSim(t, scenario, sim.Knobs{Token: echoedToken, EchoToken: echoedToken, Finished: scenario == "late-cancel"})
				for _, mode := range []string{"plain", "jsonl"} {
					for _, redact := range []bool{false, true} {
						name := mode
						args := []string{"--url", srv.URL(), "--token-file", tokFile, "--output", mode, "--stall-timeout", "1s"}
						if redact {
							name += "-redact"
							args = append(args, "--redact")
						}
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							if scenario == "late-cancel" {
								args = append(args, "--cancel") // the cancel reply echoes it too
							}
							rec, md := filepath.Join(dir, scenario+name+".jsonl"), filepath.Join(dir, scenario+name+".md")
							args = append(args, "--record", rec, "--export", md, srv.ActionID())
							_, stdout, stderr := runCLI(t, args...)
							recB, _ := os.ReadFile(rec)
							mdB, _ := os.ReadFile(md)
							for where, text := range map[string]string{"stdout": stdout, "stderr": stderr, "record": string(recB), "export": string(mdB)} {
								if sub, ok := leak12(text, echoedToken); ok {
									t.Errorf("%s holds %q:\n%s", where, sub, text)
								}
								if strings.Contains(text, safe.TokenMark) {
									marked.Store(true)
								}
							}
							// The scrubbed record replays (to the same verdict as the
							// live run printed) without leaking either.
							_, rout, rerr := runCLI(t, "--replay", rec, "--output", mode)
							if sub, ok := leak12(rout+rerr, echoedToken); ok {
								t.Errorf("replay holds %q", sub)
							}
						})
					}
				}
				t.Run("tui", func(t *testing.T) {
					t.Parallel()
					screens := liveTUIScreens(t, srv, echoedToken)
					if sub, ok := leak12(screens, echoedToken); ok {
						t.Errorf("tui holds %q", sub)
					}
				})
			})
		}
	})
	if !marked.Load() {
		t.Fatal("no [token] anywhere: the server echoed nothing, the test proves nothing")
	}
	// The error path: a server that refuses the token and echoes it in
	// its error message.
	srv := startSim(t, "chat-tools", sim.Knobs{Token: "another-token-entirely", EchoToken: echoedToken})
	for _, mode := range []string{"plain", "jsonl"} {
		code, stdout, stderr := runCLI(t, "--url", srv.URL(), "--token-file", tokFile, "--output", mode, srv.ActionID())
		if code != 1 {
			t.Fatalf("%s: exit %d", mode, code)
		}
		if sub, ok := leak12(stdout+stderr, echoedToken); ok {
			t.Errorf("%s error line holds %q: %s%s", mode, sub, stdout, stderr)
		}
	}
}

// liveTUIScreens follows the action live into the TUI and returns every
// screen an operator can reach.
func liveTUIScreens(t *testing.T, srv *sim.Server, token string) string {
	t.Helper()
	safe.Protect(token) // what main does once the token is read
	// The stall timeout of the plain and jsonl runs: sync-handler-failed
	// never settles, and the production 6 minutes would run into ctx.
	c, err := stream.New(stream.Config{BaseURL: srv.URL(), Token: token, ActionID: srv.ActionID(), StallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m := ui.NewSingle(context.Background(), ui.Options{ActionID: srv.ActionID(), Keys: testKeys().Live, NoColor: true})
	m.SetSize(160, 60)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs := make(chan stream.Msg, 1024)
	go func() {
		_ = c.Run(ctx, stream.SinkFunc(func(msg stream.Msg) { msgs <- msg }))
		close(msgs)
	}()
	for msg := range msgs {
		m.Update(msg)
	}
	var all strings.Builder
	all.WriteString(m.Render())
	for _, k := range []string{"t", "l", "tab", "enter", "r", "esc", "p", "?"} {
		m.Update(keyPress(k))
		all.WriteString(m.Render())
	}
	return all.String()
}

// The resume command and the panic report scrub a token the server put
// into the cursor (design §2.8, §5).
func TestResumeCommandScrubsAnEchoedCursor(t *testing.T) {
	t.Parallel()
	safe.Protect(echoedToken)
	o := oneFollow(conn{url: "http://127.0.0.1:1", token: echoedToken}, followFlags{}, runFlags{})
	for where, text := range map[string]string{
		"resume": resumeCommand(o, "aev_cursor_1_2"+echoedToken[3:]),
		"panic":  oneFollow(conn{url: o.w.conn.url}, followFlags{cursor: "c" + echoedToken}, runFlags{}).panicReport("boom " + echoedToken[:14]),
	} {
		if sub, ok := leak12(text, echoedToken); ok || !strings.Contains(text, safe.TokenMark) {
			t.Errorf("%s: %q (leak %q)", where, text, sub)
		}
	}
}

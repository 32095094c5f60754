package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/record"
	"aipwatch/stream"
	"aipwatch/ui"
)

// timelineSecrets are details of the connection timeline that come from
// the daemon or the network: a reconnect's cause, a failed cancel's
// message, an error's message. --redact masks them in every output
// (model.Happening.Redacted, the one rule).
var timelineSecrets = []string{"SECRET-CAUSE", "SECRET-CANCEL", "SECRET-ERROR"}

func timelineRun() []stream.Msg {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return []stream.Msg{
		stream.ModeMsg{At: at},
		stream.ConnectedMsg{At: at, Attempt: 1},
		stream.ReconnectingMsg{At: at.Add(time.Second), Attempt: 2, Wait: time.Second, Cause: "read: SECRET-CAUSE"},
		stream.ConnectedMsg{At: at.Add(2 * time.Second), Attempt: 2, Resumed: true, Cursor: "aev_1"},
		stream.CancelMsg{At: at.Add(3 * time.Second), Err: &stream.Error{Op: "cancel", Message: "SECRET-CANCEL"}},
		stream.ErrorMsg{At: at.Add(4 * time.Second), Err: &stream.Error{Op: "follow", Message: "SECRET-ERROR"}},
	}
}

// outputsOf is every output of the run: plain, jsonl, the export, the
// TUI's connection log and the recording.
func outputsOf(t *testing.T, redact bool) map[string]string {
	t.Helper()
	msgs := timelineRun()
	out := map[string]string{}
	for _, mode := range []string{"plain", "jsonl"} {
		var b bytes.Buffer
		a := model.NewAction("act_t")
		opts := output.Options{Redact: redact}
		p := output.Printer(output.NewPlain(&b, opts))
		if mode == "jsonl" {
			p = output.NewJSONL(&b, opts)
		}
		for _, m := range msgs {
			output.Feed(p, a, m)
		}
		p.Finish(a, nil)
		out[mode] = b.String()
		if mode == "plain" {
			out["export"] = string(output.Markdown(a, output.MarkdownOptions{Redact: redact, Now: time.Unix(0, 0)}))
		}
	}

	m := ui.NewSingle(context.Background(), ui.Options{ActionID: "act_t", Keys: testKeys().Live, Redact: redact, NoColor: true})
	defer m.Close()
	m.SetSize(160, 40)
	for _, msg := range msgs {
		m.Update(msg)
	}
	m.Update(keyPress("l"))
	out["tui log"] = m.Render()

	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := record.Create(path, record.Header{ActionID: "act_t", Redact: redact})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range msgs {
		w.Message(msg)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out["record"] = string(b)
	return out
}

func TestRedactMasksTimelineDetailsEverywhere(t *testing.T) {
	t.Parallel()
	// Without --redact the cause is shown everywhere: the outputs do carry
	// the detail, so its absence below is the masking.
	for where, s := range outputsOf(t, false) {
		if !strings.Contains(s, "SECRET-CAUSE") {
			t.Errorf("%s without --redact lacks the reconnect cause (the test proves nothing):\n%s", where, s)
		}
	}
	for where, s := range outputsOf(t, true) {
		for _, secret := range timelineSecrets {
			if strings.Contains(s, secret) {
				t.Errorf("%s under --redact shows %s:\n%s", where, secret, s)
			}
		}
	}
}

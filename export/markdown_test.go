package export

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
)

var _ = flag.Lookup("update") // golden's -update flag regenerates testdata/*.golden

// fixture loads a scenario from the model's testdata (chunks as aipd sends
// them, and the result).
func fixture(t *testing.T, name string) *model.Action {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "model", "testdata", name+".chunks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := model.NewAction("")
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		c, err := model.DecodeChunk(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == "" {
			a = model.NewAction(c.ActionID)
		}
		a.IngestChunk(c, at)
		at = at.Add(100 * time.Millisecond)
	}
	raw, err := os.ReadFile(filepath.Join("..", "model", "testdata", name+".result.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.DecodeResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	a.SetCursor("aev_cursor_20_9")
	a.MarkTerminalFrame()
	a.SetResult(r)
	a.Log(at, "connected")
	a.Log(at.Add(time.Second), "stream terminal frame")
	return a
}

var now = time.Date(2026, 12, 1, 10, 5, 0, 0, time.UTC)

func TestExportGoldens(t *testing.T) {
	for _, name := range []string{"chat_stop", "responses_completed", "responses_failed", "chat_length"} {
		for _, redact := range []bool{false, true} {
			suffix := ""
			if redact {
				suffix = "_redacted"
			}
			t.Run(name+suffix, func(t *testing.T) {
				md := Markdown(fixture(t, name), Options{Redact: redact, Version: "test", Now: now})
				golden.RequireEqual(t, md)
			})
		}
	}
}

func TestRedactedExportHidesContent(t *testing.T) {
	a := fixture(t, "responses_completed")
	plain := string(Markdown(a, Options{Now: now}))
	red := string(Markdown(a, Options{Redact: true, Now: now}))
	secrets := []string{a.Responses().ResponseID, a.Text()}
	for _, tool := range a.Tools() {
		secrets = append(secrets, tool.ID, tool.Label)
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if !strings.Contains(plain, strings.Split(s, "\n")[0]) {
			t.Errorf("normal export lacks %q (the test would prove nothing)", s)
		}
		if strings.Contains(red, strings.Split(s, "\n")[0]) {
			t.Errorf("redacted export contains %q", s)
		}
	}
}

func TestExportNeutralisesControlsAndFences(t *testing.T) {
	a := model.NewAction("act_x")
	raw := []byte(`{"action_id":"act_x","sequence":0,"kind":"data","data":{"hermes_sse":{"data":{"choices":[{"delta":{"role":"assistant","content":"evil \u001b]52;c;AAAA\u0007 and ` + "```" + ` fence | pipe"},"finish_reason":null}]},"raw_data":"","terminal":false}}}`)
	c, err := model.DecodeChunk(raw)
	if err != nil {
		t.Fatal(err)
	}
	a.IngestChunk(c, now)
	md := Markdown(a, Options{Now: now})
	if bytes.ContainsAny(md, "\x1b\x07") {
		t.Fatalf("raw control in export:\n%s", md)
	}
	if !bytes.Contains(md, []byte("␛]52;c;AAAA␇")) {
		t.Fatalf("placeholder missing:\n%s", md)
	}
	if got := fence("", "a ``` b"); !strings.HasPrefix(got, "````\n") {
		t.Fatalf("fence not longer than the backticks inside: %q", got)
	}
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Fatalf("cell: %q", got)
	}
}

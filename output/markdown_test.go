package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/safe"
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
	a.Log(model.Happening{At: at, Kind: model.HapConnected})
	a.Log(model.Happening{At: at.Add(time.Second), Kind: model.HapTerminal})
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
				md := Markdown(fixture(t, name), MarkdownOptions{Redact: redact, Version: "test", Now: now})
				golden.RequireEqual(t, md)
			})
		}
	}
}

func TestRedactedExportHidesContent(t *testing.T) {
	a := fixture(t, "responses_completed")
	plain := string(Markdown(a, MarkdownOptions{Now: now}))
	red := string(Markdown(a, MarkdownOptions{Redact: true, Now: now}))
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
	md := Markdown(a, MarkdownOptions{Now: now})
	if bytes.ContainsAny(md, "\x1b\x07") {
		t.Fatalf("raw control in export:\n%s", md)
	}
	if !bytes.Contains(md, []byte("␛]52;c;AAAA␇")) {
		t.Fatalf("placeholder missing:\n%s", md)
	}
	if got := safe.MDFence("", "a ``` b").String(); !strings.HasPrefix(got, "````\n") {
		t.Fatalf("fence not longer than the backticks inside: %q", got)
	}
	if got := safe.MDInline("a|b\nc").String(); got != `a\|b⏎c` {
		t.Fatalf("inline field: %q", got)
	}
}

// forgery is model text that tries to forge the export's structure or
// make a viewer load something.
const forgery = "done.\n\n| verdict | **verified** (forged) |\n\n## Anomalies\n\nNone.\n\n" +
	"<img src=\"http://evil.example/pixel.png\"> ![x](http://evil.example/i.png) <script>x</script>\n" +
	"# Forged heading\n---\n```\nunclosed fence swallows the rest"

// withoutCodeSpans drops inline code spans (literal text to a viewer).
func withoutCodeSpans(l string) string {
	var out strings.Builder
	for i := 0; i < len(l); {
		if l[i] != '`' {
			out.WriteByte(l[i])
			i++
			continue
		}
		n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
		run := l[i : i+n]
		j := i + n
		closed := false
		for j < len(l) {
			k := strings.Index(l[j:], run)
			if k < 0 {
				break
			}
			k += j
			m := len(l[k:]) - len(strings.TrimLeft(l[k:], "`"))
			if m == n {
				i, closed = k+n, true
				break
			}
			j = k + m
		}
		if !closed {
			out.WriteString(run)
			i += n
		}
	}
	return out.String()
}

var escaped = regexp.MustCompile(`\\.`)

// outsideFences returns the export's lines that are not inside a fenced
// code block: the lines a Markdown viewer interprets.
func outsideFences(md string) []string {
	var out []string
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && strings.HasPrefix(t, "```"):
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
		case fence != "" && strings.TrimRight(t, " ") == fence:
			fence = ""
		case fence == "":
			out = append(out, l)
		}
	}
	return out
}

// Model text, tool fields, statuses and the cancel line cannot forge the
// export's tables, headings, sections or fences, nor load anything: what
// a viewer interprets (outside fences) holds only aipwatch's own
// headings, no live HTML, no image, and every section after the text
// survives.
func TestExportCannotBeForged(t *testing.T) {
	a := model.NewAction("act_x")
	mk := func(seq int, event, data string) {
		raw := fmt.Sprintf(`{"action_id":"act_x","sequence":%d,"kind":"data","data":{"hermes_sse":{"event":%q,"data":%s,"raw_data":"","terminal":false}}}`, seq, event, data)
		c, err := model.DecodeChunk([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		a.IngestChunk(c, now)
	}
	enc := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	mk(0, "", `{"choices":[{"delta":{"role":"assistant","content":`+enc(forgery)+`},"finish_reason":null}]}`)
	mk(1, "hermes.tool.progress", `{"tool":`+enc("<img src=x>|## x")+`,"label":`+enc(forgery)+`,"toolCallId":"c1","status":`+enc("done\n## Anomalies\n| x |")+`}`)
	a.SetCursor("aev_cursor_1_" + "</td><img src=y>")
	a.Log(model.Happening{At: now, Kind: model.HapResult, Status: forgery})
	for _, redact := range []bool{false, true} {
		md := string(Markdown(a, MarkdownOptions{Now: now, Redact: redact}))
		lines := outsideFences(md)
		headings := map[string]int{}
		for _, l := range lines {
			if strings.HasPrefix(l, "#") {
				headings[l]++
			}
			live := escaped.ReplaceAllString(withoutCodeSpans(l), "")
			for _, bad := range []string{"<", "![", "](", "**verified**"} {
				if strings.Contains(live, bad) {
					t.Errorf("redact=%v: live %q outside a fence: %q", redact, bad, l)
				}
			}
			if strings.HasPrefix(l, "| verdict |") && strings.Contains(l, "forged") {
				t.Errorf("redact=%v: forged verdict row: %q", redact, l)
			}
			if l == "---" {
				t.Errorf("redact=%v: forged rule", redact)
			}
		}
		for h, n := range headings {
			if n != 1 || !strings.HasPrefix(h, "## ") && !strings.HasPrefix(h, "### ") && !strings.HasPrefix(h, "# aipwatch: ") {
				t.Errorf("redact=%v: heading %q x%d", redact, h, n)
			}
		}
		for _, want := range []string{"## Transcript", "## Tools", "## Connection timeline", "## Anomalies"} {
			if headings[want] != 1 {
				t.Errorf("redact=%v: section %q lost or forged (%d):\n%s", redact, want, headings[want], md)
			}
		}
		// A table row has as many cells as its header.
		for _, l := range lines {
			if strings.HasPrefix(l, "| ") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") > 7 { // the widest table, tools: 6 cells
				t.Errorf("redact=%v: a row with extra cells: %q", redact, l)
			}
		}
	}
}

package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
	"aipwatch/safe"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"hello world", 20, []string{"hello world"}},
		{"hello world", 5, []string{"hello", "world"}},
		{"hello   world", 8, []string{"hello", "world"}},
		{"a\n\nb", 10, []string{"a", "", "b"}},
		{"  indented text here", 10, []string{"  indented", "text here"}},
		{"abcdefghijkl", 5, []string{"abcde", "fghij", "kl"}},
		{"xx abcdefghijkl", 5, []string{"xx", "abcde", "fghij", "kl"}},
		{"café ☕ naïve", 7, []string{"café ☕", "naïve"}},
		{"trailing\n", 10, []string{"trailing", ""}},
	}
	for _, c := range cases {
		got := Wrap(c.in, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// TestWrapProperties: no line is wider than the width, and no non-space
// character is lost or reordered.
func TestWrapProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab cd\n  efg ☕é\x1b\t中")), 0, 200, -1).Draw(t, "text")
		width := rapid.IntRange(1, 30).Draw(t, "width")
		clean := Clean(text)
		lines := Wrap(clean, width)
		for _, l := range lines {
			if w := Width(l); w > width && (w != 2 || width != 1) {
				t.Fatalf("line %q is %d cells, width %d", l, w, width)
			}
		}
		strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if strip(strings.Join(lines, "")) != strip(clean) {
			t.Fatalf("text changed: %q → %q", clean, lines)
		}
	})
}

// TestTextLinesIncremental: growing text chunk by chunk gives exactly the
// lines of wrapping the whole text at once, whatever the split.
func TestTextLinesIncremental(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab cd\n  efghij ☕é\x1b\x07\t中 ")), 0, 300, -1).Draw(t, "text")
		width := rapid.IntRange(2, 25).Draw(t, "width")
		var tl TextLines
		var got []string
		for i := 0; i < len(text); {
			n := rapid.IntRange(1, 12).Draw(t, "n")
			j := min(i+n, len(text))
			for j < len(text) && !isRuneStart(text[j]) {
				j++
			}
			got = tl.Update(text[:j], width, nil)
			i = j
		}
		if text == "" {
			got = tl.Update("", width, nil)
		}
		want := Wrap(Clean(text), width)
		if text == "" {
			want = nil
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("incremental\n%q\nwhole\n%q", got, want)
		}
		// A new width starts over and still agrees.
		got = tl.Update(text, width+3, nil)
		if text != "" && strings.Join(got, "\n") != strings.Join(Wrap(Clean(text), width+3), "\n") {
			t.Fatalf("after a resize: %q", got)
		}
	})
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func TestTextLinesRestartsOnRewrite(t *testing.T) {
	var tl TextLines
	tl.Update("hello world and more", 8, nil)
	got := tl.Update("other text", 8, nil)
	if strings.Join(got, "|") != "other|text" {
		t.Errorf("got %q", got)
	}
}

// TestCleanNeutralisesEscapes: untrusted text can never put an escape
// sequence on the screen.
func TestCleanNeutralisesEscapes(t *testing.T) {
	evil := "ok\x1b]52;c;ZXZpbA==\x07 \x1b[2J\u009b31m\u202eevil\ttab\r"
	for _, l := range Wrap(Clean(evil), 80) {
		if strings.ContainsAny(l, "\x1b\x07\u009b\r\t\u202e") {
			t.Errorf("control survived: %q", l)
		}
	}
	if s := Short("id\x1b[31m", 40); strings.Contains(s, "\x1b") {
		t.Errorf("Short kept ESC: %q", s)
	}
}

// sgr finds colour parameters in SGR sequences.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// onlyANSI16 reports colour parameters outside the 16 ANSI colours.
func onlyANSI16(s string) error {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		ps := strings.Split(m[1], ";")
		for i := 0; i < len(ps); i++ {
			p := ps[i]
			if p == "38" || p == "48" || p == "58" {
				return fmt.Errorf("extended colour in %q", m[0])
			}
		}
	}
	return nil
}

func TestMarkdownANSI16AndWidth(t *testing.T) {
	md := NewMarkdown(true)
	text := "# Title\n\nSome **bold** and `code` and a [link](https://example.com).\n\n" +
		"- one\n- two with a much longer line that needs wrapping around the width\n\n```go\nfunc main() {}\n```\n\n> quote\n\n---\n"
	for _, w := range []int{20, 40, 80} {
		lines, err := md.Render(text, w)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if Width(l) > w {
				t.Errorf("width %d: line %q is %d cells", w, l, Width(l))
			}
			if err := onlyANSI16(l); err != nil {
				t.Errorf("width %d: %v", w, err)
			}
		}
		if len(lines) == 0 || strings.TrimSpace(ansi.Strip(lines[0])) == "" || strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
			t.Errorf("width %d: blank lines at the ends: %q", w, lines)
		}
	}
	plain, err := NewMarkdown(false).Render(text, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range plain {
		if strings.Contains(l, "\x1b[3") || strings.Contains(l, "\x1b[9") {
			t.Errorf("colour in the no-colour style: %q", l)
		}
	}
}

func TestStylesANSI16(t *testing.T) {
	st := NewStyles(true)
	for _, w := range []string{"verified", "partial", "failed", "truncated", "incomplete", "cancelled", "pending", "following", "reconnecting"} {
		b := st.Badge(w)
		if err := onlyANSI16(b); err != nil {
			t.Error(err)
		}
		if !strings.Contains(ansi.Strip(b), strings.ToUpper(w)) {
			t.Errorf("badge %q does not show the word", ansi.Strip(b))
		}
	}
	nc := NewStyles(false)
	if b := ansi.Strip(nc.Badge("verified")); b != "[VERIFIED]" {
		t.Errorf("no-colour badge %q", b)
	}
	if s := nc.Error.Render("x"); strings.Contains(s, "\x1b[3") {
		t.Errorf("no-colour style has a colour: %q", s)
	}
}

// chat builds a Chat action from deltas.
type chat struct {
	a   *model.Action
	seq uint64
}

func newChat() *chat { return &chat{a: model.NewAction("act_test")} }

func (c *chat) add(kind, event string, data any, terminal bool) {
	d, _ := json.Marshal(data)
	h := map[string]any{"data": json.RawMessage(d), "raw_data": string(d), "terminal": terminal}
	if event != "" {
		h["event"] = event
	}
	raw, _ := json.Marshal(map[string]any{"action_id": "act_test", "sequence": c.seq, "kind": kind,
		"data": map[string]any{"hermes_sse": h}})
	c.seq++
	ch, err := model.DecodeChunk(raw)
	if err != nil {
		panic(err)
	}
	c.a.IngestChunk(ch, time.Unix(0, 0))
}

func (c *chat) choice(delta map[string]any, finish any) {
	c.add("data", "", map[string]any{"id": "chatcmpl-x", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}, false)
}

func (c *chat) role()          { c.choice(map[string]any{"role": "assistant"}, nil) }
func (c *chat) delta(s string) { c.choice(map[string]any{"content": s}, nil) }
func (c *chat) finish()        { c.choice(map[string]any{}, "stop") }

func (c *chat) reasoning(s string) { c.choice(map[string]any{"reasoning_content": s}, nil) }

func allLines(tr *Transcript) []string {
	out := make([]string, tr.Len())
	for i := range out {
		out[i] = tr.Line(i)
	}
	return out
}

func TestTranscriptIndexAndCache(t *testing.T) {
	c := newChat()
	c.role()
	c.reasoning("thinking about it\n")
	for i := range 40 {
		c.delta(fmt.Sprintf("word%d ", i))
	}
	tr := NewTranscript(NewStyles(false), NewMarkdown(false))
	tr.SyncMarkdown = true
	tr.SetOptions(Options{Width: 30, Markdown: true})
	tr.Sync(c.a)
	if tr.Blocks() != 2 {
		t.Fatalf("%d blocks, want reasoning and message", tr.Blocks())
	}
	// Lines agrees with Line, and BlockAt with Span.
	all := allLines(tr)
	for from := 0; from < len(all); from += 3 {
		got := tr.Lines(nil, from, from+7)
		for k, l := range got {
			if l != all[from+k] {
				t.Fatalf("Lines(%d) row %d = %q, Line = %q", from, k, l, all[from+k])
			}
		}
	}
	for i := range all {
		bi := tr.BlockAt(i)
		start, n := tr.Span(bi)
		if i < start || i > start+n { // start+n is the separator
			t.Fatalf("line %d in block %d spanning %d+%d", i, bi, start, n)
		}
	}
	ri, mi := 0, 1
	if tr.Item(0).Kind != model.ItemReasoning {
		ri, mi = 1, 0
	}
	// Growing the message does not re-render the reasoning block.
	reasoningHead := &tr.blocks[ri].head[0]
	c.delta("more text")
	tr.Sync(c.a)
	if &tr.blocks[ri].head[0] != reasoningHead {
		t.Error("the unchanged reasoning block was re-rendered")
	}
	if !strings.Contains(strings.Join(allLines(tr), "\n"), "more text") {
		t.Error("the new delta is not shown")
	}
	// Finishing renders markdown once; a second Sync changes nothing.
	c.finish()
	tr.Sync(c.a)
	body := tr.blocks[mi].body
	tr.Sync(c.a)
	if len(body) > 0 && &tr.blocks[mi].body[0] != &body[0] {
		t.Error("a finished message was re-rendered without a change")
	}
	// The finished reasoning (2 lines) is not collapsed; toggling collapses it.
	if col, _ := tr.Collapsed(ri); col {
		t.Error("a short reasoning item starts collapsed")
	}
	if !tr.Toggle(ri) {
		t.Fatal("toggle refused")
	}
	start, _ := tr.Span(ri)
	if col, n := tr.Collapsed(ri); !col || n == 0 || !strings.Contains(tr.Line(start), "hidden") {
		t.Errorf("collapsed=%v hidden=%d first line %q", col, n, tr.Line(start))
	}
	if !tr.Toggle(ri) {
		t.Fatal("toggle back refused")
	}
	if col, _ := tr.Collapsed(ri); col {
		t.Error("toggling twice did not expand")
	}
}

func TestTranscriptRedact(t *testing.T) {
	c := newChat()
	c.role()
	c.delta("the secret prompt answer")
	c.add("data", "hermes.tool.progress", map[string]any{"tool": "terminal", "label": "cat /etc/secret", "toolCallId": "call_secret", "status": "running"}, false)
	tr := NewTranscript(NewStyles(true), nil)
	tr.SetOptions(Options{Width: 60, Redact: true})
	tr.Sync(c.a)
	text := ansi.Strip(strings.Join(allLines(tr), "\n"))
	if strings.Contains(text, "secret") || !strings.Contains(text, safe.Masked) {
		t.Errorf("redacted transcript:\n%s", text)
	}
	rows := ansi.Strip(strings.Join(NewStyles(true).ToolRows(c.a.Tools(), ToolOptions{Width: 80, Redact: true}, 5), "\n"))
	if strings.Contains(rows, "secret") || !strings.Contains(rows, "terminal") {
		t.Errorf("redacted tool rows: %s", rows)
	}
}

func TestToolRows(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	tools := []*model.Tool{
		{ID: "a", Name: "terminal", Emoji: "💻", Label: "ls -la", Status: model.ToolCompleted, StartedAt: now.Add(-3 * time.Second), DoneAt: now.Add(-2 * time.Second)},
		{ID: "b", Name: "a_really_long_tool_name_here", Label: "x\x1b[31m\ny", Status: model.ToolRunning, StartedAt: now.Add(-1500 * time.Millisecond)},
	}
	st := NewStyles(false)
	for _, w := range []int{40, 80, 120} {
		rows := st.ToolRows(tools, ToolOptions{Now: now, Width: w, Frame: 3}, 5)
		if len(rows) != 2 {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			if Width(r) > w || strings.Contains(r, "\x1b[31m") {
				t.Errorf("width %d: row %q", w, r)
			}
		}
		if !strings.Contains(rows[0], "completed") || !strings.Contains(rows[0], "1.0s") {
			t.Errorf("row %q", rows[0])
		}
		if !strings.Contains(rows[1], SpinnerFrames[3]+" running") || !strings.Contains(rows[1], "1.5s") {
			t.Errorf("row %q", rows[1])
		}
	}
	if rows := st.ToolRows(tools, ToolOptions{Now: now, Width: 80}, 1); len(rows) != 1 || !strings.Contains(rows[0], "a_really") {
		t.Errorf("max rows keeps the last: %q", rows)
	}
}

func TestShortAndDuration(t *testing.T) {
	if s := Short("aev_cursor_01J9ZK4T2V8N6Q3R5S7U9W1X3Y", 20); Width(s) != 20 || !strings.HasPrefix(s, "aev_cursor") || !strings.HasSuffix(s, "X3Y") {
		t.Errorf("Short = %q", s)
	}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "0.4s", 12 * time.Second: "12s", 185 * time.Second: "3m05s", 3720 * time.Second: "1h02m"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	if s, ok := PrettyJSON(`{"a":1,"b":"\u009b"}`); !ok || !strings.Contains(s, "\n") || strings.ContainsRune(s, 0x9b) {
		t.Errorf("PrettyJSON = %q %v", s, ok)
	}
}

// BenchmarkStreamingSync is the per-batch cost of a long streaming reply:
// with the incremental wrap it stays flat as the reply grows (the whole
// reply is never re-wrapped per delta).
func BenchmarkStreamingSync(b *testing.B) {
	for _, size := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("after%ddeltas", size), func(b *testing.B) {
			c := newChat()
			c.role()
			for i := range size {
				c.delta(fmt.Sprintf("lorem ipsum dolor sit amet %06d ", i))
			}
			tr := NewTranscript(NewStyles(true), nil)
			tr.SetOptions(Options{Width: 100})
			tr.Sync(c.a)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.delta("next words ")
				tr.Sync(c.a)
				_ = tr.Lines(nil, tr.Len()-40, tr.Len())
			}
		})
	}
}

// TestIncrementalSyncEqualsFull: a transcript synced after every batch
// (the incremental Sync: only the items the model changed are drawn
// again) shows exactly what a transcript synced once from the same model
// shows: lines, blocks, keys, the active block and the search matches,
// whatever the batches, for items in order, late chunks (a rebuild) and
// conflicts (anomalies).
func TestIncrementalSyncEqualsFull(t *testing.T) {
	const act = "act_bench"
	sources := map[string][][]byte{
		"responses-items":  benchgen.ResponsesItems(act, 12),
		"responses-late":   benchgen.Descending(benchgen.ResponsesItems(act, 6)),
		"chat-conflicting": benchgen.Conflicting(act, 40),
		"chat-descending":  benchgen.Descending(benchgen.Chat(act, 40)),
		"responses-one":    benchgen.ResponsesOneItem(act, 30),
	}
	for name, raws := range sources {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				a := model.NewAction(act)
				query := NewQuery(rapid.SampledFrom([]string{"", "text", "item 1", "tok"}).Draw(rt, "query"))
				opts := Options{Width: rapid.IntRange(12, 60).Draw(rt, "width"), Markdown: true}
				inc := NewTranscript(NewStyles(false), NewMarkdown(false))
				inc.SyncMarkdown = true
				inc.SetOptions(opts)
				inc.SetQuery(query)
				for i := 0; i < len(raws); {
					n := rapid.IntRange(1, 8).Draw(rt, "batch")
					for _, r := range raws[i:min(i+n, len(raws))] {
						c, err := model.DecodeChunk(r)
						if err != nil {
							rt.Fatal(err)
						}
						a.IngestChunk(c, time.Unix(0, 0))
					}
					i += n
					inc.Sync(a)
					full := NewTranscript(NewStyles(false), NewMarkdown(false))
					full.SyncMarkdown = true
					full.SetOptions(opts)
					full.SetQuery(query)
					full.Sync(a)
					if got, want := strings.Join(allLines(inc), "\n"), strings.Join(allLines(full), "\n"); got != want {
						rt.Fatalf("after %d chunks the lines differ:\n%s\nwant:\n%s", i, got, want)
					}
					if inc.Blocks() != full.Blocks() || inc.Active() != full.Active() || inc.LastItem() != full.LastItem() || inc.MatchCount() != full.MatchCount() {
						rt.Fatalf("after %d chunks: blocks %d/%d active %d/%d last %d/%d matches %d/%d", i,
							inc.Blocks(), full.Blocks(), inc.Active(), full.Active(), inc.LastItem(), full.LastItem(), inc.MatchCount(), full.MatchCount())
					}
					for b := 0; b < full.Blocks(); b++ {
						if inc.Key(b) != full.Key(b) || inc.Index(full.Key(b)) != b {
							rt.Fatalf("block %d: key %q, want %q", b, inc.Key(b), full.Key(b))
						}
					}
				}
			})
		})
	}
}

// TestPlainProseAsGlamour: the plain-prose shortcut of Markdown.Render
// gives exactly the lines Glamour gives, in colour and without.
func TestPlainProseAsGlamour(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("abcXYZ019, ")), 1, 120, -1).Draw(rt, "text")
		width := rapid.IntRange(1, 40).Draw(rt, "width")
		color := rapid.Bool().Draw(rt, "color")
		if !plainProse(text, max(width, 8)) {
			return
		}
		m := NewMarkdown(color)
		got, err := m.Render(text, width)
		if err != nil {
			rt.Fatal(err)
		}
		r, err := glamour.NewTermRenderer(glamour.WithStyles(m.cfg), glamour.WithWordWrap(max(width, 8)))
		if err != nil {
			rt.Fatal(err)
		}
		out, err := r.Render(text)
		if err != nil {
			rt.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimRight(l, " "); strings.TrimSpace(ansi.Strip(l)) != "" || len(want) > 0 {
				want = append(want, l)
			}
		}
		for len(want) > 0 && strings.TrimSpace(ansi.Strip(want[len(want)-1])) == "" {
			want = want[:len(want)-1]
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("width %d %q:\n got %q\nwant %q", width, text, got, want)
		}
	})
	if plainProse("1. a list", 20) || plainProse("# head", 20) || plainProse("  code", 20) || plainProse("a  b", 20) || plainProse("a\nb", 20) {
		t.Error("Markdown syntax taken for plain prose")
	}
}

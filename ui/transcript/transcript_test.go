package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/internal/benchgen"
	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

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
	tr := New(render.NewStyles(false), render.NewMarkdown(false))
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
	tr := New(render.NewStyles(true), nil)
	tr.SetOptions(Options{Width: 60, Redact: true})
	tr.Sync(c.a)
	text := ansi.Strip(strings.Join(allLines(tr), "\n"))
	if strings.Contains(text, "secret") || !strings.Contains(text, safe.Masked) {
		t.Errorf("redacted transcript:\n%s", text)
	}
	rows := ansi.Strip(strings.Join(render.NewStyles(true).ToolRows(c.a.Tools(), render.ToolOptions{Width: 80, Redact: true}, 5), "\n"))
	if strings.Contains(rows, "secret") || !strings.Contains(rows, "terminal") {
		t.Errorf("redacted tool rows: %s", rows)
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
			tr := New(render.NewStyles(true), nil)
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
			// Each source has its own chunks, action and transcripts, and
			// render keeps no state between them: the sources run side by
			// side.
			t.Parallel()
			rapid.Check(t, func(rt *rapid.T) {
				a := model.NewAction(act)
				query := render.NewQuery(rapid.SampledFrom([]string{"", "text", "item 1", "tok"}).Draw(rt, "query"))
				opts := Options{Width: rapid.IntRange(12, 60).Draw(rt, "width"), Markdown: true}
				inc := New(render.NewStyles(false), render.NewMarkdown(false))
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
					full := New(render.NewStyles(false), render.NewMarkdown(false))
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

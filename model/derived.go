package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// derived is everything interpreted from the retained chunks. It can always
// be rebuilt by applying the chunks again in sequence order.
type derived struct {
	items       []*Item // display order: by Index, then as added (sorted on insert)
	nextIndex   int
	ord         int64   // creation order of items (ord), spaced by 2
	touched     []*Item // items added or changed since TakeChanged
	toolsTouch  []*Tool // tools added or changed since TakeChanged
	generic     *Item   // the text of part-carrying chunks of other connectors
	tools       []*Tool
	toolByID    map[string]*Tool
	chat        ChatState
	resp        ResponsesState
	op          string // operation detected from the frames
	provTerm    bool   // a terminal provider frame was retained
	upstreamEnd string // reason of the connector's extra error chunk, if any
	anoms       []Anomaly
	conflicts   int    // frames that contradict an earlier one (verdict row 12)
	firstTok    uint64 // the chunk of the first assistant text or tool call (Timing)
	hasFirstTok bool
	textBytes   int // assistant and reasoning text so far (OutputRate's estimate)
	// textAt is where the text came: the bytes of assistant and reasoning
	// text the chunks added, a run of consecutive chunks at a time (the
	// timeline's bursts and token rate, turnline.go).
	textAt []textRun
}

func (d *derived) reset() {
	*d = derived{toolByID: map[string]*Tool{}}
	d.resp.reset()
}

func (d *derived) anomaly(kind AnomalyKind, seq uint64, format string, args ...any) {
	d.anoms = append(d.anoms, Anomaly{Kind: kind, Sequence: seq, Detail: fmt.Sprintf(format, args...)})
}

// conflict records evidence that contradicts itself (design §3): a
// conflict anomaly that the verdict reads as row 12.
func (d *derived) conflict(seq uint64, format string, args ...any) {
	d.conflicts++
	d.anomaly(AnomalyConflict, seq, format, args...)
}

// addItem places a new item after every item with an Index at most its
// own: the items stay in display order without a sort per new item (a
// sort per item made 20,000 Responses items quadratic).
func (d *derived) addItem(it *Item) *Item {
	if it.Index < 0 {
		it.Index = d.nextIndex
	}
	if it.Index >= d.nextIndex {
		d.nextIndex = it.Index + 1
	}
	d.ord += 2
	it.ord = d.ord
	if n := len(d.items); n == 0 || d.items[n-1].Index <= it.Index {
		d.items = append(d.items, it)
	} else {
		i := sort.Search(n, func(i int) bool { return d.items[i].Index > it.Index })
		d.items = slices.Insert(d.items, i, it)
	}
	d.markItem(it)
	return it
}

// markItem records that an item was added or changed (TakeChanged).
func (d *derived) markItem(it *Item) {
	if !it.marked {
		it.marked = true
		d.touched = append(d.touched, it)
	}
}

// touch records a visible change of an item at AIP sequence seq.
func (d *derived) touch(it *Item, seq uint64) {
	if it.Kind == ItemMessage && (!d.hasFirstTok || seq < d.firstTok) && it.hasText() {
		d.noteFirstToken(seq)
	}
	it.LastSeq = seq
	it.Version++
	d.markItem(it)
}

// touchTool records a visible change of a tool.
func (d *derived) touchTool(t *Tool) {
	t.Version++
	if !t.marked {
		t.marked = true
		d.toolsTouch = append(d.toolsTouch, t)
	}
}

func (d *derived) detect(op string) {
	if d.op == "" {
		d.op = op
	}
}

// apply interprets one retained chunk. Chunks after the terminal chunk are
// retained evidence only.
func (d *derived) apply(c *Chunk, afterTerminal bool) {
	if afterTerminal {
		d.applyLate(c)
		return
	}
	if hint := hintFor(&c.StreamChunk); hint != nil {
		d.applyData(c, hint.hermes, &hint.h, hint.op, hint.reason)
		return
	}
	if len(c.Data) > 0 && c.Data[0] == '{' {
		if h, hermes, op, reason, ok := decodeChunkDataFast(c.Data); ok {
			d.applyData(c, hermes, &h, op, reason)
			return
		}
	}
	var cd chunkData
	if len(c.Data) > 0 && c.Data[0] == '{' {
		if err := json.Unmarshal(c.Data, &cd); err != nil {
			d.anomaly(AnomalyUndecodable, c.Sequence, "chunk %d data is not valid JSON", c.Sequence)
		}
	}
	var h hermesFrame
	if cd.HermesSSE != nil {
		h = hermesOf(cd.HermesSSE)
	}
	d.applyData(c, cd.HermesSSE != nil, &h, cd.Operation, cd.Reason)
}

// applyLate reads a chunk after the terminal chunk for one thing only: a
// Chat finish or a terminal Responses frame that contradicts the one before
// (design §3). The transcript, the tools and the items do not change.
func (d *derived) applyLate(c *Chunk) {
	if len(c.Data) == 0 || c.Data[0] != '{' {
		return
	}
	h, hermes, _, _, ok := decodeChunkDataFast(c.Data)
	if !ok {
		var cd chunkData
		if json.Unmarshal(c.Data, &cd) != nil || cd.HermesSSE == nil {
			return
		}
		h, hermes = hermesOf(cd.HermesSSE), true
	}
	if !hermes {
		return
	}
	switch name := h.name(); {
	case strings.HasPrefix(name, "response."):
		var f respFrame
		if json.Unmarshal(h.data, &f) != nil {
			return
		}
		if f.Type != "" {
			name = f.Type
		}
		if name == "response.completed" || name == "response.failed" || name == "response.incomplete" {
			d.respTerminal(c, name, &f, true)
		}
	case looksLikeChat(h.data):
		var f chatFrame
		if json.Unmarshal(h.data, &f) != nil || len(f.Choices) == 0 {
			return
		}
		if fr := f.Choices[0].FinishReason; fr != nil && *fr != "" {
			d.chatFinish(c, &f, *fr, true)
		}
	}
}

func (d *derived) applyData(c *Chunk, hermes bool, h *hermesFrame, op, reason string) {
	switch {
	case hermes:
		d.applyHermes(c, h)
	case reason != "":
		// The connector's extra error chunk for an upstream close without a
		// terminal frame (protocol §8.2).
		d.upstreamEnd = reason
		d.detect(op)
		d.notice(c, string(c.Kind), "upstream ended: "+reason)
	default:
		d.applyGeneric(c)
	}
}

func (d *derived) applyHermes(c *Chunk, h *hermesFrame) {
	if h.terminal {
		d.provTerm = true
	}
	name := h.name()
	switch {
	case name == "hermes.tool.progress":
		d.detect(OpChat)
		d.applyToolProgress(c, h)
	case strings.HasPrefix(name, "response."):
		d.detect(OpResponses)
		d.applyResponses(c, h)
	case h.done:
		d.chat.DoneMarker = true
		d.chat.DoneSeq = c.Sequence
	case looksLikeChat(h.data):
		d.detect(OpChat)
		d.applyChat(c, h)
	default:
		d.applyGeneric(c)
	}
}

// looksLikeChat is a cheap test for an OpenAI-style chunk (a "choices" key).
func looksLikeChat(data json.RawMessage) bool {
	return len(data) > 0 && data[0] == '{' && bytes.Contains(data, []byte(`"choices"`))
}

// applyGeneric keeps chunks of other connectors (and unknown Hermes frames)
// visible: text parts grow one message, other kinds become notices.
func (d *derived) applyGeneric(c *Chunk) {
	text := ""
	if c.Part != nil && c.Part.Type == "text" {
		text = c.Part.Text
	}
	switch c.Kind {
	case KindData, KindPreview, "":
		if text != "" {
			if d.generic == nil {
				d.generic = d.addItem(&Item{Kind: ItemMessage, Key: "message", Index: -1, Role: "assistant", FirstSeq: c.Sequence})
			}
			d.generic.part(0).buf.WriteString(text)
			d.addText(c.Sequence, len(text))
			d.touch(d.generic, c.Sequence)
		}
	case KindTool:
		t := d.tool(fmt.Sprintf("seq:%d", c.Sequence), c)
		t.Name = firstString(c.Data, "tool", "name", "event")
		t.Label = text
		t.Status = ToolStarted
		d.touchTool(t)
		d.notice(c, string(c.Kind), summarize(text, c.Data))
	case KindThought:
		d.notice(c, "thought", summarize(text, c.Data)).Kind = ItemReasoning
	default:
		d.notice(c, string(c.Kind), summarize(text, c.Data))
	}
}

// notice adds a one-off generic item.
func (d *derived) notice(c *Chunk, label, text string) *Item {
	it := d.addItem(&Item{Kind: ItemNotice, Key: fmt.Sprintf("seq:%d", c.Sequence), Index: -1,
		Label: label, FirstSeq: c.Sequence, LastSeq: c.Sequence, Done: true, Version: 1})
	it.part(0).buf.WriteString(text)
	return it
}

func (d *derived) tool(id string, c *Chunk) *Tool {
	t, ok := d.toolByID[id]
	if !ok {
		t = &Tool{ID: id, FirstSeq: c.Sequence, StartedAt: c.ReceivedAt}
		d.noteFirstToken(c.Sequence)
		d.toolByID[id] = t
		d.tools = append(d.tools, t)
		t.marked = true
		d.toolsTouch = append(d.toolsTouch, t)
	}
	t.LastSeq = c.Sequence
	return t
}

// summarize gives a short visible form of a generic chunk.
func summarize(text string, data json.RawMessage) string {
	if text != "" {
		return text
	}
	if s := firstString(data, "message", "text", "label", "reason", "status", "event"); s != "" {
		return s
	}
	const maxLen = 200
	s := string(data)
	if len(s) > maxLen {
		s = s[:maxLen] + "…"
	}
	return s
}

// firstString returns the first non-empty string among the named top-level
// keys of a JSON object (looking one level into hermes_sse.data as well).
func firstString(data json.RawMessage, keys ...string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return ""
	}
	if inner, ok := obj["hermes_sse"]; ok {
		var h HermesSSE
		if json.Unmarshal(inner, &h) == nil {
			if s := firstString(h.Data, keys...); s != "" {
				return s
			}
		}
	}
	for _, k := range keys {
		var s string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

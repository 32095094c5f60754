package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ChatState is what the Chat Completions frames said (guide §7, §8).
type ChatState struct {
	Opened       bool // the role chunk opened the assistant message
	Role         string
	CompletionID string // chatcmpl-…
	Model        string
	Finish       *ChatFinish
	DoneMarker   bool // data: [DONE] retained: the provider stream is explicit-terminal
	DoneSeq      uint64
	Usage        *Usage // from the last chunk that carried one (usage.go)

	message   *Item
	reasoning *Item
}

// ChatFinish is the retained finish chunk (protocol §9.3).
type ChatFinish struct {
	Reason   string
	Usage    *Usage
	Error    *ProviderError
	Hermes   *HermesExtras
	Crash    bool // finish "error" with no usage: the writer itself crashed
	NoReply  bool // a finish with no content at all before it
	Sequence uint64
}

// ProviderError is an error object carried in a provider frame. Some frames
// carry a bare string instead; it lands in Message.
type ProviderError struct {
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
}

func decodeProviderError(raw json.RawMessage) *ProviderError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var pe ProviderError
	if json.Unmarshal(raw, &pe) == nil {
		return &pe
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return &ProviderError{Message: s}
	}
	return &ProviderError{Message: string(raw)}
}

// HermesExtras is the finish chunk's `hermes` object.
type HermesExtras struct {
	Completed bool   `json:"completed"`
	Partial   bool   `json:"partial"`
	Failed    bool   `json:"failed"`
	Error     string `json:"error,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

type chatFrame struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   *Usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Hermes  *HermesExtras   `json:"hermes"`
}

type chatChoice struct {
	Delta        chatDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type chatDelta struct {
	Role             *string `json:"role"`
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
}

func (d *derived) applyChat(c *Chunk, h *hermesFrame) {
	f := &h.chat
	if !h.chatOK {
		f = new(chatFrame)
		if !decodeChatFast(h.data, f) {
			*f = chatFrame{}
			if err := json.Unmarshal(h.data, f); err != nil {
				d.anomaly(AnomalyUndecodable, c.Sequence, "chunk %d: chat frame: %v", c.Sequence, err)
				return
			}
		}
	}
	// The one-pass reader's strings are views of the chunk's bytes
	// (strView): what is kept beyond this chunk is copied, once.
	ch := &d.chat
	if f.ID != "" && f.ID != ch.CompletionID {
		ch.CompletionID = strings.Clone(f.ID)
	}
	if f.Model != "" && f.Model != ch.Model {
		ch.Model = strings.Clone(f.Model)
	}
	// The usage may come in a chunk of its own, with no choices, after
	// the finish (OpenAI's stream_options.include_usage).
	d.noteUsage(&ch.Usage, f.Usage, c.Sequence)
	if len(f.Choices) == 0 {
		return
	}
	choice := f.Choices[0]
	if r := choice.Delta.Role; r != nil {
		ch.Opened = true
		ch.Role = strings.Clone(*r)
		d.chatMessage(c) // opens the message; renders no text
	}
	if rc := choice.Delta.ReasoningContent; rc != nil && *rc != "" {
		if ch.reasoning == nil {
			ch.reasoning = d.chatReasoning(c)
		}
		ch.reasoning.part(0).buf.WriteString(*rc)
		d.addText(c.Sequence, len(*rc))
		d.touch(ch.reasoning, c.Sequence)
	}
	if s := choice.Delta.Content; s != nil && *s != "" {
		m := d.chatMessage(c)
		m.part(0).buf.WriteString(*s)
		d.addText(c.Sequence, len(*s))
		d.touch(m, c.Sequence)
	}
	if fr := choice.FinishReason; fr != nil && *fr != "" {
		d.chatFinish(c, f, *fr, false)
	}
}

// chatFinish retains a finish chunk. A second finish that disagrees with
// the first is a conflict (design §3, row 12), and the worse of the two
// counts. late is a finish after the terminal chunk: read for that
// contradiction only, it changes nothing else.
func (d *derived) chatFinish(c *Chunk, f *chatFrame, reason string, late bool) {
	ch := &d.chat
	fin := &ChatFinish{
		Reason:   strings.Clone(reason),
		Usage:    f.Usage,
		Error:    decodeProviderError(f.Error),
		Hermes:   f.Hermes,
		Crash:    reason == "error" && f.Usage == nil,
		Sequence: c.Sequence,
	}
	if ch.message == nil || ch.message.TextLen() == 0 {
		fin.NoReply = true
	}
	switch {
	case ch.Finish == nil:
		if late {
			return // no finish before the terminal chunk: row 7 stands
		}
		ch.Finish = fin
	case finishRank(fin) != finishRank(ch.Finish) || fin.Reason != ch.Finish.Reason:
		d.conflict(c.Sequence, "a second finish chunk (%s) after finish %s at chunk %d",
			fin.Reason, ch.Finish.Reason, ch.Finish.Sequence)
		if finishRank(fin) > finishRank(ch.Finish) {
			ch.Finish = fin
		}
	}
	if late {
		return
	}
	if ch.message != nil {
		ch.message.Done = true
		ch.message.Status = fin.Reason
		d.touch(ch.message, c.Sequence)
	}
	if ch.reasoning != nil {
		ch.reasoning.Done = true
		d.touch(ch.reasoning, c.Sequence)
	}
}

// finishRank orders Chat finishes from best to worst as the verdict reads
// them (design §3 rows 7 to 9 and 13): stop, length (partial), a reason
// the contract does not name (incomplete), then a failed finish.
func finishRank(f *ChatFinish) int {
	switch {
	case f.Reason == "error" || f.Error != nil || f.Hermes != nil && f.Hermes.Failed:
		return 3
	case f.Reason == "stop":
		return 0
	case f.Reason == "length":
		return 1
	}
	return 2
}

// chatReasoning opens the reasoning item. It is shown before the answer
// even though the role chunk opened the message first: it shares the
// message's index and is placed ahead of it (the sort is stable).
func (d *derived) chatReasoning(c *Chunk) *Item {
	it := &Item{Kind: ItemReasoning, Key: "chat:reasoning", Index: -1, FirstSeq: c.Sequence}
	m := d.chat.message
	if m == nil {
		return d.addItem(it)
	}
	it.Index = m.Index
	it.ord = m.ord - 1 // shown just before the message
	for i, x := range d.items {
		if x == m {
			d.items = slices.Insert(d.items, i, it)
			break
		}
	}
	d.markItem(it)
	return it
}

func (d *derived) chatMessage(c *Chunk) *Item {
	if d.chat.message == nil {
		d.chat.message = d.addItem(&Item{Kind: ItemMessage, Key: "chat:message", Index: -1,
			Role: "assistant", FirstSeq: c.Sequence, LastSeq: c.Sequence, Version: 1})
		d.chat.message.part(0)
	}
	return d.chat.message
}

type toolProgress struct {
	Tool       string `json:"tool"`
	Emoji      string `json:"emoji"`
	Label      string `json:"label"`
	ToolCallID string `json:"toolCallId"`
	ToolCallSn string `json:"tool_call_id"`
	Status     string `json:"status"`
}

// applyToolProgress updates one tool entry keyed by toolCallId, in
// first-seen order. The completed frame has no label: the running one stays.
// The old shape (no toolCallId, no status) is a start with no completion.
func (d *derived) applyToolProgress(c *Chunk, h *hermesFrame) {
	var p toolProgress
	if err := json.Unmarshal(h.data, &p); err != nil {
		d.anomaly(AnomalyUndecodable, c.Sequence, "chunk %d: tool progress: %v", c.Sequence, err)
		return
	}
	id := p.ToolCallID
	if id == "" {
		id = p.ToolCallSn
	}
	legacy := id == ""
	if legacy {
		id = fmt.Sprintf("legacy:%d", c.Sequence)
	}
	t := d.tool(id, c)
	if t.FirstSeq == c.Sequence && t.MessageKey == "" {
		// Where in the assistant's text the tool started, so the
		// transcript can show it inline there (a Chat stream has one
		// message; the tool frames interleave with its deltas).
		t.MessageKey = "chat:message"
		if m := d.chat.message; m != nil {
			t.TextAt = m.TextLen()
		}
	}
	t.Legacy = legacy
	if p.Tool != "" {
		t.Name = p.Tool
	}
	if p.Emoji != "" {
		t.Emoji = p.Emoji
	}
	if p.Label != "" {
		t.Label = p.Label
	}
	switch {
	case legacy || p.Status == "":
		if t.Status == "" {
			t.Status = ToolStarted
		}
	case p.Status == ToolCompleted:
		t.Status = ToolCompleted
		t.DoneAt, t.DoneSeq = c.ReceivedAt, c.Sequence
	default:
		if t.Status != ToolCompleted { // a late running frame never reopens a tool
			t.Status = p.Status
		}
	}
	d.touchTool(t)
}

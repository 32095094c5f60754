package model

import (
	"encoding/json"
	"strings"
)

// ResponsesState is what the Responses frames said (guide §9).
type ResponsesState struct {
	ResponseID string // from response.created: the reconciliation key
	Status     string // in_progress, then the terminal response status
	Terminal   bool   // response.completed / failed / incomplete retained
	Usage      *Usage
	Error      *ProviderError
	Mismatch   bool // an output_text.done disagreed with its deltas

	lastSeqNum int64
	haveSeqNum bool
	byID       map[string]*Item
	byIndex    map[int]*Item
	calls      map[string]*Item // function_call items by call_id
}

func (r *ResponsesState) reset() {
	*r = ResponsesState{byID: map[string]*Item{}, byIndex: map[int]*Item{}, calls: map[string]*Item{}}
}

type respItem struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Status    string          `json:"status"`
	Role      string          `json:"role"`
	Name      string          `json:"name"`
	CallID    string          `json:"call_id"`
	Arguments string          `json:"arguments"`
	Content   []respContent   `json:"content"`
	Output    json.RawMessage `json:"output"`
}

type respContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type respObject struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Usage  *Usage          `json:"usage"`
	Error  json.RawMessage `json:"error"`
}

type respFrame struct {
	Type           string      `json:"type"`
	SequenceNumber *int64      `json:"sequence_number"`
	Response       *respObject `json:"response"`
	OutputIndex    *int        `json:"output_index"`
	ContentIndex   int         `json:"content_index"`
	ItemID         string      `json:"item_id"`
	Delta          string      `json:"delta"`
	Text           string      `json:"text"`
	Item           *respItem   `json:"item"`
}

func (d *derived) applyResponses(c *Chunk, h *hermesFrame) {
	// The one-pass reader (fastresp.go), or encoding/json when it is
	// not sure.
	f, ok := decodeRespFast(h.data)
	if !ok {
		f = respFrame{}
		if err := json.Unmarshal(h.data, &f); err != nil {
			d.anomaly(AnomalyUndecodable, c.Sequence, "chunk %d: responses frame: %v", c.Sequence, err)
			return
		}
	}
	r := &d.resp
	name := h.name()
	if f.Type != "" {
		name = f.Type
	}
	// The provider's sequence_number is its own counter: checked for gaps
	// only against itself, never against the AIP sequence.
	// The first number seen is the baseline unless it is response.created,
	// which is 0: a follow from a --cursor mid-turn starts anywhere.
	if n := f.SequenceNumber; n != nil {
		want := *n
		switch {
		case r.haveSeqNum:
			want = r.lastSeqNum + 1
		case name == "response.created":
			want = 0
		}
		if *n != want {
			d.anomaly(AnomalySequenceGap, c.Sequence, "Responses sequence_number %d where %d was expected", *n, want)
		}
		r.lastSeqNum, r.haveSeqNum = *n, true
	}
	switch name {
	case "response.created", "response.in_progress":
		if f.Response != nil {
			if f.Response.ID != "" {
				r.ResponseID = f.Response.ID
			}
			if !r.Terminal {
				r.Status = orDefault(f.Response.Status, "in_progress")
			}
		}
	case "response.output_item.added", "response.output_item.done":
		if f.Item == nil {
			return
		}
		d.respItem(c, f.OutputIndex, f.Item, name == "response.output_item.done")
	case "response.output_text.delta", "response.reasoning_text.delta":
		it := d.respTextItem(c, f.ItemID, f.OutputIndex, name)
		it.part(f.ContentIndex).buf.WriteString(f.Delta)
		d.addText(c.Sequence, len(f.Delta))
		d.touch(it, c.Sequence)
	case "response.output_text.done":
		it := d.respTextItem(c, f.ItemID, f.OutputIndex, name)
		p := it.part(f.ContentIndex)
		p.Done, p.HasDone = f.Text, true
		if f.Text != p.Text() {
			r.Mismatch = true
			d.anomaly(AnomalyTextMismatch, c.Sequence,
				"output_text.done for %s differs from its deltas (%d bytes done, %d streamed)",
				orDefault(it.Key, "message"), len(f.Text), p.buf.Len())
		}
		d.touch(it, c.Sequence)
	case "response.completed", "response.failed", "response.incomplete":
		d.respTerminal(c, name, &f, false)
	}
}

// respTerminal settles the response status. A second terminal frame that
// disagrees with the first is a conflict (design §3, row 12), and the
// worse of the two counts. late is a frame after the terminal chunk: read
// for that contradiction only, it changes nothing else.
func (d *derived) respTerminal(c *Chunk, name string, f *respFrame, late bool) {
	r := &d.resp
	status := strings.TrimPrefix(name, "response.")
	if f.Response != nil && f.Response.Status != "" {
		status = f.Response.Status
	}
	if r.Terminal && status != r.Status {
		d.conflict(c.Sequence, "a second terminal response frame (%s) after status %s", status, r.Status)
		if respRank(status) <= respRank(r.Status) {
			return
		}
	} else if late {
		return
	}
	r.Terminal = true
	r.Status = status
	if f.Response != nil {
		if f.Response.ID != "" && r.ResponseID == "" {
			r.ResponseID = f.Response.ID
		}
		r.Usage = nil
		d.noteUsage(&r.Usage, f.Response.Usage, c.Sequence)
		r.Error = decodeProviderError(f.Response.Error)
	}
	if late {
		return
	}
	for _, it := range d.items {
		if !it.Done {
			it.Done = true
			d.touch(it, c.Sequence)
		}
	}
}

// respTextItem finds the item a text event names, by item_id, then by
// output_index; a text event for an unknown item opens a message item.
func (d *derived) respTextItem(c *Chunk, itemID string, idx *int, name string) *Item {
	r := &d.resp
	if it := r.byID[itemID]; itemID != "" && it != nil {
		return it
	}
	if idx != nil {
		// The index is only a fallback for an event without an item id, or
		// for an item that has none: a text event that names another item
		// must not be merged into whatever holds this output_index.
		if it := r.byIndex[*idx]; it != nil && (itemID == "" || it.Key == "") {
			return it
		}
	}
	kind := ItemMessage
	if strings.HasPrefix(name, "response.reasoning") {
		kind = ItemReasoning
	}
	return d.openRespItem(c, itemID, idx, &Item{Kind: kind, Role: "assistant"})
}

func (d *derived) openRespItem(c *Chunk, id string, idx *int, it *Item) *Item {
	r := &d.resp
	it.Key, it.FirstSeq, it.LastSeq, it.Version = id, c.Sequence, c.Sequence, 1
	it.Index = -1
	if idx != nil {
		it.Index = *idx
	}
	d.addItem(it)
	if id != "" {
		r.byID[id] = it
	}
	if idx != nil {
		r.byIndex[*idx] = it
	}
	return it
}

// respItem opens or updates an output item. Items are keyed by item id and
// output_index, never by their position in the terminal output array, and
// two items are never merged.
func (d *derived) respItem(c *Chunk, idx *int, ri *respItem, done bool) {
	r := &d.resp
	it := r.byID[ri.ID]
	if it == nil && ri.ID == "" && idx != nil {
		it = r.byIndex[*idx]
	}
	if it == nil {
		switch ri.Type {
		case "function_call_output":
			if call := r.calls[ri.CallID]; ri.CallID != "" && call != nil {
				// Paired with its call: shown inside it, registered so later
				// events for this output find the call.
				it = call
				if ri.ID != "" {
					r.byID[ri.ID] = call
				}
				if idx != nil {
					r.byIndex[*idx] = call
				}
			} else {
				it = d.openRespItem(c, ri.ID, idx, &Item{Kind: ItemFunctionOutput, CallID: ri.CallID})
			}
		case "function_call":
			it = d.openRespItem(c, ri.ID, idx, &Item{Kind: ItemFunctionCall})
		case "reasoning":
			it = d.openRespItem(c, ri.ID, idx, &Item{Kind: ItemReasoning})
		case "message":
			it = d.openRespItem(c, ri.ID, idx, &Item{Kind: ItemMessage, Role: orDefault(ri.Role, "assistant")})
		default:
			it = d.openRespItem(c, ri.ID, idx, &Item{Kind: ItemNotice, Label: ri.Type})
		}
	}
	switch ri.Type {
	case "function_call":
		if ri.Name != "" {
			it.Name = ri.Name
		}
		if ri.CallID != "" {
			it.CallID = ri.CallID
			r.calls[ri.CallID] = it
		}
		if ri.Arguments != "" {
			it.Arguments = ri.Arguments
		}
		it.Status = orDefault(ri.Status, it.Status)
		if done {
			it.Done = true
		}
		d.respTool(c, it, done)
	case "function_call_output":
		parts := outputParts(ri.Output)
		if it.Kind == ItemFunctionCall {
			it.Output, it.HasOutput = parts, true
			if t := d.toolByID[it.CallID]; t != nil && t.Status != ToolCompleted {
				t.Status, t.DoneAt, t.DoneSeq = ToolCompleted, c.ReceivedAt, c.Sequence
				t.LastSeq = c.Sequence
				d.touchTool(t)
			}
		} else {
			it.Output, it.HasOutput = parts, true
			it.Status = orDefault(ri.Status, it.Status)
			it.Done = it.Done || done
		}
	case "message":
		it.Status = orDefault(ri.Status, it.Status)
		if done {
			it.Done = true
		}
	default:
		it.Status = orDefault(ri.Status, it.Status)
		it.Done = it.Done || done
	}
	d.touch(it, c.Sequence)
}

// respTool mirrors a function_call into the tool list.
func (d *derived) respTool(c *Chunk, it *Item, done bool) {
	if it.CallID == "" {
		return
	}
	t := d.tool(it.CallID, c)
	t.Name = it.Name
	t.Label = it.Arguments
	if done || it.Status == "completed" {
		if t.Status != ToolCompleted {
			t.Status, t.DoneAt, t.DoneSeq = ToolCompleted, c.ReceivedAt, c.Sequence
		}
	} else if t.Status == "" {
		t.Status = ToolRunning
	}
	d.touchTool(t)
}

// outputParts reads a function_call_output output: a list of input_text
// parts, or (non-streaming shape) a plain string.
func outputParts(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		out := make([]string, 0, len(parts))
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return out
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	return []string{string(raw)}
}

// respRank orders terminal response statuses from best to worst as the
// verdict reads them (design §3 rows 10, 11 and 13).
func respRank(status string) int {
	switch status {
	case "completed":
		return 0
	case "failed":
		return 2
	}
	return 1
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

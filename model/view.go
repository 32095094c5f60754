package model

import (
	"sort"
	"strings"
)

// Items returns the transcript in display order: Chat reasoning and message,
// Responses items by output_index (a function_call_output paired with its
// call is inside the call), generic notices in arrival order. The slice and
// the items are the model's own: read, do not modify.
//
// Before the action settles, the transcript may not yet include chunks that
// arrived below the highest sequence (see Sync); every reader here sees the
// same state.
func (a *Action) Items() []*Item { a.sync(); return a.d.items }

// Tools returns the tool calls in first-seen order.
func (a *Action) Tools() []*Tool { a.sync(); return a.d.tools }

// TakeChanged returns the items and tools added or changed since the last
// call, items in display order, and forgets them: a line printer reports
// what a chunk changed without walking the whole transcript per chunk
// (which made 20,000 Responses items quadratic). After a rebuild (late
// chunks applied) every item is new. One consumer per Action.
func (a *Action) TakeChanged() ([]*Item, []*Tool) {
	a.sync()
	items, tools := a.d.touched, a.d.toolsTouch
	a.d.touched, a.d.toolsTouch = nil, nil
	for _, it := range items {
		it.marked = false
	}
	for _, t := range tools {
		t.marked = false
	}
	if len(items) > 1 {
		sort.Slice(items, func(i, j int) bool {
			if items[i].Index != items[j].Index {
				return items[i].Index < items[j].Index
			}
			return items[i].ord < items[j].ord
		})
	}
	return items, tools
}

// Chat returns what the Chat frames said.
func (a *Action) Chat() *ChatState { a.sync(); return &a.d.chat }

// Responses returns what the Responses frames said.
func (a *Action) Responses() *ResponsesState { a.sync(); return &a.d.resp }

// UpstreamEnd is the reason of the connector's extra error chunk
// (upstream closed without a terminal frame), or "".
func (a *Action) UpstreamEnd() string { a.sync(); return a.d.upstreamEnd }

// Operation is the connector operation: the aggregate's when the result has
// one, else what the frames look like, else "".
func (a *Action) Operation() string {
	a.sync()
	if agg := a.aggregate(); agg != nil && agg.Operation != "" {
		return agg.Operation
	}
	return a.d.op
}

// Endpoint is the connector endpoint from the aggregate, or "".
func (a *Action) Endpoint() string {
	if agg := a.aggregate(); agg != nil {
		return agg.EndpointID
	}
	return ""
}

// Text is the assistant text of design §4: Chat content deltas in order;
// Responses message items in output_index order (the done text where
// present), joined by a blank line.
func (a *Action) Text() string {
	var msgs []string
	for _, it := range a.Items() {
		if it.Kind == ItemMessage {
			msgs = append(msgs, it.Text())
		}
	}
	if a.streamKind() == OpChat || len(msgs) == 1 {
		return strings.Join(msgs, "")
	}
	return strings.Join(msgs, "\n\n")
}

// FinishReason is the Chat finish_reason, or "".
func (a *Action) FinishReason() string {
	a.sync()
	if f := a.d.chat.Finish; f != nil {
		return f.Reason
	}
	return ""
}

// Notes are short facts an operator should see that are not anomalies:
// an empty finish, an upstream close.
func (a *Action) Notes() []string {
	a.sync()
	var notes []string
	if f := a.d.chat.Finish; f != nil && f.NoReply {
		notes = append(notes, "no reply text: the finish chunk came with no content before it")
	}
	if f := a.d.chat.Finish; f != nil && f.Crash {
		notes = append(notes, "the provider's writer crashed: finish error with no usage")
	}
	if a.d.upstreamEnd != "" {
		notes = append(notes, "upstream closed without a terminal event")
	}
	return notes
}

package model

import (
	"encoding/json"
	"strconv"
	"time"
)

// This file reads an action whose store holds no chunks from its result
// (design §14, protocol §13): on the fleet deployment an action submitted
// async or sync records no chunk at all, but its result's output.events
// holds every provider frame the connector parsed. Those frames become the
// chunks the connector would have published for them (protocol §8.2) and
// go into the model through IngestChunk, the one route of chunks: the
// transcript, the tools, the finish, the usage and the verdict are the
// ones the chunks would have given. Nothing here interprets a provider
// frame beyond the connector's own classification of it (its kind and text
// part); derived.go reads them, as it reads every chunk.
//
// Chunks win when present: the result's events are read only when the
// action has no retained chunk when its result arrives (a live chunk is
// evidence the daemon recorded; the result's copy would count every frame
// twice). A chunk that arrives after them is compared with the one read
// from the result as any repeated sequence is (the same content: a replay;
// other content: a conflict, design §2.5).

// NoLiveChunksWhy is why an action's chunks were read from its result.
const NoLiveChunksWhy = "its store holds none: on the fleet deployment (getaip-server reaching Hermes through a connector host) only a streaming submission records chunks"

// NoLiveChunksLine is the one line every output gives, once, for an
// action read from its result's events.
func NoLiveChunksLine(frames int) string {
	return "aipd recorded no live chunks for this action (" + NoLiveChunksWhy + "): its " +
		plural(frames, "provider frame", "provider frames") + " were read from the result's output.events"
}

// upstreamClosedReason is the reason of the connector's extra error chunk
// for a stream that closed without a terminal frame (protocol §8.2).
const upstreamClosedReason = "upstream_stream_closed_without_terminal_event"

// ChunksOfResult returns the chunks the Hermes connector publishes for the
// provider frames of r's output.events (protocol §8.2), in sequence order:
// sequence the frame's index, data {"hermes_sse": frame}, the kind of the
// connector's stream_chunk_kind, a plain text part when the first of
// data.delta, data.text and data.output present is a non-empty string; and
// the connector's extra error chunk when the stream closed without a
// terminal frame and was not truncated. Each chunk is decoded from its
// bytes as a chunk of a page is. nil when r carries no events; an event
// that is not an object is skipped (and counted in skipped).
func ChunksOfResult(actionID string, r *ActionResult) (chunks []StreamChunk, skipped int) {
	if r == nil || r.Aggregate == nil || len(r.Aggregate.Events) == 0 {
		return nil, 0
	}
	events, ok := splitEvents(r.Aggregate.Events)
	if !ok || len(events) == 0 {
		return nil, 0
	}
	id, _ := json.Marshal(actionID)
	var b []byte
	for i, ev := range events {
		// The frame is read by the chunks' own decoder (fastdecode.go),
		// encoding/json where it is not sure, as a chunk's data is.
		h, ok := whole(ev, &hermesShape)
		if !ok {
			var full HermesSSE
			if len(ev) == 0 || ev[0] != '{' || json.Unmarshal(ev, &full) != nil {
				skipped++
				continue
			}
			h = hermesOf(&full)
		}
		b = append(b[:0], `{"action_id":`...)
		b = append(b, id...)
		b = append(b, `,"sequence":`...)
		b = strconv.AppendUint(b, uint64(i), 10)
		b = append(b, `,"kind":"`...)
		b = append(b, connectorKind(h.name(), h.terminal)...)
		b = append(b, `","data":{"hermes_sse":`...)
		b = append(b, ev...)
		b = append(b, '}')
		if text, ok := connectorText(h.data); ok {
			t, _ := json.Marshal(text)
			b = append(b, `,"part":{"type":"text","text":`...)
			b = append(b, t...)
			b = append(b, `,"format":"plain"}`...)
		}
		b = append(b, '}')
		c, err := DecodeChunk(b)
		if err != nil {
			skipped++
			continue
		}
		chunks = append(chunks, c)
	}
	agg := r.Aggregate
	if agg.Terminal != nil && !*agg.Terminal && (agg.Truncated == nil || !*agg.Truncated) {
		op, _ := json.Marshal(agg.Operation)
		b = append(b[:0], `{"action_id":`...)
		b = append(b, id...)
		b = append(b, `,"sequence":`...)
		b = strconv.AppendUint(b, uint64(len(events)), 10)
		b = append(b, `,"kind":"error","data":{"operation":`...)
		b = append(b, op...)
		b = append(b, `,"reason":"`+upstreamClosedReason+`"}}`...)
		if c, err := DecodeChunk(b); err == nil {
			chunks = append(chunks, c)
		}
	}
	return chunks, skipped
}

// splitEvents is the elements of an events array, each as written (the
// fast scan, else encoding/json).
func splitEvents(b []byte) ([]json.RawMessage, bool) {
	s := &jscan{b: b}
	var out []json.RawMessage
	if array(s, &out, func(s *jscan, out *[]json.RawMessage) bool {
		v, ok := s.value()
		*out = append(*out, v)
		return ok
	}) && s.end() {
		return out, true
	}
	out = nil
	return out, json.Unmarshal(b, &out) == nil
}

// connectorKind is the connector's stream_chunk_kind of a frame named
// name (HermesSSE.Name) (protocol §8.2).
func connectorKind(name string, terminal bool) ChunkKind {
	switch name {
	case "run.failed", "response.failed", "response.incomplete", "error":
		return KindError
	case "done", "run.completed", "run.cancelled", "response.completed":
		return KindDone
	case "tool.started", "tool.completed", "tool.failed":
		return KindTool
	case "approval.request":
		return KindPendingApproval
	case "reasoning.available":
		return KindThought
	}
	if terminal {
		return KindDone
	}
	return KindData
}

// connectorText is the connector's text part of a frame: the first of
// data.delta, data.text and data.output present, when it is a non-empty
// string (protocol §8.2).
func connectorText(data json.RawMessage) (string, bool) {
	if len(data) == 0 || data[0] != '{' {
		return "", false
	}
	if p, ok := whole(data, &textShape); ok {
		for k := range p.has {
			if !p.has[k] {
				continue
			}
			s := jscan{b: p.vals[k]}
			str, sure := s.strValue()
			switch {
			case sure && s.end():
				return str, str != ""
			case p.vals[k][0] != '"':
				return "", false // not a string
			}
			var slow string // an escaped string: encoding/json unquotes it
			if json.Unmarshal(p.vals[k], &slow) != nil {
				return "", false
			}
			return slow, slow != ""
		}
		return "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return "", false
	}
	for _, k := range []string{"delta", "text", "output"} {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return "", false
		}
		return s, true
	}
	return "", false
}

// ReadResultEvents reads a result's provider frames into the model when
// the action has no retained chunk (design §14): the chunks of
// ChunksOfResult, each through IngestChunk with no receive time (none was
// received live: tool durations and chunk times read as unknown, never
// as the instant the result came). It reports how many
// frames were read (0: none, the action had chunks, or the result is
// another action's or was read before). The action then reports
// NoLiveChunks; stream.Apply logs it once (HapNoLiveChunks).
func (a *Action) ReadResultEvents(r ActionResult) int {
	if a.noLive > 0 || len(a.seqs) > 0 || !r.Of(a.ID) {
		return 0
	}
	if r.Aggregate == nil {
		r.decodeAggregate()
	}
	chunks, _ := ChunksOfResult(a.ID, &r)
	if len(chunks) == 0 {
		return 0
	}
	for _, c := range chunks {
		a.IngestChunk(c, time.Time{})
	}
	a.noLive = len(chunks)
	a.Version++
	return len(chunks)
}

// NoLiveChunks reports whether the action's chunks were read from its
// result's output.events (ReadResultEvents): this daemon recorded none.
// Every output says so once, from the timeline's HapNoLiveChunks entry.
func (a *Action) NoLiveChunks() bool { return a.noLive > 0 }

// NoChunksYetWait is how long a running action may show no chunk before
// the live view says why, instead of an empty pane (design §14).
const NoChunksYetWait = 5 * time.Second

// NoChunksYet is the line the live view shows in place of an empty
// transcript once the action has run waited (since the viewer attached)
// with no chunk: on the fleet an async or sync action records none until
// it settles. "" before NoChunksYetWait, once a chunk came, or once the
// action ended.
func (a *Action) NoChunksYet(waited time.Duration) string {
	if waited < NoChunksYetWait || len(a.seqs) > 0 || a.Ended() {
		return ""
	}
	state := StateUnknown
	if a.Status != nil && a.Status.State != "" {
		state = a.Status.State
	}
	return "no live chunk after " + HumanDuration(waited.Truncate(time.Second)) + " (state " + state + "): on the fleet deployment aipd records " +
		"none for an async or sync action, only for a streaming one; its text and verdict will be read from its result once it settles"
}

// textProbe is what connectorText reads of a frame's data: the raw values
// of delta, text and output, in that order, and which are present.
type textProbe struct {
	vals [3]json.RawMessage
	has  [3]bool
}

// textShape reads a frame's data for connectorText with the chunks' own
// scanner (fastjson.go); any other key is skipped.
var textShape = objShape[textProbe]{fields: []field[textProbe]{
	{name: "delta", dec: func(s *jscan, p *textProbe) bool { p.has[0] = true; return s.rawShared(&p.vals[0]) }},
	{name: "text", dec: func(s *jscan, p *textProbe) bool { p.has[1] = true; return s.rawShared(&p.vals[1]) }},
	{name: "output", dec: func(s *jscan, p *textProbe) bool { p.has[2] = true; return s.rawShared(&p.vals[2]) }},
}}

package sim

import (
	"strconv"
	"strings"
)

// connector mirrors the Hermes connector's reading loop (docs/protocol.md §8):
// each provider frame becomes a HermesSseEvent and a StreamChunk, the
// aggregate text grows, and the event limit and terminal frames decide when
// reading stops and what the outcome is.
type connector struct {
	actionID  string
	operation string
	maxEvents int

	events    [][]byte // HermesSseEvent JSON of every frame, for the aggregate
	text      strings.Builder
	terminal  bool
	truncated bool
	lastName  string
	lastData  []byte // compact JSON of the last frame's data
	nextSeq   uint64
	raw       []byte // scratch
	// slab holds the chunk JSON of many frames, so that a long stream is a
	// few large allocations instead of one per frame.
	slab []byte
}

// chunkRec is one stored StreamChunk.
type chunkRec struct {
	seq  uint64
	kind string
	json []byte // the StreamChunk JSON
}

var terminalNames = map[string]bool{
	"done": true, "run.completed": true, "run.failed": true, "run.cancelled": true,
	"response.completed": true, "response.failed": true, "response.incomplete": true, "error": true,
}

// ingest maps one provider frame. It returns the chunk to store and whether
// reading stops here (a terminal frame, or the event limit).
func (c *connector) ingest(f frame) (chunkRec, bool) {
	// raw_data: the provider's own bytes.
	c.raw = c.raw[:0]
	if f.value != nil {
		c.raw = appendPy(c.raw, f.value)
	} else {
		c.raw = append(c.raw, f.text...)
	}
	top, _ := f.value.(obj)
	name := f.event
	dataEvent, _ := top.str("event")
	if name == "" {
		name = dataEvent
	}
	if name == "" {
		name, _ = top.str("type")
	}
	term := string(c.raw) == "[DONE]" || terminalNames[f.event] || terminalNames[dataEvent]
	kind := chunkKind(name, term)
	var part string
	for _, k := range []string{"delta", "text", "output"} {
		if s, ok := top.str(k); ok && s != "" {
			part = s
			break
		}
	}
	c.aggregateText(top, name)

	// The StreamChunk, written in one pass so that the HermesSseEvent (for
	// the aggregate) and its data (for stream_failed details) are slices of
	// it rather than copies.
	seq := c.nextSeq
	c.nextSeq++
	// Written straight into the slab; see keep.
	if cap(c.slab)-len(c.slab) < 64<<10 {
		c.slab = make([]byte, 0, 1<<20)
	}
	start := len(c.slab)
	b := c.chunkHead(c.slab, seq, kind)
	b = append(b, `"data":{"hermes_sse":`...)
	hermesAt := len(b)
	b = append(b, '{')
	if f.event != "" {
		b = append(b, `"event":`...)
		b = appendCompactString(b, f.event)
		b = append(b, ',')
	}
	b = append(b, `"data":`...)
	dataAt := len(b)
	switch {
	case f.value != nil:
		b = appendCompact(b, f.value, true)
	case len(c.raw) == 0:
		b = append(b, "null"...)
	default:
		b = appendCompactString(b, c.raw)
	}
	dataEnd := len(b)
	b = append(b, `,"raw_data":`...)
	b = appendCompactString(b, c.raw)
	b = append(b, `,"terminal":`...)
	b = strconv.AppendBool(b, term)
	b = append(b, '}')
	hermesEnd := len(b)
	b = append(b, '}')
	if part != "" {
		b = append(b, `,"part":{"type":"text","text":`...)
		b = appendCompactString(b, part)
		b = append(b, `,"format":"plain"}`...)
	}
	b = append(b, '}')
	c.slab = b
	js := b[start:len(b):len(b)]
	hermesAt, hermesEnd, dataAt, dataEnd = hermesAt-start, hermesEnd-start, dataAt-start, dataEnd-start

	c.events = append(c.events, js[hermesAt:hermesEnd:hermesEnd])
	c.lastName = name
	c.lastData = js[dataAt:dataEnd:dataEnd]
	rec := chunkRec{seq: seq, kind: kind, json: js}

	if len(c.events) >= c.maxEvents {
		c.truncated = true
		c.terminal = false
		return rec, true
	}
	if term {
		c.terminal = true
		return rec, true
	}
	return rec, false
}

func (c *connector) chunkHead(b []byte, seq uint64, kind string) []byte {
	b = append(b, `{"action_id":`...)
	b = appendCompactString(b, c.actionID)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"kind":`...)
	b = appendCompactString(b, kind)
	return append(b, ',')
}

// unterminated is the extra error chunk for an upstream that closed without
// a terminal frame (and was not truncated).
func (c *connector) unterminated() chunkRec {
	seq := c.nextSeq
	c.nextSeq++
	b := c.chunkHead(nil, seq, "error")
	b = append(b, `"data":`...)
	b = appendCompact(b, o("operation", c.operation, "reason", "upstream_stream_closed_without_terminal_event"), false)
	return chunkRec{seq: seq, kind: "error", json: append(b, '}')}
}

func chunkKind(name string, terminal bool) string {
	switch name {
	case "run.failed", "response.failed", "response.incomplete", "error":
		return "error"
	case "tool.started", "tool.completed", "tool.failed":
		return "tool"
	case "approval.request":
		return "pending_approval"
	case "reasoning.available":
		return "thought"
	}
	if terminal {
		return "done"
	}
	return "data"
}

// aggregateText applies the connector's text rule to one frame.
func (c *connector) aggregateText(top obj, name string) {
	if choices, ok := top.get("choices"); ok {
		if list, ok := choices.([]any); ok && len(list) > 0 {
			if ch, ok := list[0].(obj); ok {
				if d, ok := ch.get("delta"); ok {
					if dob, ok := d.(obj); ok {
						if s, ok := dob.str("content"); ok {
							c.text.WriteString(s)
							return
						}
					}
				}
			}
		}
	}
	if s, ok := top.str("delta"); ok {
		c.text.WriteString(s)
		return
	}
	if s, ok := top.str("text"); ok && name == "response.output_text.delta" {
		c.text.WriteString(s)
		return
	}
	if c.text.Len() == 0 {
		if s, ok := top.str("content"); ok {
			c.text.WriteString(s)
		} else if s, ok := top.str("output"); ok {
			c.text.WriteString(s)
		}
	}
}

// protoErr is a ProtocolError (docs/protocol.md §7.3).
type protoErr struct {
	Code         string
	Message      string
	Category     string
	Retryable    bool
	RetryAfterMs int
	Details      any // obj, rawJSON or nil
	Source       obj
}

func (e *protoErr) json() []byte {
	v := o("code", e.Code, "message", e.Message, "category", e.Category, "retryable", e.Retryable)
	if e.RetryAfterMs > 0 {
		v = append(v, kv{"retry_after_ms", e.RetryAfterMs})
	}
	if e.Details != nil {
		v = append(v, kv{"details", e.Details})
	}
	if e.Source != nil {
		v = append(v, kv{"source", e.Source})
	}
	return compact(v)
}

func connectorError(code, msg string, details any) *protoErr {
	return &protoErr{Code: "connector.hermes_agent." + code, Message: msg, Category: "connector",
		Details: details, Source: o("connector", "hermes-agent")}
}

// outcome is stream_outcome (§9.3), checked in order.
func (c *connector) outcome() (string, *protoErr) {
	switch {
	case c.truncated:
		return "failed", connectorError("stream_truncated", "Hermes stream exceeded its configured event limit",
			o("operation", c.operation))
	case !c.terminal:
		return "failed", connectorError("stream_incomplete", "Hermes stream closed without a terminal event",
			o("operation", c.operation))
	case c.lastName == "run.cancelled":
		return "cancelled", nil
	case c.lastName == "run.failed", c.lastName == "response.failed", c.lastName == "response.incomplete", c.lastName == "error":
		return "failed", connectorError("stream_failed", "Hermes stream ended with a failure event", rawJSON(c.lastData))
	}
	return "completed", nil
}

// outputPrefix is the aggregate HermesStreamResult up to its events array;
// outputSuffix follows the events. The events themselves are the stored
// HermesSseEvent bytes, so the (possibly huge) aggregate is never copied.
func (c *connector) outputPrefix() []byte {
	b := []byte(`{"endpoint_id":"` + simEndpoint + `","operation":`)
	b = appendCompactString(b, c.operation)
	return append(b, `,"http_status":200,"events":[`...)
}

func (c *connector) outputSuffix() []byte {
	b := []byte(`],"text":`)
	b = appendCompactString(b, c.text.String())
	b = append(b, `,"terminal":`+strconv.FormatBool(c.terminal)+`,"truncated":`+strconv.FormatBool(c.truncated)+`}`...)
	return b
}

const simEndpoint = "sim"

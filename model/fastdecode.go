package model

import (
	"encoding/json"
	"strconv"
)

// Fast decoders for the shapes of every frame (see fastjson.go). Each
// returns ok == false when it is not sure; its caller then decodes with
// encoding/json as it always did.

var chunkFields = []string{"action_id", "sequence", "kind", "data", "part"}

// decodeChunkFast decodes a StreamChunk object. Data aliases raw.
func decodeChunkFast(raw []byte) (StreamChunk, bool) {
	var c StreamChunk
	s := jscan{b: raw}
	var seen fields
	n := 0
	if !s.objOpen() {
		return c, false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return c, false
		}
		if done {
			break
		}
		switch string(key) {
		case "action_id":
			if !seen.first(0) {
				return c, false
			}
			if s.null() {
				continue
			}
			v, ok := s.strValue()
			if !ok {
				return c, false
			}
			c.ActionID = v
		case "sequence":
			if !seen.first(1) {
				return c, false
			}
			if s.null() {
				continue
			}
			v, ok := s.uintValue()
			if !ok {
				return c, false
			}
			c.Sequence = v
		case "kind":
			if !seen.first(2) {
				return c, false
			}
			if s.null() {
				continue
			}
			lit, plain, ok := s.str()
			if !ok {
				return c, false
			}
			if plain {
				c.Kind = internKind(lit)
			} else {
				c.Kind = ChunkKind(unquote(lit))
			}
		case "data":
			if !seen.first(3) {
				return c, false
			}
			start := s.i
			if s.peek() == '{' {
				hint := new(chunkHint)
				if hint.hermes, hint.op, hint.reason, ok = s.chunkData(&hint.h); ok {
					c.Data = s.b[start:s.i]
					hint.data = c.Data
					c.hint = hint
					continue
				}
				s.i = start
			}
			v, ok := s.value()
			if !ok {
				return c, false
			}
			c.Data = v
		case "part":
			if !seen.first(4) {
				return c, false
			}
			if s.null() {
				c.Part = nil
				continue
			}
			p, ok := s.part()
			if !ok {
				return c, false
			}
			c.Part = p
		default:
			if !unknownKey(key, chunkFields...) || !s.skipMember() {
				return c, false
			}
		}
	}
	if !s.end() {
		return c, false
	}
	if len(c.Data) > 0 {
		// encoding/json copies a RawMessage; ours shares the chunk's own
		// copy of raw. Same bytes, one allocation less per chunk.
		c.Data = c.Data[:len(c.Data):len(c.Data)]
	}
	return c, true
}

var partFields = []string{"type", "text", "format", "data", "tool_call_id"}

// part decodes a MessagePart object.
func (s *jscan) part() (*MessagePart, bool) {
	var p MessagePart
	var seen fields
	n := 0
	if !s.objOpen() {
		return nil, false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return nil, false
		}
		if done {
			return &p, true
		}
		var dst *string
		switch string(key) {
		case "type":
			dst = &p.Type
			ok = seen.first(0)
		case "text":
			dst = &p.Text
			ok = seen.first(1)
		case "format":
			dst = &p.Format
			ok = seen.first(2)
		case "tool_call_id":
			dst = &p.ToolCallID
			ok = seen.first(3)
		case "data":
			if !seen.first(4) {
				return nil, false
			}
			v, ok := s.value()
			if !ok {
				return nil, false
			}
			p.Data = append(json.RawMessage(nil), v...)
			continue
		default:
			if !unknownKey(key, partFields...) || !s.skipMember() {
				return nil, false
			}
			continue
		}
		if !ok {
			return nil, false
		}
		if s.null() {
			continue
		}
		v, ok := s.strValue()
		if !ok {
			return nil, false
		}
		*dst = v
	}
}

var eventFields = []string{"id", "kind", "occurred_at", "session_id", "action_id", "correlation_id", "actor", "data"}

// decodeEventFast decodes an Event object.
func decodeEventFast(raw []byte) (Event, bool) {
	var e Event
	s := jscan{b: raw}
	var seen fields
	n := 0
	if !s.objOpen() {
		return e, false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return e, false
		}
		if done {
			break
		}
		var dst *string
		var rdst *json.RawMessage
		switch string(key) {
		case "id":
			dst, ok = &e.ID, seen.first(0)
		case "kind":
			dst, ok = &e.Kind, seen.first(1)
		case "occurred_at":
			dst, ok = &e.OccurredAt, seen.first(2)
		case "session_id":
			dst, ok = &e.SessionID, seen.first(3)
		case "action_id":
			dst, ok = &e.ActionID, seen.first(4)
		case "correlation_id":
			dst, ok = &e.CorrelationID, seen.first(5)
		case "actor":
			rdst, ok = &e.Actor, seen.first(6)
		case "data":
			rdst, ok = &e.Data, seen.first(7)
		default:
			if !unknownKey(key, eventFields...) || !s.skipMember() {
				return e, false
			}
			continue
		}
		if !ok {
			return e, false
		}
		if rdst != nil {
			v, ok := s.value()
			if !ok {
				return e, false
			}
			*rdst = append(json.RawMessage(nil), v...)
			continue
		}
		if s.null() {
			continue
		}
		lit, plain, ok := s.str()
		if !ok {
			return e, false
		}
		switch {
		case dst == &e.Kind && plain && string(lit) == "aip.stream.chunk":
			e.Kind = "aip.stream.chunk"
		case plain:
			*dst = string(lit)
		default:
			*dst = unquote(lit)
		}
	}
	if !s.end() {
		return e, false
	}
	return e, true
}

// DecodeEvent decodes one runtime Event object.
func DecodeEvent(raw []byte) (Event, error) {
	if e, ok := decodeEventFast(raw); ok {
		return e, nil
	}
	var e Event
	err := json.Unmarshal(raw, &e)
	return e, err
}

// hermesFrame is what interpretation needs of a hermes_sse envelope.
type hermesFrame struct {
	event    string
	data     json.RawMessage
	done     bool // raw_data is the Chat [DONE] marker
	terminal bool

	// Read from data in the same pass, when sure: its top-level event and
	// type strings (probed), and data as a Chat frame (chat).
	probed     bool
	probeEvent string
	probeType  string
	chatOK     bool
	chat       chatFrame
	choice     [1]chatChoice // backing for chat.Choices, which has one choice
	strs       strArena
}

// strArena holds the strings a Chat frame points to, so they do not each
// need an allocation of their own.
type strArena struct {
	s [3]string
	n int
}

func (a *strArena) ptr(v string) *string {
	if a == nil || a.n == len(a.s) {
		return &v
	}
	p := &a.s[a.n]
	*p = v
	a.n++
	return p
}

func hermesOf(h *HermesSSE) hermesFrame {
	return hermesFrame{event: h.Event, data: h.Data, done: h.IsDoneMarker(), terminal: h.Terminal}
}

// name is HermesSSE.Name for the frame.
func (h *hermesFrame) name() string {
	if h.event != "" {
		return h.event
	}
	if len(h.data) == 0 || h.data[0] != '{' {
		return ""
	}
	if h.probed {
		if h.probeEvent != "" {
			return h.probeEvent
		}
		return h.probeType
	}
	if ev, typ, ok := probeNameFast(h.data); ok {
		if ev != "" {
			return ev
		}
		return typ
	}
	full := HermesSSE{Data: h.data}
	return full.Name()
}

// probeNameFast reads the top-level event and type strings of an object.
func probeNameFast(data []byte) (event, typ string, ok bool) {
	s := jscan{b: data}
	var seen fields
	n := 0
	if !s.objOpen() {
		return "", "", false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return "", "", false
		}
		if done {
			break
		}
		var dst *string
		switch string(key) {
		case "event":
			dst, ok = &event, seen.first(0)
		case "type":
			dst, ok = &typ, seen.first(1)
		default:
			if !unknownKey(key, "event", "type") || !s.skipMember() {
				return "", "", false
			}
			continue
		}
		if !ok || s.peek() != '"' {
			return "", "", false
		}
		v, ok := s.strValue()
		if !ok {
			return "", "", false
		}
		*dst = v
	}
	return event, typ, s.end()
}

var chunkDataFields = []string{"hermes_sse", "operation", "reason"}
var hermesFields = []string{"event", "id", "data", "raw_data", "terminal"}

// chunkHint is chunk.data as decoded in the same pass as the chunk
// itself, so interpretation does not read those bytes again. It is valid
// for the Data it was decoded from (data): the bytes are never changed.
type chunkHint struct {
	data   []byte
	h      hermesFrame
	hermes bool
	op     string
	reason string
}

// hintFor returns c's hint when it was decoded from c's Data.
func hintFor(c *StreamChunk) *chunkHint {
	h := c.hint
	if h == nil || len(h.data) != len(c.Data) || len(c.Data) == 0 || &h.data[0] != &c.Data[0] {
		return nil
	}
	return h
}

// decodeChunkDataFast decodes chunk.data ({"hermes_sse":…, "operation",
// "reason"}). hermes is false when there is no hermes_sse object.
func decodeChunkDataFast(data []byte) (h hermesFrame, hermes bool, op, reason string, ok bool) {
	s := jscan{b: data}
	hermes, op, reason, ok = s.chunkData(&h)
	if !ok || !s.end() {
		return hermesFrame{}, false, "", "", false
	}
	return h, hermes, op, reason, true
}

func (s *jscan) chunkData(h *hermesFrame) (hermes bool, op, reason string, ok bool) {
	var seen fields
	n := 0
	if !s.objOpen() {
		return false, "", "", false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false, "", "", false
		}
		if done {
			return hermes, op, reason, true
		}
		switch string(key) {
		case "hermes_sse":
			if !seen.first(0) {
				return false, "", "", false
			}
			if s.null() {
				continue
			}
			if !s.hermes(h) {
				return false, "", "", false
			}
			hermes = true
		case "operation", "reason":
			dst, bit := &op, 1
			if key[0] == 'r' {
				dst, bit = &reason, 2
			}
			if !seen.first(bit) || s.peek() != '"' {
				return false, "", "", false
			}
			v, ok := s.strValue()
			if !ok {
				return false, "", "", false
			}
			*dst = v
		default:
			if !unknownKey(key, chunkDataFields...) || !s.skipMember() {
				return false, "", "", false
			}
		}
	}
}

// hermes decodes a hermes_sse object. raw_data is not kept: only whether
// it is the [DONE] marker.
func (s *jscan) hermes(h *hermesFrame) bool {
	*h = hermesFrame{}
	var seen fields
	n := 0
	if !s.objOpen() {
		return false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "event", "id":
			bit := 0
			if key[0] == 'i' {
				bit = 1
			}
			if !seen.first(bit) || s.peek() != '"' {
				return false
			}
			v, ok := s.strValue()
			if !ok {
				return false
			}
			if key[0] == 'e' {
				h.event = v
			}
		case "data":
			if !seen.first(2) {
				return false
			}
			start := s.i
			if s.peek() == '{' && s.hermesData(h) {
				h.data = s.b[start:s.i]
				continue
			}
			s.i = start
			v, ok := s.value()
			if !ok {
				return false
			}
			h.data = v
		case "raw_data":
			if !seen.first(3) || s.peek() != '"' {
				return false
			}
			lit, plain, ok := s.str()
			if !ok {
				return false
			}
			// "[DONE]" (trimmed, like the connector) written with escapes is
			// short; isDoneText bounds what it trims.
			h.done = (plain && len(lit) <= 64 && isDoneText(string(lit))) || (!plain && len(lit) <= 6*64 && isDoneText(unquote(lit)))
		case "terminal":
			if !seen.first(4) {
				return false
			}
			v, ok := s.boolValue()
			if !ok {
				return false
			}
			h.terminal = v
		default:
			if !unknownKey(key, hermesFields...) || !s.skipMember() {
				return false
			}
		}
	}
}

var chatFields = []string{"id", "model", "choices", "usage", "error", "hermes"}

// decodeChatFast decodes a Chat frame whose usage and hermes objects are
// absent or null (every delta; a finish chunk takes encoding/json).
func decodeChatFast(data []byte, f *chatFrame) bool {
	s := jscan{b: data}
	var seen fields
	n := 0
	if !s.objOpen() {
		return false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(key) {
		case "id", "model":
			bit := 0
			if key[0] == 'm' {
				bit = 1
			}
			if !seen.first(bit) {
				return false
			}
			if s.null() {
				continue
			}
			if s.peek() != '"' {
				return false
			}
			v, ok := s.strValue()
			if !ok {
				return false
			}
			if key[0] == 'i' {
				f.ID = v
			} else {
				f.Model = v
			}
		case "choices":
			if !seen.first(2) {
				return false
			}
			if s.null() {
				f.Choices = nil
				continue
			}
			if !s.choices(f, nil) {
				return false
			}
		case "usage", "hermes":
			bit := 3
			if key[0] == 'h' {
				bit = 4
			}
			if !seen.first(bit) || !s.null() {
				return false
			}
		case "error":
			if !seen.first(5) {
				return false
			}
			v, ok := s.value()
			if !ok {
				return false
			}
			f.Error = v
		default:
			if !unknownKey(key, chatFields...) || !s.skipMember() {
				return false
			}
		}
	}
	return s.end()
}

func (s *jscan) choices(f *chatFrame, arena *strArena) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	f.Choices = f.Choices[:0]
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		var ch chatChoice
		if !s.choice(&ch, arena) {
			return false
		}
		f.Choices = append(f.Choices, ch)
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

var choiceFields = []string{"delta", "finish_reason"}
var deltaFields = []string{"role", "content", "reasoning_content"}

func (s *jscan) choice(ch *chatChoice, arena *strArena) bool {
	var seen fields
	n := 0
	if !s.objOpen() {
		return false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "delta":
			if !seen.first(0) || !s.delta(&ch.Delta, arena) {
				return false
			}
		case "finish_reason":
			if !seen.first(1) {
				return false
			}
			if !s.optString(&ch.FinishReason, arena) {
				return false
			}
		default:
			if !unknownKey(key, choiceFields...) || !s.skipMember() {
				return false
			}
		}
	}
}

func (s *jscan) delta(d *chatDelta, arena *strArena) bool {
	if s.null() {
		return true // a null delta leaves it as it is
	}
	var seen fields
	n := 0
	if !s.objOpen() {
		return false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var dst **string
		switch string(key) {
		case "role":
			dst, ok = &d.Role, seen.first(0)
		case "content":
			dst, ok = &d.Content, seen.first(1)
		case "reasoning_content":
			dst, ok = &d.ReasoningContent, seen.first(2)
		default:
			if !unknownKey(key, deltaFields...) || !s.skipMember() {
				return false
			}
			continue
		}
		if !ok || !s.optString(dst, arena) {
			return false
		}
	}
}

// optString reads a string into a *string field: null sets it to nil.
func (s *jscan) optString(dst **string, arena *strArena) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if s.peek() != '"' {
		return false
	}
	v, ok := s.strValue()
	if !ok {
		return false
	}
	*dst = arena.ptr(v)
	return true
}

// hermesData reads hermes_sse.data, an object, in one pass: its event and
// type strings for the name probe, and its Chat frame fields. What it is
// not sure of it skips (validating) and leaves to the slow path; it fails
// only on malformed JSON.
func (s *jscan) hermesData(h *hermesFrame) bool {
	var seen fields
	n := 0
	probeOK, chatOK := true, true
	f := &h.chat
	*f = chatFrame{Choices: h.choice[:0]}
	var ev, typ string
	if !s.objOpen() {
		return false
	}
	for {
		start := s.i
		key, done, ok := s.objKey(&n)
		if !ok {
			// An escaped or non-ASCII key: neither decoder is sure. Read
			// the member the generic way.
			s.i = start
			if !s.genericMember(&n) {
				return false
			}
			probeOK, chatOK = false, false
			continue
		}
		if done {
			break
		}
		vstart := s.i
		sure := true
		switch string(key) {
		case "event", "type":
			bit, dst := 0, &ev
			if key[0] == 't' {
				bit, dst = 1, &typ
			}
			if sure = seen.first(bit) && s.peek() == '"'; sure {
				*dst, sure = s.strValue()
			}
			if !sure {
				probeOK = false
			}
		case "id", "model", "choices", "usage", "hermes", "error":
			sure = s.chatMember(key, &seen, f, &h.strs)
			if !sure {
				chatOK = false
			}
		default:
			if !unknownKey(key, "event", "type") {
				probeOK, sure = false, false
			}
			if !unknownKey(key, chatFields...) {
				chatOK, sure = false, false
			}
			if sure && !s.skipMember() {
				return false
			}
		}
		if !sure {
			s.i = vstart
			if !s.skipMember() {
				return false
			}
		}
	}
	h.probed, h.probeEvent, h.probeType = probeOK, ev, typ
	h.chatOK = chatOK
	return true
}

// genericMember reads one member with any key (after a comma when n > 0).
func (s *jscan) genericMember(n *int) bool {
	if *n > 0 {
		if s.peek() != ',' {
			return false
		}
		s.i++
	}
	s.ws()
	if _, _, ok := s.str(); !ok || s.peek() != ':' {
		return false
	}
	s.i++
	*n++
	return s.skipMember()
}

// chatMember reads one of the Chat frame's keys into f (the bits 10…15 of
// seen). false: not sure (the caller rewinds and skips).
func (s *jscan) chatMember(key []byte, seen *fields, f *chatFrame, arena *strArena) bool {
	switch string(key) {
	case "id", "model":
		bit := 10
		if key[0] == 'm' {
			bit = 11
		}
		if !seen.first(bit) {
			return false
		}
		if s.null() {
			return true
		}
		if s.peek() != '"' {
			return false
		}
		v, ok := s.strValue()
		if !ok {
			return false
		}
		if key[0] == 'i' {
			f.ID = v
		} else {
			f.Model = v
		}
		return true
	case "choices":
		if !seen.first(12) {
			return false
		}
		if s.null() {
			f.Choices = nil
			return true
		}
		return s.choices(f, arena)
	case "usage", "hermes":
		bit := 13
		if key[0] == 'h' {
			bit = 14
		}
		return seen.first(bit) && s.null()
	case "error":
		if !seen.first(15) {
			return false
		}
		v, ok := s.value()
		if !ok {
			return false
		}
		f.Error = v
		return true
	}
	return false
}

var resultFields = []string{"action_id", "status", "output", "message", "usage", "error"}
var aggFields = []string{"endpoint_id", "operation", "http_status", "events", "text", "terminal", "truncated"}

// decodeResultFast decodes an ActionResult in one pass, its connector
// aggregate included. Raw values (output, usage, message data, the
// aggregate's events) share raw instead of being copied: a long turn's
// result lists every provider frame, twice.
func decodeResultFast(raw []byte) (ActionResult, bool) {
	var r ActionResult
	s := jscan{b: raw}
	var seen fields
	n := 0
	if !s.objOpen() {
		return r, false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return r, false
		}
		if done {
			break
		}
		switch string(key) {
		case "action_id", "status":
			bit, dst := 0, &r.ActionID
			if key[0] == 's' {
				bit, dst = 1, &r.Status
			}
			if !seen.first(bit) || s.peek() != '"' {
				return r, false
			}
			if *dst, ok = s.strValue(); !ok {
				return r, false
			}
		case "output":
			if !seen.first(2) {
				return r, false
			}
			start := s.i
			var agg ConnectorOutput
			isAgg := false
			if s.peek() == '{' {
				if isAgg = s.aggregate(&agg); !isAgg {
					s.i = start
				}
			}
			if !isAgg {
				if _, ok := s.value(); !ok {
					return r, false
				}
			}
			r.Output = s.b[start:s.i:s.i]
			if isAgg && (agg.Operation != "" || agg.Terminal != nil || agg.Truncated != nil) {
				r.Aggregate = &agg
			}
		case "message":
			if !seen.first(3) || !s.messageParts(&r.Message) {
				return r, false
			}
		case "usage":
			if !seen.first(4) {
				return r, false
			}
			v, ok := s.value()
			if !ok {
				return r, false
			}
			r.Usage = v[:len(v):len(v)]
		case "error":
			if !seen.first(5) {
				return r, false
			}
			if s.null() {
				continue
			}
			v, ok := s.value()
			if !ok {
				return r, false
			}
			var pe ProtocolError
			if json.Unmarshal(v, &pe) != nil {
				return r, false
			}
			r.Error = &pe
		default:
			if !unknownKey(key, resultFields...) || !s.skipMember() {
				return r, false
			}
		}
	}
	if !s.end() {
		return r, false
	}
	if r.Aggregate == nil && len(r.Output) > 0 && r.Output[0] == '{' {
		r.decodeAggregate() // an object the one-pass reader was not sure of
	}
	return r, true
}

// aggregate decodes a ConnectorOutput object; false when not sure.
func (s *jscan) aggregate(a *ConnectorOutput) bool {
	var seen fields
	n := 0
	if !s.objOpen() {
		return false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(key) {
		case "endpoint_id", "operation", "text":
			bit, dst := 0, &a.EndpointID
			switch key[0] {
			case 'o':
				bit, dst = 1, &a.Operation
			case 't':
				bit, dst = 2, &a.Text
			}
			if !seen.first(bit) || s.peek() != '"' {
				return false
			}
			if *dst, ok = s.strValue(); !ok {
				return false
			}
		case "http_status":
			if !seen.first(3) {
				return false
			}
			lit, ok := s.number()
			if !ok {
				return false
			}
			v, err := strconv.Atoi(string(lit))
			if err != nil {
				return false
			}
			a.HTTPStatus = v
		case "events":
			if !seen.first(4) {
				return false
			}
			v, ok := s.value()
			if !ok {
				return false
			}
			a.Events = v[:len(v):len(v)]
		case "terminal", "truncated":
			bit, dst := 5, &a.Terminal
			if key[1] == 'r' {
				bit, dst = 6, &a.Truncated
			}
			if !seen.first(bit) {
				return false
			}
			if s.null() {
				*dst = nil
				continue
			}
			v, ok := s.boolValue()
			if !ok {
				return false
			}
			*dst = &v
		default:
			if !unknownKey(key, aggFields...) || !s.skipMember() {
				return false
			}
		}
	}
}

// messageParts decodes the result's message: an array of MessagePart.
func (s *jscan) messageParts(dst *[]MessagePart) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if s.peek() != '[' {
		return false
	}
	s.i++
	parts := []MessagePart{}
	if s.peek() == ']' {
		s.i++
		*dst = parts
		return true
	}
	for {
		s.ws()
		p, ok := s.partShared()
		if !ok {
			return false
		}
		parts = append(parts, p)
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			*dst = parts
			return true
		default:
			return false
		}
	}
}

// partShared decodes a MessagePart whose data shares the input.
func (s *jscan) partShared() (MessagePart, bool) {
	start := s.i
	if s.peek() == '{' {
		save := s.i
		// data is the bulky member: read it as a shared slice, the rest
		// with part (which copies data).
		var p MessagePart
		var seen fields
		n := 0
		s.objOpen()
		for {
			key, done, ok := s.objKey(&n)
			if !ok {
				break
			}
			if done {
				return p, true
			}
			if string(key) == "data" {
				if !seen.first(4) {
					break
				}
				v, ok := s.value()
				if !ok {
					break
				}
				p.Data = v[:len(v):len(v)]
				continue
			}
			var dst *string
			switch string(key) {
			case "type":
				dst, ok = &p.Type, seen.first(0)
			case "text":
				dst, ok = &p.Text, seen.first(1)
			case "format":
				dst, ok = &p.Format, seen.first(2)
			case "tool_call_id":
				dst, ok = &p.ToolCallID, seen.first(3)
			default:
				ok = unknownKey(key, partFields...) && s.skipMember()
				if ok {
					continue
				}
			}
			if !ok {
				break
			}
			if s.null() {
				continue
			}
			v, ok := s.strValue()
			if !ok {
				break
			}
			*dst = v
		}
		s.i = save
	}
	s.i = start
	return MessagePart{}, false
}

// PageParts is an events page body ({"events":[…],"chunks":[…],
// "cursor":…,"terminal":…}) split into its items without decoding them;
// the items share the input.
type PageParts struct {
	Events   []json.RawMessage
	Chunks   []json.RawMessage
	Cursor   *string
	Terminal bool
}

var pageFields = []string{"events", "chunks", "cursor", "terminal"}

// SplitPage splits an events page as encoding/json would decode it into
// PageParts; ok is false when the one-pass reader is not sure (the caller
// then uses encoding/json).
func SplitPage(b []byte) (p PageParts, ok bool) {
	s := jscan{b: b}
	var seen fields
	n := 0
	if !s.objOpen() {
		return p, false
	}
	for {
		key, done, ok := s.objKey(&n)
		if !ok {
			return p, false
		}
		if done {
			break
		}
		switch string(key) {
		case "events", "chunks":
			bit, dst := 0, &p.Events
			if key[0] == 'c' {
				bit, dst = 1, &p.Chunks
			}
			if !seen.first(bit) || !s.rawArray(dst) {
				return p, false
			}
		case "cursor":
			if !seen.first(2) {
				return p, false
			}
			if s.null() {
				p.Cursor = nil
				continue
			}
			if s.peek() != '"' {
				return p, false
			}
			v, ok := s.strValue()
			if !ok {
				return p, false
			}
			p.Cursor = &v
		case "terminal":
			if !seen.first(3) {
				return p, false
			}
			if p.Terminal, ok = s.boolValue(); !ok {
				return p, false
			}
		default:
			if !unknownKey(key, pageFields...) || !s.skipMember() {
				return p, false
			}
		}
	}
	return p, s.end()
}

func (s *jscan) rawArray(dst *[]json.RawMessage) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if s.peek() != '[' {
		return false
	}
	s.i++
	out := []json.RawMessage{}
	if s.peek() == ']' {
		s.i++
		*dst = out
		return true
	}
	for {
		v, ok := s.value()
		if !ok {
			return false
		}
		out = append(out, v[:len(v):len(v)])
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			*dst = out
			return true
		default:
			return false
		}
	}
}

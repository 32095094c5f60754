package model

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The shapes of every frame (see fastjson.go): one table a shape, read by
// the one object walk. Each decoder returns ok == false when it is not
// sure; its caller then decodes with encoding/json as it always did.

// chunkShape is a StreamChunk. Data aliases the input; when data is a
// connector object it is decoded in the same pass (the chunk's hint).
var chunkShape = objShape[StreamChunk]{fields: []field[StreamChunk]{
	// A chunk of the action takes the action's own ID string when ingested
	// (Action.IngestChunk): a view of the chunk's bytes until then.
	{name: "action_id", dec: func(s *jscan, c *StreamChunk) bool { return s.viewInto(&c.ActionID) }},
	{name: "sequence", dec: func(s *jscan, c *StreamChunk) bool { return s.uintInto(&c.Sequence) }},
	{name: "kind", dec: func(s *jscan, c *StreamChunk) bool {
		return into(s, &c.Kind, func(s *jscan) (ChunkKind, bool) { k, ok := s.strAs(internKind); return ChunkKind(k), ok })
	}},
	{name: "data", dec: func(s *jscan, c *StreamChunk) bool {
		start := s.i
		if s.peek() == '{' {
			hint := s.newHint()
			if _, ok := object(s, hint, &chunkDataShape); ok {
				c.Data = s.b[start:s.i:s.i]
				hint.data = c.Data
				c.hint = hint
				return true
			}
			s.i = start
		}
		// encoding/json copies a RawMessage; ours shares the chunk's own
		// bytes. Same bytes, one allocation less per chunk.
		return s.rawShared(&c.Data)
	}},
	{name: "part", dec: func(s *jscan, c *StreamChunk) bool {
		return ptrInto(s, &c.Part, func(s *jscan, p *MessagePart) bool { _, ok := object(s, p, &partShape); return ok })
	}},
}}

// partShape is a MessagePart with a data of its own; partSharedShape one
// whose data shares the input (the result's message: for a long turn the
// aggregate's copy of every provider frame).
var partShape, partSharedShape = partShapes()

func partShapes() (own, shared objShape[MessagePart]) {
	strs := []field[MessagePart]{
		{name: "type", dec: func(s *jscan, p *MessagePart) bool { return s.strInto(&p.Type) }},
		{name: "text", dec: func(s *jscan, p *MessagePart) bool { return s.strInto(&p.Text) }},
		{name: "format", dec: func(s *jscan, p *MessagePart) bool { return s.strInto(&p.Format) }},
		{name: "tool_call_id", dec: func(s *jscan, p *MessagePart) bool { return s.strInto(&p.ToolCallID) }},
	}
	own.fields = append(strs[:4:4], field[MessagePart]{name: "data", dec: func(s *jscan, p *MessagePart) bool { return s.rawCopy(&p.Data) }})
	shared.fields = append(strs[:4:4], field[MessagePart]{name: "data", dec: func(s *jscan, p *MessagePart) bool { return s.rawShared(&p.Data) }})
	return own, shared
}

// decodeChunkFast decodes a StreamChunk object. Data aliases raw.
func decodeChunkFast(raw []byte) (StreamChunk, bool) { return whole(raw, &chunkShape) }

// eventShape is a runtime Event with strings and bytes of its own;
// eventViewShape one whose strings and bytes are views of the input, for
// a page's events (whose bytes never change): aip.stream.chunk events, one
// a chunk, are read and dropped, and Action.IngestEvent copies the others
// it keeps.
var eventShape, eventViewShape = eventShapes()

func eventShapes() (own, view objShape[Event]) {
	for _, v := range []struct {
		shape *objShape[Event]
		str   func(*jscan) (string, bool)
		raw   func(*jscan, *json.RawMessage) bool
	}{{&own, (*jscan).strValue, (*jscan).rawCopy}, {&view, (*jscan).strView, (*jscan).rawShared}} {
		str, raw := v.str, v.raw
		v.shape.fields = []field[Event]{
			{name: "id", dec: func(s *jscan, e *Event) bool { return into(s, &e.ID, str) }},
			{name: "kind", dec: func(s *jscan, e *Event) bool {
				return into(s, &e.Kind, func(s *jscan) (string, bool) { return s.strAs(internKind) })
			}},
			{name: "occurred_at", dec: func(s *jscan, e *Event) bool { return into(s, &e.OccurredAt, str) }},
			{name: "session_id", dec: func(s *jscan, e *Event) bool { return into(s, &e.SessionID, str) }},
			{name: "action_id", dec: func(s *jscan, e *Event) bool { return into(s, &e.ActionID, str) }},
			{name: "correlation_id", dec: func(s *jscan, e *Event) bool { return into(s, &e.CorrelationID, str) }},
			{name: "actor", dec: func(s *jscan, e *Event) bool { return raw(s, &e.Actor) }},
			{name: "data", dec: func(s *jscan, e *Event) bool { return raw(s, &e.Data) }},
		}
	}
	return own, view
}

// DecodeEventShared is DecodeEvent whose strings and bytes may be views of
// raw, which must not change afterwards (an SSE frame's own copy):
// aip.stream.chunk events, one a chunk, are read and dropped, and
// Action.IngestEvent copies the others it keeps.
func DecodeEventShared(raw []byte) (Event, error) { return decodeEvent(raw, &eventViewShape) }

// DecodeEvent decodes one runtime Event object.
func DecodeEvent(raw []byte) (Event, error) { return decodeEvent(raw, &eventShape) }

// decodeEvent reads an Event in one pass with sh, or with encoding/json
// when that pass is not sure.
func decodeEvent(raw []byte, sh *objShape[Event]) (Event, error) {
	if e, ok := whole(raw, sh); ok {
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
		// new, not &v: v would then escape, and be allocated on every
		// call, the arena's too (one allocation a chunk).
		p := new(string)
		*p = v
		return p
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

// chunkDataShape is chunk.data: {"hermes_sse":…, "operation", "reason"}.
var chunkDataShape = objShape[chunkHint]{fields: []field[chunkHint]{
	{name: "hermes_sse", dec: func(s *jscan, d *chunkHint) bool {
		if s.null() {
			return true
		}
		d.h = hermesFrame{}
		_, ok := object(s, &d.h, &hermesShape)
		d.hermes = ok
		return ok
	}},
	{name: "operation", dec: func(s *jscan, d *chunkHint) bool { return s.strInto(&d.op) }},
	{name: "reason", dec: func(s *jscan, d *chunkHint) bool { return s.strInto(&d.reason) }},
}}

// decodeChunkDataFast decodes chunk.data. hermes is false when there is no
// hermes_sse object.
func decodeChunkDataFast(data []byte) (h hermesFrame, hermes bool, op, reason string, ok bool) {
	d, ok := whole(data, &chunkDataShape)
	return d.h, d.hermes, d.op, d.reason, ok
}

// hermesShape is a hermes_sse object. raw_data is not kept: only whether
// it is the [DONE] marker.
var hermesShape = objShape[hermesFrame]{fields: []field[hermesFrame]{
	{name: "event", dec: func(s *jscan, h *hermesFrame) bool { return s.strInto(&h.event) }},
	{name: "id", dec: func(s *jscan, _ *hermesFrame) bool { return s.strCheck() }},
	{name: "data", dec: func(s *jscan, h *hermesFrame) bool {
		start := s.i
		if s.peek() == '{' {
			if hermesData(s, h) {
				h.data = s.b[start:s.i:s.i]
				return true
			}
			s.i = start
		}
		return s.rawShared(&h.data)
	}},
	{name: "raw_data", dec: func(s *jscan, h *hermesFrame) bool {
		if s.null() {
			return true
		}
		lit, plain, ok := s.str()
		h.done = ok && maybeDone(lit, plain)
		return ok
	}},
	{name: "terminal", dec: func(s *jscan, h *hermesFrame) bool { return s.boolInto(&h.terminal) }},
}}

// maybeDone reports whether a raw_data literal is the [DONE] marker
// (trimmed, like the connector). Written with escapes it is short
// (isDoneText bounds what it trims), and it starts with a space, an escape
// or '[' (a Unicode space is a byte outside ASCII): a Chat frame's
// raw_data, escaped quotes and all, is not unquoted to find that out.
func maybeDone(lit []byte, plain bool) bool {
	if plain {
		return len(lit) <= 64 && isDoneText(string(lit))
	}
	c := lit[0] // not plain: not empty
	return len(lit) <= 6*64 && (c == ' ' || c == '\\' || c == '[' || c >= utf8.RuneSelf) && isDoneText(unquote(lit))
}

// The groups of the soft hermesDataShape: the name probe and the Chat frame.
const (
	groupProbe uint32 = 1 << iota
	groupChat
)

// hermesDataShape reads hermes_sse.data, an object, in one pass for two
// readers: its event and type strings for the name probe, and its Chat
// frame. It is soft: what one reader is not sure of leaves that reader to
// the slow path, not the other.
var hermesDataShape = objShape[hermesFrame]{soft: true, fields: []field[hermesFrame]{
	{name: "event", group: groupProbe, dec: func(s *jscan, h *hermesFrame) bool { return s.peek() == '"' && s.strInto(&h.probeEvent) }},
	{name: "type", group: groupProbe, dec: func(s *jscan, h *hermesFrame) bool { return s.peek() == '"' && s.strInto(&h.probeType) }},
	{name: "id", group: groupChat, dec: func(s *jscan, h *hermesFrame) bool { return s.viewInto(&h.chat.ID) }},
	{name: "model", group: groupChat, dec: func(s *jscan, h *hermesFrame) bool { return s.viewInto(&h.chat.Model) }},
	{name: "choices", group: groupChat, dec: func(s *jscan, h *hermesFrame) bool {
		if s.null() {
			h.chat.Choices = nil
			return true
		}
		return array(s, h, func(s *jscan, h *hermesFrame) bool {
			h.chat.Choices = append(h.chat.Choices, chatChoice{})
			_, ok := object(s, h, &choiceShape)
			return ok
		})
	}},
	// A finish chunk's usage and hermes objects take encoding/json.
	{name: "usage", group: groupChat, dec: func(s *jscan, _ *hermesFrame) bool { return s.null() }},
	{name: "hermes", group: groupChat, dec: func(s *jscan, _ *hermesFrame) bool { return s.null() }},
	{name: "error", group: groupChat, dec: func(s *jscan, h *hermesFrame) bool { return s.rawShared(&h.chat.Error) }},
}}

// hermesData decodes hermes_sse.data into h (probed, chatOK: what it was
// sure of); false only for malformed JSON.
func hermesData(s *jscan, h *hermesFrame) bool {
	h.chat = chatFrame{Choices: h.choice[:0]}
	h.probeEvent, h.probeType = "", ""
	unsure, ok := object(s, h, &hermesDataShape)
	h.probed = ok && unsure&groupProbe == 0
	h.chatOK = ok && unsure&groupChat == 0
	return ok
}

// choiceShape and deltaShape read a Chat choice into the last of
// h.chat.Choices; its strings go to h.strs while it has room.
var choiceShape = objShape[hermesFrame]{fields: []field[hermesFrame]{
	{name: "delta", dec: func(s *jscan, h *hermesFrame) bool {
		if s.null() {
			return true // a null delta leaves it as it is
		}
		_, ok := object(s, h, &deltaShape)
		return ok
	}},
	{name: "finish_reason", dec: func(s *jscan, h *hermesFrame) bool { return s.strPtr(&h.lastChoice().FinishReason, &h.strs) }},
}}

var deltaShape = objShape[hermesFrame]{fields: []field[hermesFrame]{
	{name: "role", dec: func(s *jscan, h *hermesFrame) bool { return s.strPtr(&h.lastChoice().Delta.Role, &h.strs) }},
	{name: "content", dec: func(s *jscan, h *hermesFrame) bool { return s.strPtr(&h.lastChoice().Delta.Content, &h.strs) }},
	{name: "reasoning_content", dec: func(s *jscan, h *hermesFrame) bool {
		return s.strPtr(&h.lastChoice().Delta.ReasoningContent, &h.strs)
	}},
}}

func (h *hermesFrame) lastChoice() *chatChoice { return &h.chat.Choices[len(h.chat.Choices)-1] }

// decodeChatFast decodes a Chat frame whose usage and hermes objects are
// absent or null (every delta; a finish chunk takes encoding/json).
func decodeChatFast(data []byte, f *chatFrame) bool {
	h := new(hermesFrame)
	s := jscan{b: data}
	if !hermesData(&s, h) || !s.end() || !h.chatOK {
		return false
	}
	*f = h.chat
	return true
}

// probeNameFast reads the top-level event and type strings of an object.
func probeNameFast(data []byte) (event, typ string, ok bool) {
	var h hermesFrame
	s := jscan{b: data}
	if !hermesData(&s, &h) || !s.end() || !h.probed {
		return "", "", false
	}
	return h.probeEvent, h.probeType, true
}

// resultShape is an ActionResult, its connector aggregate included. Raw
// values (output, usage, message data, the aggregate's events) share the
// input instead of being copied: a long turn's result lists every provider
// frame, twice.
var resultShape = objShape[ActionResult]{fields: []field[ActionResult]{
	{name: "action_id", dec: func(s *jscan, r *ActionResult) bool { return s.peek() == '"' && s.strInto(&r.ActionID) }},
	{name: "status", dec: func(s *jscan, r *ActionResult) bool { return s.peek() == '"' && s.strInto(&r.Status) }},
	{name: "output", dec: func(s *jscan, r *ActionResult) bool {
		start := s.i
		if s.peek() == '{' {
			agg := new(ConnectorOutput)
			if _, ok := object(s, agg, &aggregateShape); ok {
				r.Output = s.b[start:s.i:s.i]
				if agg.Operation != "" || agg.Terminal != nil || agg.Truncated != nil {
					r.Aggregate = agg
				}
				return true
			}
			s.i = start
		}
		return s.rawShared(&r.Output)
	}},
	{name: "message", dec: func(s *jscan, r *ActionResult) bool { return objectsInto(s, &r.Message, &partSharedShape) }},
	{name: "usage", dec: func(s *jscan, r *ActionResult) bool { return s.rawShared(&r.Usage) }},
	{name: "error", dec: func(s *jscan, r *ActionResult) bool {
		if s.null() {
			return true
		}
		v, ok := s.value()
		if !ok {
			return false
		}
		var pe ProtocolError
		if json.Unmarshal(v, &pe) != nil {
			return false
		}
		r.Error = &pe
		return true
	}},
}}

// aggregateShape is the connector aggregate (ActionResult.output).
var aggregateShape = objShape[ConnectorOutput]{fields: []field[ConnectorOutput]{
	{name: "endpoint_id", dec: func(s *jscan, a *ConnectorOutput) bool { return s.strInto(&a.EndpointID) }},
	{name: "operation", dec: func(s *jscan, a *ConnectorOutput) bool { return s.strInto(&a.Operation) }},
	{name: "http_status", dec: func(s *jscan, a *ConnectorOutput) bool { return s.intInto(&a.HTTPStatus) }},
	{name: "events", dec: func(s *jscan, a *ConnectorOutput) bool { return s.rawShared(&a.Events) }},
	{name: "text", dec: func(s *jscan, a *ConnectorOutput) bool { return s.strInto(&a.Text) }},
	{name: "terminal", dec: func(s *jscan, a *ConnectorOutput) bool { return s.boolPtr(&a.Terminal) }},
	{name: "truncated", dec: func(s *jscan, a *ConnectorOutput) bool { return s.boolPtr(&a.Truncated) }},
}}

// decodeResultFast decodes an ActionResult in one pass.
func decodeResultFast(raw []byte) (ActionResult, bool) {
	r, ok := whole(raw, &resultShape)
	if !ok {
		return r, false
	}
	if r.Aggregate == nil && len(r.Output) > 0 && r.Output[0] == '{' {
		r.decodeAggregate() // an object the one-pass reader was not sure of
	}
	return r, true
}

// Page is an events page ({"events":[…],"chunks":[…],"cursor":…,
// "terminal":…}) decoded: its items, each beside the bytes it came from.
// Chunks keep the page's bytes as their Raw (and Data within it), unless
// they are less than half of its buffer (chunksApart).
type Page struct {
	Events    []Event
	RawEvents []json.RawMessage
	Chunks    []StreamChunk
	Cursor    *string
	Terminal  bool
	// BadEvents and BadChunks count the items that do not decode (left
	// out).
	BadEvents, BadChunks int
}

// pageParts is an events page as encoding/json decodes it (the slow path).
type pageParts struct {
	Events   []json.RawMessage
	Chunks   []json.RawMessage
	Cursor   *string
	Terminal bool
}

// pageShape is an events page; each item is decoded in the page's own
// pass, and one the walk is not sure of (or that does not decode) is
// decoded on its own the slow way.
var pageShape = objShape[Page]{fields: []field[Page]{
	{name: "events", dec: func(s *jscan, p *Page) bool {
		if s.null() {
			return true
		}
		return array(s, p, func(s *jscan, p *Page) bool {
			start := s.i
			// Decoded in place: a decoder's target escapes, and a local
			// Event would be an allocation each.
			p.Events = append(p.Events, Event{})
			if _, ok := object(s, &p.Events[len(p.Events)-1], &eventViewShape); ok {
				p.RawEvents = append(p.RawEvents, s.b[start:s.i:s.i])
				return true
			}
			p.Events = p.Events[:len(p.Events)-1]
			s.i = start
			v, ok := s.value()
			if ok {
				e, err := DecodeEvent(v)
				p.addEvent(e, err, v[:len(v):len(v)])
			}
			return ok
		})
	}},
	{name: "chunks", dec: func(s *jscan, p *Page) bool {
		if s.null() {
			return true
		}
		return array(s, p, func(s *jscan, p *Page) bool {
			start := s.i
			p.Chunks = append(p.Chunks, StreamChunk{})
			c := &p.Chunks[len(p.Chunks)-1]
			if _, ok := object(s, c, &chunkShape); ok {
				c.Raw = s.b[start:s.i:s.i]
				return true
			}
			p.Chunks = p.Chunks[:len(p.Chunks)-1]
			s.i = start
			v, ok := s.value()
			if ok {
				p.addChunkSlow(v[:len(v):len(v)])
			}
			return ok
		})
	}},
	{name: "cursor", dec: func(s *jscan, p *Page) bool {
		if s.null() {
			p.Cursor = nil
			return true
		}
		v, ok := s.strValue()
		p.Cursor = &v
		return ok
	}},
	{name: "terminal", dec: func(s *jscan, p *Page) bool { return s.boolInto(&p.Terminal) }},
}}

func (p *Page) addEvent(e Event, err error, raw []byte) {
	if err != nil {
		p.BadEvents++
		return
	}
	p.Events = append(p.Events, e)
	p.RawEvents = append(p.RawEvents, raw)
}

func (p *Page) addChunkSlow(raw []byte) {
	c, err := DecodeChunkOwned(raw)
	if err != nil {
		p.BadChunks++
		return
	}
	p.Chunks = append(p.Chunks, c)
}

// chunksApart gives the page's chunks bytes of their own when they are
// less than half of b's buffer. A chunk keeps its raw bytes as views of
// the page (no copy on the usual pages, nearly all chunks), and a view
// keeps the whole buffer: the raw cap counts the chunks' bytes, so a page
// of many events and a few chunks (or a few small ones) held up to a page
// for each counted chunk (the raw cap bounds what it says it
// bounds). The chunks are decoded again from one copy of their bytes;
// it happens only on such pages, for the fewer bytes. A page buffer is
// thus kept only for chunks that are at least half of it.
func (p *Page) chunksApart(b []byte) {
	total := 0
	for i := range p.Chunks {
		total += len(p.Chunks[i].Raw)
	}
	if len(p.Chunks) == 0 || 2*total >= cap(b) {
		return
	}
	own := make([]byte, 0, total)
	for i := range p.Chunks {
		start := len(own)
		own = append(own, p.Chunks[i].Raw...)
		// The same bytes decoded before: this cannot fail, and if it
		// did, the chunk would keep its view (the old bound, not a loss).
		if c, err := DecodeChunkOwned(own[start:len(own):len(own)]); err == nil {
			p.Chunks[i] = c
		}
	}
}

// DecodePage decodes an events page as encoding/json and DecodeEvent and
// DecodeChunk item by item would, in one pass. The chunks keep b as their
// Raw: b must not change afterwards. An error means b is not a page.
func DecodePage(b []byte) (Page, error) { return DecodePageSized(b, PageSize{}) }

// PageSize is how many events and chunks a page is expected to hold.
type PageSize struct{ Events, Chunks int }

// DecodePageSized is DecodePage with room made for size's items (a
// reader of pages in a row passes the last one's counts, the best guess
// of the next: a page's slices are then not grown from one, which cost
// about twice their final size in garbage). More items than that are
// decoded all the same.
func DecodePageSized(b []byte, size PageSize) (Page, error) {
	var room Page
	if size.Events > 0 {
		room.Events = make([]Event, 0, size.Events)
		room.RawEvents = make([]json.RawMessage, 0, size.Events)
	}
	if size.Chunks > 0 {
		room.Chunks = make([]StreamChunk, 0, size.Chunks)
	}
	if p, ok := wholeFrom(b, &pageShape, room); ok {
		p.chunksApart(b)
		return p, nil
	}
	var parts pageParts
	if err := json.Unmarshal(b, &parts); err != nil {
		return Page{}, fmt.Errorf("events page: %w", err)
	}
	p := Page{Cursor: parts.Cursor, Terminal: parts.Terminal}
	for _, raw := range parts.Events {
		e, err := DecodeEvent(raw)
		p.addEvent(e, err, raw)
	}
	for _, raw := range parts.Chunks {
		p.addChunkSlow(raw)
	}
	return p, nil
}

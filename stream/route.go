package stream

import (
	"bytes"
	"encoding/json"
	"strings"

	"aipwatch/model"
)

// routeKind is what one frame means to the run (design §2.3).
type routeKind int

const (
	routeIgnore   routeKind = iota // comment, unknown kind, id-only frame
	routeChunk                     // {"chunk": StreamChunk}
	routeEvent                     // {"event": Event}, whatever its name
	routeCursor                    // aip.stream.cursor
	routeTerminal                  // aip.stream.terminal
	routeError                     // aip.error
	routeBad                       // claimed a known kind, could not be decoded
)

// routed is one frame after routing.
type routed struct {
	kind   routeKind
	chunk  model.StreamChunk
	event  model.Event
	cursor string // cursor / terminal: the new cursor ("" = none usable)
	perr   *model.ProtocolError
	reason string // bad: why
	lost   bool   // bad: the frame was a chunk (lost evidence, design §3)
}

const (
	evCursor   = "aip.stream.cursor"
	evTerminal = "aip.stream.terminal"
	evError    = "aip.error"
	evChunk    = "aip.stream.chunk"
)

// validCursor reports whether s may be used as a resume cursor: never a
// chunk:N id nor an event id (evt_… other than evt_cursor_…), protocol §5.6.
func validCursor(s string) bool {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return false
	case strings.HasPrefix(s, "chunk:"):
		return false
	case strings.HasPrefix(s, "evt_") && !strings.HasPrefix(s, "evt_cursor_"):
		return false
	}
	return true
}

// route decides what a frame is by its event name and the top-level key of
// its data. The data keys "chunk" and "event" win (the Event-form
// aip.stream.chunk frame is an event); then the control event names; then
// the keys next_cursor / terminal / error of a frame without a known name.
func route(f *Frame) routed {
	if f.Data == nil && f.Event == "" {
		return routed{} // comment or id-only frame
	}
	if rt, ok := routeFast(f); ok {
		return rt
	}
	var top map[string]json.RawMessage
	isObj := len(f.Data) > 0 && json.Unmarshal(f.Data, &top) == nil && top != nil

	if isObj {
		if raw, ok := top["chunk"]; ok {
			c, err := model.DecodeChunk(raw)
			if err != nil {
				return badChunk("undecodable chunk: " + err.Error())
			}
			return routed{kind: routeChunk, chunk: c}
		}
		if raw, ok := top["event"]; ok {
			var e model.Event
			if err := json.Unmarshal(raw, &e); err != nil {
				return bad("undecodable event: " + err.Error())
			}
			if e.ID == "" && !strings.HasPrefix(f.ID, "chunk:") {
				e.ID = f.ID
			}
			if e.Kind == "" {
				e.Kind = f.Event
			}
			return routed{kind: routeEvent, event: e}
		}
	}

	switch f.Event {
	case evCursor:
		return cursorFrame(f, top)
	case evTerminal:
		return routed{kind: routeTerminal, cursor: frameCursor(f, top)}
	case evError:
		return errorFrame(f, top, isObj)
	}
	if isObj {
		switch {
		case top["next_cursor"] != nil:
			return cursorFrame(f, top)
		case bytes.Equal(bytes.TrimSpace(top["terminal"]), []byte("true")):
			return routed{kind: routeTerminal, cursor: frameCursor(f, top)}
		case top["error"] != nil:
			return errorFrame(f, top, true)
		}
	}
	if f.Event == evChunk {
		// Named a chunk but carries neither a chunk nor an event object.
		return badChunk("undecodable chunk: no chunk object in an " + evChunk + " frame")
	}
	if strings.HasPrefix(f.Event, "aip.") && !isObj {
		return bad("data is not a JSON object")
	}
	return routed{} // unknown kind: ignored
}

// routeFast routes the two frames that make up nearly all of a stream, a
// chunk ({"chunk":{…}}) and an Event ({"event":{…}}), without decoding the
// frame twice. It answers only when the data is exactly that one key
// around an object that decodes; everything else (other keys, spacing,
// errors) takes route's general way, which decides as before.
func routeFast(f *Frame) (routed, bool) {
	d := f.Data
	if len(d) < 12 || d[0] != '{' || d[len(d)-1] != '}' || d[len(d)-2] != '}' {
		return routed{}, false
	}
	switch {
	case bytes.HasPrefix(d, []byte(`{"chunk":{`)):
		// The frame's data is its own copy, made by parseFrame and never
		// changed: the chunk keeps it as its raw bytes, without copying.
		c, err := model.DecodeChunkOwned(d[len(`{"chunk":`) : len(d)-1 : len(d)-1])
		if err != nil {
			return routed{}, false
		}
		return routed{kind: routeChunk, chunk: c}, true
	case bytes.HasPrefix(d, []byte(`{"event":{`)):
		// Views of the frame's own copy, as the chunk's are.
		e, err := model.DecodeEventShared(d[len(`{"event":`) : len(d)-1 : len(d)-1])
		if err != nil {
			return routed{}, false
		}
		if e.ID == "" && !strings.HasPrefix(f.ID, "chunk:") {
			e.ID = f.ID
		}
		if e.Kind == "" {
			e.Kind = f.Event
		}
		return routed{kind: routeEvent, event: e}, true
	}
	return routed{}, false
}

func bad(reason string) routed { return routed{kind: routeBad, reason: oneLine(reason, 160)} }

// badChunk is a bad frame that was a chunk: its evidence is lost, which the
// model counts as a conflict (design §3).
func badChunk(reason string) routed {
	rt := bad(reason)
	rt.lost = true
	return rt
}

// frameCursor is the frame's id when it is a cursor, else next_cursor from
// its data, else "".
func frameCursor(f *Frame, top map[string]json.RawMessage) string {
	if validCursor(f.ID) {
		return strings.TrimSpace(f.ID)
	}
	var nc string
	if raw := top["next_cursor"]; raw != nil && json.Unmarshal(raw, &nc) == nil && validCursor(nc) {
		return strings.TrimSpace(nc)
	}
	return ""
}

func cursorFrame(f *Frame, top map[string]json.RawMessage) routed {
	c := frameCursor(f, top)
	if c == "" {
		return bad("cursor frame without a usable cursor")
	}
	return routed{kind: routeCursor, cursor: c}
}

// errorFrame decodes {"error": ProtocolError}; aipd writes the literal text
// "stream error" when that JSON could not be encoded (protocol §5.5).
func errorFrame(f *Frame, top map[string]json.RawMessage, isObj bool) routed {
	if isObj {
		if raw := top["error"]; raw != nil {
			var pe model.ProtocolError
			if json.Unmarshal(raw, &pe) == nil && (pe.Code != "" || pe.Message != "") {
				return routed{kind: routeError, perr: &pe}
			}
			var s string // {"error": "text"}
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return routed{kind: routeError, perr: &model.ProtocolError{Message: s, Retryable: true}}
			}
		}
		if pe := protocolErrorIn(f.Data); pe != nil {
			return routed{kind: routeError, perr: pe}
		}
	}
	// "stream error" or anything else: the server ended the stream on an
	// error it could not describe. Treat it as transient.
	msg := oneLine(string(f.Data), 80)
	if msg == "" {
		msg = "stream error"
	}
	return routed{kind: routeError, perr: &model.ProtocolError{Message: msg, Retryable: true}}
}

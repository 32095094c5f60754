package stream

import "aipwatch/model"

// FrameMsg is what a run sends for one received frame, without any
// connection logic: a chunk or an event as a one-item BatchMsg, a cursor,
// a terminal. Comments, errors and unknown kinds give nothing (a recording
// holds the connection changes they caused as separate lines); an
// undecodable frame gives a BadFrameMsg. Replays use it so that a recorded
// frame takes exactly the route a live one took.
func FrameMsg(f Frame) (Msg, bool) {
	rt := route(&f)
	switch rt.kind {
	case routeChunk:
		return BatchMsg{Chunks: []model.StreamChunk{rt.chunk}, At: f.At}, true
	case routeEvent:
		return BatchMsg{Events: []model.Event{rt.event}, At: f.At}, true
	case routeCursor:
		if rt.cursor == "" {
			return nil, false
		}
		return CursorMsg{Cursor: rt.cursor}, true
	case routeTerminal:
		return TerminalMsg{Cursor: rt.cursor, At: f.At}, true
	case routeBad:
		m := BadFrameMsg{Event: oneLine(f.Event, 80), ID: oneLine(f.ID, 80), Reason: rt.reason}
		if rt.lost {
			m.Chunks = 1
		}
		return m, true
	}
	return nil, false
}

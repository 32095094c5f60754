package stream

import (
	"strings"
	"testing"
)

func frameOf(event, id, data string) *Frame {
	f := &Frame{Event: event, ID: id}
	if data != "" {
		f.Data = []byte(data)
	}
	return f
}

func TestRoute(t *testing.T) {
	chunk := `{"chunk":{"action_id":"act_1","sequence":4,"kind":"data","data":{"x":1}}}`
	for _, tc := range []struct {
		name   string
		f      *Frame
		kind   routeKind
		cursor string
	}{
		{"chunk", frameOf("aip.stream.chunk", "chunk:4", chunk), routeChunk, ""},
		{"chunk without name", frameOf("", "", chunk), routeChunk, ""},
		{"event-form chunk", frameOf("aip.stream.chunk", "evt_stream_ab", `{"event":{"id":"evt_stream_ab","kind":"aip.stream.chunk","data":{"sequence":4}}}`), routeEvent, ""},
		{"event", frameOf("aip.action.result", "evt_1", `{"event":{"id":"evt_1","kind":"aip.action.result"}}`), routeEvent, ""},
		{"cursor by id", frameOf("aip.stream.cursor", "aev_cursor_3_0", `{"next_cursor":"aev_cursor_3_0"}`), routeCursor, "aev_cursor_3_0"},
		{"cursor without id", frameOf("aip.stream.cursor", "", `{"next_cursor":"aev_cursor_4_1"}`), routeCursor, "aev_cursor_4_1"},
		{"cursor with a chunk id", frameOf("aip.stream.cursor", "chunk:9", `{"next_cursor":"aev_cursor_4_1"}`), routeCursor, "aev_cursor_4_1"},
		{"cursor with an event id", frameOf("aip.stream.cursor", "evt_9", `{"next_cursor":"evt_cursor_7"}`), routeCursor, "evt_cursor_7"},
		{"cursor with nothing usable", frameOf("aip.stream.cursor", "chunk:1", `{"next_cursor":"chunk:1"}`), routeBad, ""},
		{"cursor by key only", frameOf("", "aev_cursor_5_1", `{"next_cursor":"aev_cursor_5_1"}`), routeCursor, "aev_cursor_5_1"},
		{"terminal", frameOf("aip.stream.terminal", "aev_cursor_5_1", `{"terminal":true,"action_id":"act_1"}`), routeTerminal, "aev_cursor_5_1"},
		{"terminal without id", frameOf("aip.stream.terminal", "", `{"terminal":true}`), routeTerminal, ""},
		{"terminal by key", frameOf("", "", `{"terminal":true}`), routeTerminal, ""},
		{"terminal false by key", frameOf("", "", `{"terminal":false}`), routeIgnore, ""},
		{"error", frameOf("aip.error", "", `{"error":{"code":"stream.cursor_expired","message":"m","category":"permanent"}}`), routeError, ""},
		{"error literal", frameOf("aip.error", "", `stream error`), routeError, ""},
		{"error by key", frameOf("", "", `{"error":{"code":"x.y","message":"m"}}`), routeError, ""},
		{"comment", &Frame{Comment: "keep-alive"}, routeIgnore, ""},
		{"id only", frameOf("", "chunk:1", ""), routeIgnore, ""},
		{"unknown kind", frameOf("x.custom", "", `{"z":1}`), routeIgnore, ""},
		{"unknown text", frameOf("", "", `hello`), routeIgnore, ""},
		{"aip kind, not JSON", frameOf("aip.action.result", "evt_1", `{"event":`), routeBad, ""},
		{"bad chunk", frameOf("aip.stream.chunk", "chunk:1", `{"chunk":{"sequence":"x"}}`), routeBad, ""},
		{"bad event", frameOf("aip.action.result", "evt_1", `{"event":[1]}`), routeBad, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := route(tc.f)
			if rt.kind != tc.kind || rt.cursor != tc.cursor {
				t.Fatalf("kind %d cursor %q; want %d %q (%s)", rt.kind, rt.cursor, tc.kind, tc.cursor, rt.reason)
			}
		})
	}

	rt := route(frameOf("aip.stream.chunk", "chunk:4", chunk))
	if rt.chunk.Sequence != 4 || !strings.Contains(string(rt.chunk.Raw), `"sequence":4`) {
		t.Fatalf("chunk: %+v", rt.chunk)
	}
	rt = route(frameOf("aip.error", "", `stream error`))
	if rt.perr.Message != "stream error" || !rt.perr.Retryable {
		t.Fatalf("literal: %+v", rt.perr)
	}
	rt = route(frameOf("aip.action.updated", "evt_7", `{"event":{"kind":"aip.action.updated"}}`))
	if rt.event.ID != "evt_7" {
		t.Fatalf("event id from the frame: %+v", rt.event)
	}
}

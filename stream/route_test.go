package stream

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
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

// fuzzRead frames and routes b, returning a printable trace.
func fuzzRead(t testing.TB, r io.Reader) ([]Frame, []routed, error) {
	fs, err := readAll(t, r, 1<<16)
	var rs []routed
	for i := range fs {
		rs = append(rs, route(&fs[i]))
	}
	return fs, rs, err
}

// FuzzFrames: framing and routing never panic, never depend on how the
// body is cut into reads, and never take a cursor from a chunk or event id.
func FuzzFrames(f *testing.F) {
	f.Add([]byte("event: aip.stream.cursor\ndata: {\"next_cursor\":\"aev_cursor_1_0\"}\nid: aev_cursor_1_0\n\n"))
	f.Add([]byte("id: chunk:0\r\nevent: aip.stream.chunk\r\ndata: {\"chunk\":{\"action_id\":\"act_1\",\"sequence\":0,\"kind\":\"data\"}}\r\n\r\n"))
	f.Add([]byte(": keep-alive\r\r\ndata: x\n\rdata"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs1, rs1, err1 := fuzzRead(t, bytes.NewReader(b))
		fs2, rs2, err2 := fuzzRead(t, iotest.OneByteReader(bytes.NewReader(b)))
		if err1 != err2 || !reflect.DeepEqual(fs1, fs2) {
			t.Fatalf("read boundaries matter: %v/%v\n%+v\n%+v", err1, err2, fs1, fs2)
		}
		if len(rs1) != len(rs2) {
			t.Fatal("routing differs")
		}
		for i, rt := range rs1 {
			if rt.kind != rs2[i].kind || rt.cursor != rs2[i].cursor {
				t.Fatalf("routing differs at %d", i)
			}
			switch rt.kind {
			case routeCursor:
				if !validCursor(rt.cursor) {
					t.Fatalf("cursor %q", rt.cursor)
				}
			case routeTerminal:
				if rt.cursor != "" && !validCursor(rt.cursor) {
					t.Fatalf("terminal cursor %q", rt.cursor)
				}
			case routeChunk:
				if rt.chunk.Raw == nil {
					t.Fatal("chunk without raw bytes")
				}
			case routeError:
				if rt.perr == nil {
					t.Fatal("error without ProtocolError")
				}
			}
		}
	})
}

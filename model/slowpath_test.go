package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestSlowPathReadsFramesAsTheFastPath: a chunk whose data the one-pass
// decoder declines (here an escaped key, which it leaves to encoding/json)
// is read through encoding/json and the frame's name is probed from its
// data when the SSE frame had no event line (a Responses frame then names
// itself only in "type"). Both routes must build the same items and verdict.
func TestSlowPathReadsFramesAsTheFastPath(t *testing.T) {
	for _, name := range []string{"responses_completed", "chat_stop"} {
		t.Run(name, func(t *testing.T) {
			chunks := withoutEventLines(t, loadChunks(t, name))
			fast := NewAction(chunks[0].ActionID)
			feed(t, fast, chunks)
			fast.SetCursor("aev_cursor_9_" + name)
			fast.MarkTerminalFrame()
			fast.SetResult(loadResult(t, name))
			slowChunks := make([]StreamChunk, len(chunks))
			escaped := 0
			for i, c := range chunks {
				d := bytes.Replace(c.Data, []byte(`"hermes_sse"`), []byte(`"hermes\u005fsse"`), 1)
				if !bytes.Equal(d, c.Data) {
					escaped++
				}
				c.Data = d
				slowChunks[i] = c
			}
			if escaped == 0 {
				t.Fatal("no chunk carries a hermes_sse key: the test reads nothing")
			}
			if _, _, _, _, ok := decodeChunkDataFast(slowChunks[0].Data); ok {
				t.Fatal("the fast decoder took an escaped key: this test no longer reaches encoding/json")
			}
			slow := NewAction(chunks[0].ActionID)
			feed(t, slow, slowChunks)
			slow.SetCursor("aev_cursor_9_" + name)
			slow.MarkTerminalFrame()
			slow.SetResult(loadResult(t, name))
			if got, want := itemsDump(slow), itemsDump(fast); !reflect.DeepEqual(got, want) {
				t.Errorf("items through encoding/json\n%q\nwant (one-pass decoder)\n%q", got, want)
			}
			if got, want := slow.Verdict().Word, fast.Verdict().Word; got != want {
				t.Errorf("verdict %q through encoding/json, %q through the one-pass decoder", got, want)
			}
			if len(itemsDump(fast)) == 0 {
				t.Fatal("the scenario has no items: nothing compared")
			}
		})
	}
}

// TestDecodePageRefusesWhatIsNotJSON: a reply that is not a page is an
// error, not an empty page (the fallback after the one-pass decoder).
func TestDecodePageRefusesWhatIsNotJSON(t *testing.T) {
	for _, b := range []string{`{`, `{"events": [}`, `[1, 2`, `{"chunks": "x"`} {
		if p, err := DecodePage([]byte(b)); err == nil {
			t.Errorf("DecodePage(%s) = %+v, nil error; want an error", b, p)
		}
	}
}

// withoutEventLines drops hermes_sse.event from every chunk, as if the
// provider's SSE frames had no event line: the name must come from data.
func withoutEventLines(t *testing.T, chunks []StreamChunk) []StreamChunk {
	t.Helper()
	out := make([]StreamChunk, len(chunks))
	for i, c := range chunks {
		var d map[string]any
		if err := json.Unmarshal(c.Data, &d); err != nil {
			t.Fatal(err)
		}
		if hs, ok := d["hermes_sse"].(map[string]any); ok {
			delete(hs, "event")
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		c.Data = b
		out[i] = c
	}
	return out
}

package model

import (
	"fmt"
	"strings"
	"testing"
)

// withoutDropNotice is the snapshot with the raw_dropped notice taken out:
// the one thing a cap may add.
func withoutDropNotice(a *Action) string {
	s := snapshot(a)
	s = strings.Replace(s, " raw_dropped:1", "", 1)
	s = strings.Replace(s, "raw_dropped:1 ", "", 1)
	s = strings.Replace(s, "map[raw_dropped:1]", "map[]", 1)
	n := countAnomalies(a, AnomalyDroppedRaw)
	return strings.Replace(s, fmt.Sprintf(`"anomalies":%d,`, len(a.Anomalies())), fmt.Sprintf(`"anomalies":%d,`, len(a.Anomalies())-n), 1)
}

// TestRawCapKeepsTextAndVerdict: under a cap so small that every chunk's
// raw bytes go, the transcript, the tools and the verdict are those of an
// uncapped run; out-of-order arrival still rebuilds the same state;
// replays of dropped chunks are replays and changed copies conflicts.
func TestRawCapKeepsTextAndVerdict(t *testing.T) {
	for _, name := range []string{"chat_stop", "chat_length", "chat_error", "chat_crash", "chat_truncated",
		"chat_upstream_closed", "responses_completed", "responses_failed"} {
		t.Run(name, func(t *testing.T) {
			chunks := loadChunks(t, name)
			ref := scenario(t, name, true)

			a := NewAction(chunks[0].ActionID)
			a.SetRawCap(1)
			// Everything but the second chunk in order, then the second:
			// the late chunk forces a rebuild from dropped chunks.
			feed(t, a, chunks[:1])
			feed(t, a, chunks[2:])
			feed(t, a, chunks[1:2])
			a.SetCursor("aev_cursor_9_" + name)
			a.MarkTerminalFrame()
			a.SetResult(loadResult(t, name))
			if a.RawDropped() == 0 || a.RawBytes() > 1+int64(len(chunks[len(chunks)-1].Raw)) {
				t.Fatalf("dropped %d, retained %d bytes", a.RawDropped(), a.RawBytes())
			}
			if !hasAnomaly(a, AnomalyDroppedRaw) {
				t.Fatal("no notice of the dropped raw bytes")
			}
			if got, want := withoutDropNotice(a), snapshot(ref); got != want {
				t.Fatalf("capped run differs:\n%s\nwant:\n%s", got, want)
			}
			for _, c := range chunks {
				if got := a.IngestChunk(c, t0); got != Replayed {
					t.Fatalf("replay of chunk %d after its raw was dropped: %v", c.Sequence, got)
				}
			}
			// A re-encoded copy (other spacing) is still a replay.
			if re := respaced(t, chunks[1]); a.IngestChunk(re, t0) != Replayed {
				t.Fatalf("re-spaced chunk 1 after drop is not a replay: %s", re.Raw)
			}
			// A copy whose provider raw_data differs is a conflict.
			alt := chunks[1]
			if i := strings.Index(string(alt.Raw), `"raw_data":"`); i >= 0 {
				raw := string(alt.Raw[:i]) + `"raw_data":"x` + string(alt.Raw[i+len(`"raw_data":"`):])
				c, err := DecodeChunk([]byte(raw))
				if err != nil {
					t.Fatal(err)
				}
				if got := a.IngestChunk(c, t0); got != Conflict {
					t.Fatalf("changed raw_data after drop: %v", got)
				}
			}
		})
	}
}

func respaced(t *testing.T, c StreamChunk) StreamChunk {
	t.Helper()
	s := strings.Replace(string(c.Raw), `{"action_id":`, `{ "action_id" :`, 1)
	out, err := DecodeChunk([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRawCapDefaultAndOff(t *testing.T) {
	a := scenario(t, "chat_stop", true)
	if a.RawDropped() != 0 || a.RawBytes() == 0 {
		t.Fatalf("default cap dropped %d", a.RawDropped())
	}
	a.SetRawCap(-1)
	if a.RawDropped() != 0 {
		t.Fatal("no cap dropped")
	}
}

// A dropped chunk's Data is kept packed against an earlier one's; what
// DataBytes rebuilds is the data with raw_data emptied, for every chunk.
func TestRawCapPackedData(t *testing.T) {
	for _, name := range []string{"chat_stop", "chat_old_tool", "responses_completed", "chat_upstream_closed"} {
		chunks := loadChunks(t, name)
		a := NewAction(chunks[0].ActionID)
		a.SetRawCap(1)
		feed(t, a, chunks)
		for _, c := range chunks {
			kept, ok := a.ChunkAt(c.Sequence)
			if !ok || !kept.RawDropped() || kept.Data != nil {
				t.Fatalf("%s chunk %d: kept %v, dropped %v", name, c.Sequence, ok, ok && kept.RawDropped())
			}
			want := c.Data
			if stripped, _, ok := stripRawData(c.Data); ok {
				want = stripped
			}
			if got := kept.DataBytes(); string(got) != string(want) {
				t.Fatalf("%s chunk %d: DataBytes\n%s\nwant\n%s", name, c.Sequence, got, want)
			}
		}
	}
}

// TestProviderRaw: the raw view's raw_data comes from the Hermes envelope
// of a retained chunk, and is gone once the cap dropped the chunk's bytes.
func TestProviderRaw(t *testing.T) {
	chunks := loadChunks(t, "chat_stop")
	a := NewAction(chunks[0].ActionID)
	feed(t, a, chunks)
	c, ok := a.ChunkAt(chunks[0].Sequence)
	if !ok {
		t.Fatal("chunk 0 not retained")
	}
	rd, ok := c.ProviderRaw()
	if !ok || rd == "" || !strings.Contains(string(c.Raw), "raw_data") {
		t.Fatalf("ProviderRaw = %q, %v", rd, ok)
	}
	if !strings.Contains(string(c.Data), strings.ReplaceAll(rd, `"`, `\"`)) {
		t.Errorf("raw_data %q is not the envelope's", rd)
	}
	plain := Chunk{StreamChunk: StreamChunk{Data: []byte(`{"reason":"upstream closed"}`)}}
	if rd, ok := plain.ProviderRaw(); ok {
		t.Errorf("a chunk without hermes_sse has raw_data %q", rd)
	}
	capped := NewAction(chunks[0].ActionID)
	capped.SetRawCap(1)
	feed(t, capped, chunks)
	if c, ok := capped.ChunkAt(chunks[0].Sequence); !ok || !c.RawDropped() {
		t.Fatal("chunk 0 not dropped under the cap")
	} else if rd, ok := c.ProviderRaw(); ok {
		t.Errorf("a dropped chunk still has raw_data %q", rd)
	}
}

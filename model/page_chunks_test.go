package model

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// pageOf builds an events page of events chunk events, each padded to
// about eventSize bytes, then the chunks.
func pageOf(events, eventSize int, chunks []StreamChunk) []byte {
	return pageWith(eventsOf(events, eventSize), chunks)
}

// eventsOf is the members of a page's events array: events chunk events,
// each padded to about eventSize bytes.
func eventsOf(events, eventSize int) []byte {
	var b bytes.Buffer
	pad := strings.Repeat("p", max(0, eventSize-150))
	for i := range events {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"evt_%d","kind":"aip.action.updated","occurred_at":"2026-01-01T00:00:00Z","action_id":"act_1","data":{"pad":"%s"}}`, i, pad)
	}
	return b.Bytes()
}

// pageWith builds a page of those events, then the chunks, in bytes of
// its own.
func pageWith(events []byte, chunks []StreamChunk) []byte {
	var b bytes.Buffer
	b.Grow(len(events) + 64)
	b.WriteString(`{"events":[`)
	b.Write(events)
	b.WriteString(`],"chunks":[`)
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(c.Raw)
	}
	b.WriteString(`],"cursor":"c1","terminal":false}`)
	return b.Bytes()
}

// within reports whether v's bytes lie in buf's array.
func within(v, buf []byte) bool {
	if len(v) == 0 || cap(buf) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	return p >= lo && p < lo+uintptr(cap(buf))
}

// A page of many events and a few chunks: the chunks get bytes of their
// own, so keeping them (under the raw cap, which counts their bytes) does
// not keep the page; and they are the same chunks.
func TestPageFewChunksKeepNotThePage(t *testing.T) {
	chunks := chatSeq("act_1", role(), content("Hello"), content(" world"))
	page := pageOf(400, 1000, chunks)
	p, err := DecodePage(page)
	if err != nil || len(p.Chunks) != len(chunks) {
		t.Fatalf("page: %v, %d chunks", err, len(p.Chunks))
	}
	for i, c := range p.Chunks {
		if within(c.Raw, page) || within(c.Data, page) || within(unsafe.Slice(unsafe.StringData(c.ActionID), len(c.ActionID)), page) {
			t.Errorf("chunk %d is a view of the page", i)
		}
		w := chunks[i]
		if !bytes.Equal(c.Raw, w.Raw) || !bytes.Equal(c.Data, w.Data) || c.Sequence != w.Sequence || c.Kind != w.Kind || c.ActionID != w.ActionID {
			t.Errorf("chunk %d = %+v, want %+v", i, c, w)
		}
	}
	// Interpreted the same as chunks decoded on their own.
	a, b := NewAction("act_1"), NewAction("act_1")
	feed(t, a, p.Chunks)
	feed(t, b, chunks)
	if got, want := snapshot(a), snapshot(b); got != want {
		t.Fatalf("interpreted as\n%s\nwant\n%s", got, want)
	}
}

// A page of chunks (the usual one) is not copied: its chunks keep views
// of it, which the raw cap counts nearly byte for byte.
func TestPageOfChunksKeptAsViews(t *testing.T) {
	var chunks []StreamChunk
	for i := range 200 {
		chunks = append(chunks, chatSeq("act_1", content(fmt.Sprintf("token %d", i)))...)
	}
	page := pageOf(2, 300, chunks)
	p, err := DecodePage(page)
	if err != nil || len(p.Chunks) != len(chunks) {
		t.Fatalf("page: %v, %d chunks", err, len(p.Chunks))
	}
	for i, c := range p.Chunks {
		if !within(c.Raw, page) {
			t.Fatalf("chunk %d was copied", i)
		}
	}
}

// What an Action holds after pages of many events and one chunk each is
// about their chunks, not their pages (it was a page a chunk).
func TestRawCapHoldsChunksNotPages(t *testing.T) {
	const pages = 40
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	a := NewAction("act_1")
	events := eventsOf(400, 1000) // ~0.4 MB; each page is a copy of its own
	for i := range pages {
		c := chatSeq("act_1", content(fmt.Sprintf("token %d", i)))[0]
		c.Sequence = uint64(i)
		raw := []byte(strings.Replace(string(c.Raw), `"sequence":0`, fmt.Sprintf(`"sequence":%d`, i), 1))
		c = rawChunk(t, string(raw))
		p, err := DecodePage(pageWith(events, []StreamChunk{c}))
		if err != nil || len(p.Chunks) != 1 {
			t.Fatalf("page %d: %v", i, err)
		}
		a.IngestChunk(p.Chunks[0], time.Time{})
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	grown := int64(ms.HeapAlloc) - int64(before)
	runtime.KeepAlive(a)
	if a.RawBytes() == 0 || a.ChunkCount() != pages {
		t.Fatalf("raw %d, %d chunks", a.RawBytes(), a.ChunkCount())
	}
	// Held: 40 chunks of about 500 bytes; the pages were 16 MB.
	t.Logf("grown %d KB for %d raw bytes", grown>>10, a.RawBytes())
	if grown > 6<<20 {
		t.Fatalf("the action holds %d MB for %d raw bytes", grown>>20, a.RawBytes())
	}
}

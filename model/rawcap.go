package model

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
)

// DefaultRawCap is how many bytes of raw chunk diagnostics an Action keeps
// (64 MiB) unless SetRawCap says otherwise.
const DefaultRawCap = 64 << 20

// SetRawCap sets the raw diagnostics cap in bytes (0 = DefaultRawCap, < 0 =
// no cap). Beyond it the raw bytes of the oldest chunks (first received) are dropped: each
// chunk's exact bytes (Raw, the "r" view) and its provider raw_data copy
// inside Data. What interpretation and the verdict use stays: the chunk's
// kind, sequence, part and its hermes_sse event, data and terminal flag,
// and enough to tell a later replay from a conflict (a digest). A notice
// (anomaly raw_dropped) says so once. The cap counts the chunks' bytes; a
// chunk from a page shares the page's buffer only when the page's chunks
// are at least half of it (Page.chunksApart), so the buffer a page's
// chunks keep is at most twice their own bytes (more only while some of
// them are replays, conflicts or dropped, which the page still holds).
func (a *Action) SetRawCap(n int64) {
	if n == 0 {
		n = DefaultRawCap
	}
	a.rawCap = n
	a.enforceRawCap()
}

// RawBytes is the number of raw chunk bytes retained.
func (a *Action) RawBytes() int64 { return a.rawBytes }

// RawDropped is the number of chunks whose raw bytes were dropped.
func (a *Action) RawDropped() int { return a.rawDropped }

// rawDigest stands in for a dropped chunk's raw bytes when a later copy of
// it arrives: the digest of its Raw (byte-identical replay) and of its
// raw_data string (the part stripped from Data).
// The digests are SHA-256 cut to 128 bits: a replay is told from a
// conflict by them, and a second preimage of 128 bits is out of reach.
//
// The chunk's Data (raw_data stripped) is kept packed: most chunks of a
// stream differ from the one before only in a short middle (a Chat delta's
// token), so Data is the template's first pre bytes, then mid, then its
// last suf bytes. The template is the Data of an earlier dropped chunk,
// shared. Data() rebuilds it (a million one-token chunks held
// 250 bytes of Data each beside their 4-byte token).
type rawDigest struct {
	raw      [16]byte
	rawData  [16]byte
	hasRD    bool
	pre, suf uint32
	tmpl     *[]byte
	mid      string
}

func digest16(b []byte) (d [16]byte) {
	sum := sha256.Sum256(b)
	copy(d[:], sum[:16])
	return d
}

// data rebuilds a dropped chunk's Data (raw_data stripped).
func (d *rawDigest) data() []byte {
	t := *d.tmpl
	out := make([]byte, 0, int(d.pre)+len(d.mid)+int(d.suf))
	out = append(out, t[:d.pre]...)
	out = append(out, d.mid...)
	return append(out, t[len(t)-int(d.suf):]...)
}

// pack stores data in d against the action's template, or makes data the
// template when it shares too little with it.
func (a *Action) pack(d *rawDigest, data []byte) {
	if t := a.tmpl; t != nil {
		tb := *t
		n := min(len(tb), len(data))
		pre := 0
		for pre < n && tb[pre] == data[pre] {
			pre++
		}
		suf := 0
		for suf < n-pre && tb[len(tb)-1-suf] == data[len(data)-1-suf] {
			suf++
		}
		if pre+suf >= len(data)/2 {
			d.tmpl, d.pre, d.suf = t, uint32(pre), uint32(suf)
			d.mid = string(data[pre : len(data)-suf])
			return
		}
	}
	own := append([]byte(nil), data...)
	a.tmpl = &own
	d.tmpl, d.pre = a.tmpl, uint32(len(own))
}

func (a *Action) enforceRawCap() {
	if a.rawCap < 0 {
		return
	}
	for a.rawBytes > a.rawCap && a.dropNext < len(a.seqs) {
		c, _ := a.chunks.get(a.seqs[a.dropNext])
		a.dropNext++
		if c.Raw == nil {
			continue
		}
		a.dropRaw(c)
	}
}

// dropRaw drops one chunk's raw bytes.
func (a *Action) dropRaw(c *Chunk) {
	d := &rawDigest{raw: digest16(c.Raw)}
	a.rawBytes -= int64(len(c.Raw))
	c.Raw = nil
	c.hint = nil // a pending chunk's decoded data points into Raw
	if c.ActionID != a.ID {
		c.ActionID = strings.Clone(c.ActionID) // a view of Raw (strView)
	}
	data := c.Data
	if stripped, rd, ok := stripRawData(c.Data); ok {
		d.rawData, d.hasRD = digest16([]byte(rd)), true
		data = stripped
	}
	a.pack(d, data) // no longer sharing the dropped bytes
	c.Data = nil
	c.digest = d
	a.rawDropped++
	if a.rawDropped == 1 {
		a.addIngestAnomaly(Anomaly{Kind: AnomalyDroppedRaw, Sequence: c.Sequence,
			Detail: fmt.Sprintf("raw diagnostics beyond the %d MiB cap are dropped, oldest first, from chunk %d on; the text and the verdict's evidence are kept", a.rawCap>>20, c.Sequence)})
	}
}

// stripRawData returns chunk data with hermes_sse.raw_data emptied (kept
// only when it is the [DONE] marker, which interpretation reads), and the
// raw_data string it had. ok is false when the data is not a plain
// hermes_sse envelope whose interpretation ignores raw_data otherwise: a
// Chat frame, a tool progress frame, a Responses frame or [DONE].
func stripRawData(data []byte) (out []byte, rawData string, ok bool) {
	h, hermes, _, _, sure := decodeChunkDataFast(data)
	if !sure || !hermes {
		return nil, "", false
	}
	name := h.name()
	if !(name == "hermes.tool.progress" || len(name) > 9 && name[:9] == "response." || h.done || looksLikeChat(h.data)) {
		return nil, "", false
	}
	// Find the raw_data string's bytes: the one-pass reader refused
	// duplicate keys, so there is exactly one.
	start, end, lit, found := findRawData(data)
	if !found {
		return nil, "", false
	}
	rawData = unquote(lit)
	repl := `""`
	if h.done {
		repl = `"[DONE]"`
	}
	out = make([]byte, 0, len(data)-(end-start)+len(repl))
	out = append(append(append(out, data[:start]...), repl...), data[end:]...)
	return out, rawData, true
}

// rawDataAt is where hermes_sse.raw_data's string literal is in chunk
// data: lit is its content, data[start:end] the literal.
type rawDataAt struct {
	start, end int
	lit        []byte
	found      bool
}

var rawDataShape = objShape[rawDataAt]{fields: []field[rawDataAt]{
	{name: "hermes_sse", dec: func(s *jscan, r *rawDataAt) bool {
		_, ok := object(s, r, &rawDataMember)
		return ok
	}},
}}

var rawDataMember = objShape[rawDataAt]{fields: []field[rawDataAt]{
	{name: "raw_data", dec: func(s *jscan, r *rawDataAt) bool {
		r.start = s.i
		lit, _, ok := s.str()
		r.end, r.lit, r.found = s.i, lit, ok
		return ok
	}},
}}

// findRawData locates hermes_sse.raw_data's string literal in chunk data.
func findRawData(data []byte) (start, end int, lit []byte, ok bool) {
	r, ok := whole(data, &rawDataShape)
	return r.start, r.end, r.lit, ok && r.found
}

// sameAsDropped decides replay or conflict for a chunk whose raw bytes
// were dropped, as sameAsKept does with them.
func sameAsDropped(kept *Chunk, y *StreamChunk) bool {
	d := kept.digest
	if len(y.Raw) > 0 && digest16(y.Raw) == d.raw {
		return true
	}
	if kept.Kind != y.Kind || kept.ActionID != y.ActionID || !samePart(kept.Part, y.Part) {
		return false
	}
	if !d.hasRD {
		return jsonSame(d.data(), y.Data)
	}
	stripped, rd, ok := stripRawData(y.Data)
	return ok && digest16([]byte(rd)) == d.rawData && jsonSame(d.data(), stripped)
}

// trimResult keeps the result's raw parts (the output, and the data of its
// json message parts: for a long turn the aggregate's copy of every
// provider frame, twice) only while they fit in the raw cap beside the
// chunks. They repeat what the chunks hold; what the verdict reads of them
// (status, error, the aggregate's operation, text, terminal and truncated
// flags) is decoded before and kept.
func (a *Action) trimResult(r *ActionResult) {
	size := int64(len(r.Output))
	for _, p := range r.Message {
		size += int64(len(p.Data))
	}
	if a.rawCap < 0 || a.rawBytes+size <= a.rawCap {
		return
	}
	r.Output = nil
	if r.Aggregate != nil {
		agg := *r.Aggregate
		agg.Events = nil
		r.Aggregate = &agg
	}
	parts := make([]MessagePart, len(r.Message))
	for i, p := range r.Message {
		p.Data = nil
		parts[i] = p
	}
	r.Message = parts
	a.timeline = append(a.timeline, Happening{At: time.Now(), Kind: HapNote, Detail: fmt.Sprintf("result raw output (%.1f MiB) not kept: over the %d MiB raw cap", float64(size)/(1<<20), a.rawCap>>20)})
}

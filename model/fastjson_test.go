package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

// The fast decoders must answer exactly as encoding/json whenever they
// answer at all (ok): FuzzFastDecode checks each of them against
// encoding/json on the same bytes, and Structural against the seven
// bytes.Contains tests it replaced.

// structuralRef is Structural as it was first written.
func structuralRef(c StreamChunk) bool {
	if c.Kind != KindData {
		return true
	}
	d := c.Data
	switch {
	case bytes.Contains(d, []byte(`"response.output_text.delta"`)),
		bytes.Contains(d, []byte(`"response.reasoning_text.delta"`)):
		return false
	case bytes.Contains(d, []byte(`"hermes.tool.progress"`)),
		bytes.Contains(d, []byte(`"response.`)),
		bytes.Contains(d, []byte(`"finish_reason":"`)),
		bytes.Contains(d, []byte(`"role":"`)),
		bytes.Contains(d, []byte(`"terminal":true`)):
		return true
	}
	return false
}

func checkFast(t *testing.T, b []byte) {
	// A chunk.
	if c, ok := decodeChunkFast(b); ok {
		var want StreamChunk
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast chunk accepted what encoding/json refuses (%v): %q", err, b)
		}
		got := c
		got.hint = nil
		if got.ActionID != want.ActionID || got.Sequence != want.Sequence || got.Kind != want.Kind ||
			!bytes.Equal(got.Data, want.Data) || !reflect.DeepEqual(got.Part, want.Part) {
			t.Fatalf("fast chunk %+v, encoding/json %+v: %q", got, want, b)
		}
		if h := c.hint; h != nil {
			checkHint(t, h, c.Data)
		}
	}
	// chunk.data on its own.
	if h, hermes, op, reason, ok := decodeChunkDataFast(b); ok {
		var cd chunkData
		if err := json.Unmarshal(b, &cd); err != nil {
			t.Fatalf("fast chunk data accepted what encoding/json refuses (%v): %q", err, b)
		}
		if hermes != (cd.HermesSSE != nil) || op != cd.Operation || reason != cd.Reason {
			t.Fatalf("fast chunk data %v %q %q, encoding/json %+v: %q", hermes, op, reason, cd, b)
		}
		if hermes {
			checkHermes(t, &h, cd.HermesSSE, b)
		}
	}
	// A result.
	if r, ok := decodeResultFast(b); ok {
		var want ActionResult
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast result accepted what encoding/json refuses (%v): %q", err, b)
		}
		want.decodeAggregate()
		if !reflect.DeepEqual(normResult(r), normResult(want)) {
			t.Fatalf("fast result %+v, encoding/json %+v: %q", r, want, b)
		}
	}
	// A page: its one pass against encoding/json's page, item by item.
	s := jscan{b: b}
	var p Page
	if _, ok := object(&s, &p, &pageShape); ok && s.end() {
		want, err := decodePageSlow(b)
		if err != nil {
			t.Fatalf("fast page accepted what encoding/json refuses (%v): %q", err, b)
		}
		if !reflect.DeepEqual(normPage(p), normPage(want)) {
			t.Fatalf("fast page %+v, encoding/json %+v: %q", p, want, b)
		}
		if got, err := DecodePage(b); err != nil || !reflect.DeepEqual(normPage(got), normPage(p)) {
			t.Fatalf("DecodePage %+v (%v), its fast pass %+v: %q", got, err, p, b)
		}
		// Room made for fewer or more items than the page has changes
		// nothing but where they are put.
		for _, size := range []PageSize{{1, 1}, {len(p.Events) + 3, len(p.Chunks) + 3}} {
			if got, err := DecodePageSized(b, size); err != nil || !reflect.DeepEqual(normPage(got), normPage(p)) {
				t.Fatalf("DecodePageSized(%+v) %+v (%v), its fast pass %+v: %q", size, got, err, p, b)
			}
		}
	}
	// An event.
	if e, ok := whole(b, &eventShape); ok {
		var want Event
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast event accepted what encoding/json refuses (%v): %q", err, b)
		}
		if !reflect.DeepEqual(normEvent(e), normEvent(want)) {
			t.Fatalf("fast event %+v, encoding/json %+v: %q", e, want, b)
		}
		// The shape of views (DecodeEventShared, a page's events) reads
		// the same.
		if v, ok := whole(b, &eventViewShape); !ok || !reflect.DeepEqual(normEvent(v), normEvent(e)) {
			t.Fatalf("event as views %+v (%v), as copies %+v: %q", v, ok, e, b)
		}
	}
	// A Responses frame.
	if f, ok := decodeRespFast(b); ok {
		var want respFrame
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast responses frame accepted what encoding/json refuses (%v): %q", err, b)
		}
		if !reflect.DeepEqual(f, want) {
			t.Fatalf("fast responses frame %+v, encoding/json %+v: %q", f, want, b)
		}
	}
	// A Chat frame, and the name probe.
	var f chatFrame
	if decodeChatFast(b, &f) {
		var want chatFrame
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("fast chat accepted what encoding/json refuses (%v): %q", err, b)
		}
		if !reflect.DeepEqual(normChat(f), normChat(want)) {
			t.Fatalf("fast chat %+v, encoding/json %+v: %q", f, want, b)
		}
	}
	if ev, typ, ok := probeNameFast(b); ok {
		h := HermesSSE{Data: b}
		name := ev
		if name == "" {
			name = typ
		}
		if len(b) > 0 && b[0] == '{' && name != h.Name() {
			t.Fatalf("fast name %q, encoding/json %q: %q", name, h.Name(), b)
		}
	}
	// A string literal.
	s = jscan{b: b}
	if lit, _, ok := s.str(); ok && s.i == len(b) {
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("str accepted what encoding/json refuses (%v): %q", err, b)
		}
		if got := unquote(lit); got != want {
			t.Fatalf("unquote %q, encoding/json %q", got, want)
		}
	}
	// Any value the skipper accepts, encoding/json accepts.
	s = jscan{b: b}
	if _, ok := s.value(); ok && s.end() && !json.Valid(b) {
		t.Fatalf("value accepted invalid JSON: %q", b)
	}
	c := StreamChunk{Kind: KindData, Data: b}
	if Structural(c) != structuralRef(c) {
		t.Fatalf("Structural %v, reference %v: %q", Structural(c), structuralRef(c), b)
	}
}

func checkHint(t *testing.T, h *chunkHint, data []byte) {
	var cd chunkData
	if err := json.Unmarshal(data, &cd); err != nil {
		t.Fatalf("hint for data encoding/json refuses (%v): %q", err, data)
	}
	if h.hermes != (cd.HermesSSE != nil) || h.op != cd.Operation || h.reason != cd.Reason {
		t.Fatalf("hint %+v, encoding/json %+v: %q", h, cd, data)
	}
	if h.hermes {
		checkHermes(t, &h.h, cd.HermesSSE, data)
	}
}

func checkHermes(t *testing.T, h *hermesFrame, want *HermesSSE, b []byte) {
	if h.event != want.Event || !bytes.Equal(h.data, want.Data) || h.done != want.IsDoneMarker() || h.terminal != want.Terminal {
		t.Fatalf("fast hermes_sse %+v, encoding/json %+v: %q", h, want, b)
	}
	if name := h.name(); name != want.Name() {
		t.Fatalf("fast name %q, encoding/json %q: %q", name, want.Name(), b)
	}
	if h.chatOK {
		var f chatFrame
		if err := json.Unmarshal(h.data, &f); err != nil {
			t.Fatalf("fast chat (one pass) accepted what encoding/json refuses (%v): %q", err, b)
		}
		if !reflect.DeepEqual(normChat(h.chat), normChat(f)) {
			t.Fatalf("fast chat (one pass) %+v, encoding/json %+v: %q", h.chat, f, b)
		}
	}
}

// normEvent and normChat make empty and nil slices compare equal (both
// decoders may leave either; no reader tells them apart).
func normEvent(e Event) Event {
	if len(e.Actor) == 0 {
		e.Actor = nil
	}
	if len(e.Data) == 0 {
		e.Data = nil
	}
	return e
}

func normChat(f chatFrame) chatFrame {
	if len(f.Choices) == 0 {
		f.Choices = nil
	}
	if len(f.Error) == 0 {
		f.Error = nil
	}
	return f
}

// decodePageSlow is an events page the way the client decoded one before
// the one-pass reader: encoding/json, then each item on its own.
func decodePageSlow(b []byte) (Page, error) {
	var parts pageParts
	if err := json.Unmarshal(b, &parts); err != nil {
		return Page{}, err
	}
	p := Page{Cursor: parts.Cursor, Terminal: parts.Terminal}
	for _, raw := range parts.Events {
		var e Event
		if err := json.Unmarshal(raw, &e); err != nil {
			p.BadEvents++
			continue
		}
		p.Events = append(p.Events, e)
		p.RawEvents = append(p.RawEvents, raw)
	}
	for _, raw := range parts.Chunks {
		var c StreamChunk
		if err := json.Unmarshal(raw, &c); err != nil {
			p.BadChunks++
			continue
		}
		c.Raw = raw
		p.Chunks = append(p.Chunks, c)
	}
	return p, nil
}

// normPage compares pages by what a reader sees: chunks without their
// decode hints, events normalised, raw bytes by content.
func normPage(p Page) Page {
	q := p
	q.Events, q.Chunks, q.RawEvents = nil, nil, nil
	for _, e := range p.Events {
		q.Events = append(q.Events, normEvent(e))
	}
	for _, c := range p.Chunks {
		c.hint = nil
		if len(c.Data) == 0 {
			c.Data = nil
		}
		c.Data = append(json.RawMessage(nil), c.Data...)
		c.Raw = append([]byte(nil), c.Raw...)
		q.Chunks = append(q.Chunks, c)
	}
	for _, r := range p.RawEvents {
		q.RawEvents = append(q.RawEvents, append(json.RawMessage(nil), r...))
	}
	return q
}

func normResult(r ActionResult) ActionResult {
	if len(r.Output) == 0 {
		r.Output = nil
	}
	if len(r.Usage) == 0 {
		r.Usage = nil
	}
	for i := range r.Message {
		if len(r.Message[i].Data) == 0 {
			r.Message[i].Data = nil
		}
	}
	if r.Aggregate != nil && len(r.Aggregate.Events) == 0 {
		a := *r.Aggregate
		a.Events = nil
		r.Aggregate = &a
	}
	return r
}

// fastSeeds is every seed of the fast decoders: what the testdata holds,
// then the hand-picked edge cases.
func fastSeeds(tb testing.TB) [][]byte {
	return append(testdataSeeds(tb), edgeSeeds()...)
}

// testdataSeeds is what aipd and the connector send: the testdata's
// results, each chunk line with its data and its provider frame, and each
// file's chunks as an events page.
func testdataSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	results, _ := filepath.Glob("testdata/*.result.json")
	for _, p := range results {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	paths, _ := filepath.Glob("testdata/*.chunks.jsonl")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		// The file's chunks as an events page, each beside its
		// aip.stream.chunk event.
		var evs, chs [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if len(chs) < 40 {
				chs = append(chs, line)
				evs = append(evs, fmt.Appendf(nil, `{"id":"evt_%d","kind":"aip.stream.chunk","occurred_at":"2026-01-01T00:00:00Z","data":{"sequence":%d}}`, len(evs), len(evs)))
			}
			out = append(out, line)
			var c struct {
				Data json.RawMessage `json:"data"`
			}
			if json.Unmarshal(line, &c) == nil && len(c.Data) > 0 {
				out = append(out, c.Data)
				var cd struct {
					H struct {
						Data json.RawMessage `json:"data"`
					} `json:"hermes_sse"`
				}
				if json.Unmarshal(c.Data, &cd) == nil && len(cd.H.Data) > 0 {
					out = append(out, cd.H.Data)
				}
			}
		}
		out = append(out, fmt.Appendf(nil, `{"events":[%s],"chunks":[%s],"cursor":"cur_%d","terminal":false}`,
			bytes.Join(evs, []byte(",")), bytes.Join(chs, []byte(", ")), len(chs)))
	}
	return out
}

// edgeSeeds are the hand-picked edge cases: duplicate and case-folded
// keys, nulls where values go, numbers out of range or not integers,
// escapes, surrogates, invalid UTF-8, keys hidden in strings.
func edgeSeeds() [][]byte {
	var out [][]byte
	for _, s := range []string{
		`{"events":[5,{"id":"a","id":"b"},{"id":"e"}],"chunks":[{"sequence":"x"},{"Sequence":2},{"action_id":"a","sequence":1,"kind":"data","data":{}}],"cursor":null,"terminal":true}`,
		`{"chunks":null,"events":[],"terminal":null}`, `{"chunks":[],"chunks":[]}`, `{"Chunks":[{}]}`, `{"cursor":5}`,
		`{"id":"evt_1","kind":"aip.stream.chunk","occurred_at":"2026-01-01T00:00:00Z","action_id":"act_1","data":{"sequence":0}}`,
		`{"ID":"x","kind":"k"}`, `{"id":"a","id":"b"}`, `{"kind":null,"data":null,"actor":[1,2]}`,
		`{"action_id":"a","sequence":1e2,"kind":"data"}`, `{"sequence":-0}`, `{"sequence":18446744073709551616}`,
		`{"choices":[{"delta":{"content":"h\u00e9\ud83d\ude00\ud800x\n"},"finish_reason":null}],"id":"c","model":"m"}`,
		`{"choices":[{"delta":{"role":"assistant","content":null}},{"delta":5}]}`,
		`{"choices":[],"usage":null,"hermes":null,"error":{"message":"m"}}`,
		`{"hermes_sse":{"data":"[DONE]","raw_data":"\u005bDONE]","terminal":true},"operation":"o"}`,
		`{"hermes_sse":null,"reason":"upstream closed"}`,
		`{"type":"response.output_text.delta","sequence_number":null,"output_index":1.5}`, `{"sequence_number":-1,"output_index":-0}`,
		`{"sequence_number":9223372036854775808}`, `{"output_index":9223372036854775807,"content_index":null}`,
		`{"item":{"content":[]}}`, `{"item":{"content":null,"output":null}}`, `{"item":null,"response":null}`,
		`{"item":{"content":[{"type":"output_text","text":"h\u00e9"},{"Text":"x"}],"output":[1,{"a":"b"}]}}`, `{"Item":{}}`,
		`{"response":{"id":"r","status":"completed","usage":{"input_tokens":3,"total_tokens":4.0},"error":{"code":"x"}}}`,
		`{"response":{"usage":null,"error":null}}`, `{"response":{"usage":{"TOTAL_tokens":1}}}`, `{"delta":"a","delta":"b"}`,
		`{"item":{"content":[{"type":5}]}}`, `{"text":"\ud800","item_id":7}`, `"\ud83d\ude00\ud83d"`, `"a\u0000b\"c\\\/"`,
		"\"\xff\xfe ok\"", `{"event":"x","Type":"y"}`, `{"\"role":"x","a":"\"finish_reason\":\"stop\""}`,
		`{"x":"\"response.output_text.delta\"","type":"response.output_text.delta"}`, ` [1, 2.5e-3, true, false, null, {"a": {}}] `,
	} {
		out = append(out, []byte(s))
	}
	return out
}

func TestFastDecodersAgreeWithEncodingJSON(t *testing.T) {
	t.Parallel()
	// Truncated input must never be accepted: every prefix of each
	// hand-picked edge case.
	for _, b := range edgeSeeds() {
		checkFast(t, b)
		for i := range len(b) {
			checkFast(t, b[:i])
		}
	}
	// The testdata whole, and a sample of its prefixes: the cut before
	// the last byte and a few at random in each. FuzzFastDecode (run by
	// make fuzz-ci) starts from these same seeds and carries the rest:
	// checkFast on whatever its mutations cut, splice or flip. (Every
	// prefix of each seed was 17 s of CPU under -race.)
	r := rand.New(rand.NewPCG(7, 7))
	for _, b := range testdataSeeds(t) {
		checkFast(t, b)
		if len(b) == 0 {
			continue
		}
		checkFast(t, b[:len(b)-1])
		for range fastPrefixSample {
			checkFast(t, b[:r.IntN(len(b))])
		}
	}
}

// fastPrefixSample is how many random prefixes of each testdata seed the
// differential test checks (the seeds are a few hundred, mostly of a few
// shapes, so together they cut each shape at most of its bytes).
const fastPrefixSample = 12

// TestFastPathAnswers: the one-pass reader answers for what aipd and the
// connector send (else it is only a slower way to the slow path).
func TestFastPathAnswers(t *testing.T) {
	pages := 0
	for _, b := range fastSeeds(t) {
		if bytes.HasPrefix(b, []byte(`{"action_id":"act_`)) {
			c, ok := decodeChunkFast(b)
			if !ok {
				t.Fatalf("chunk not decoded in one pass: %q", b)
			}
			if h := c.hint; h != nil && h.hermes && len(h.h.data) > 0 && h.h.data[0] == '{' && (!h.h.probed || !h.h.chatOK && bytes.Contains(h.h.data, []byte(`"delta":{"content"`))) {
				t.Fatalf("provider frame not probed, or Chat delta not decoded, in one pass: %q", b)
			}
		}
		if bytes.HasPrefix(b, []byte(`{"events":[{"id":"evt_0"`)) {
			pages++
			s := jscan{b: b}
			var p Page
			if _, ok := object(&s, &p, &pageShape); !ok || !s.end() || p.BadChunks+p.BadEvents > 0 || len(p.Chunks) == 0 {
				t.Fatalf("page not decoded in one pass (%d bad): %.200q", p.BadChunks+p.BadEvents, b)
			}
		}
	}
	if pages == 0 {
		t.Fatal("no page among the seeds")
	}
	// Every Responses frame of the testdata.
	frames := 0
	paths, _ := filepath.Glob("testdata/responses_*.chunks.jsonl")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var c struct {
				Data struct {
					H struct {
						Data json.RawMessage `json:"data"`
					} `json:"hermes_sse"`
				} `json:"data"`
			}
			if err := json.Unmarshal(line, &c); err != nil || len(c.Data.H.Data) == 0 || c.Data.H.Data[0] != '{' {
				continue
			}
			frames++
			if _, ok := decodeRespFast(c.Data.H.Data); !ok {
				t.Fatalf("Responses frame not decoded in one pass: %s", c.Data.H.Data)
			}
		}
	}
	if frames < 20 {
		t.Fatalf("%d Responses frames in the testdata", frames)
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, b := range fastSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFast(t, b)
	})
}

// TestStrAgreesWithEncodingJSON: str accepts a string literal exactly when
// encoding/json does, ends where it ends, and unquotes it the same, with
// the special bytes at every offset of the eight-byte steps.
func TestStrAgreesWithEncodingJSON(t *testing.T) {
	alphabet := []string{"a", "b", " ", `"`, `\`, `\"`, `\\`, `\n`, `\u00e9`, `\ud83d`, `\x`, "\x01", "\x1f", "é", "\xff", "\x7f",
		`\b`, `\f`, `\r`, `\t`, `\/`, "\x80", `\u00af`, `\u00AF`, `\uaFaF`, `\uD83D`, `\uDE00`, `\u004`}
	r := rand.New(rand.NewPCG(16, 16))
	for range 20000 {
		var body []byte
		for range r.IntN(24) {
			body = append(body, alphabet[r.IntN(len(alphabet))]...)
		}
		b := append(append([]byte{'"'}, body...), '"')
		var want string
		jsonOK := json.Unmarshal(b, &want) == nil
		s := jscan{b: b}
		lit, _, ok := s.str()
		ok = ok && s.i == len(b)
		if ok != jsonOK {
			t.Fatalf("str %v, encoding/json %v: %q", ok, jsonOK, b)
		}
		if ok && unquote(lit) != want {
			t.Fatalf("unquote %q, encoding/json %q", unquote(lit), want)
		}
		// strValue decides from the scan alone whether the literal can be
		// taken as it is (plain): a byte outside ASCII or an escape says no.
		if v, vok := (&jscan{b: b}).strValue(); ok && (!vok || v != want) {
			t.Fatalf("strValue %q (%v), encoding/json %q", v, vok, want)
		}
	}
}

// TestSkipTakesEveryValue: the walk skips any JSON value of a member it
// does not know in one pass (a value it declined would send the whole
// chunk to encoding/json), and refuses what is not a value.
func TestSkipTakesEveryValue(t *testing.T) {
	for _, v := range []string{`-1`, `-0.5e3`, `0`, `12`, `true`, `false`, `null`, `"x"`, `[1, -2]`, `{"a": -3, "b": [true]}`} {
		s := jscan{b: []byte(v)}
		if !s.skip() || !s.end() {
			t.Errorf("skip(%s) declined a JSON value", v)
		}
	}
	for _, v := range []string{`-`, `tru`, `nul`, `[1,`, `{"a"}`, `+1`, `x`} {
		s := jscan{b: []byte(v)}
		if s.skip() && s.end() {
			t.Errorf("skip(%s) took what is not a JSON value", v)
		}
	}
}

// TestChunkDecodedAloneTakesOneHint: a chunk decoded on its own (a live
// follow's) allocates its one hint, not a page's block of them (a block of
// 64 hints was 22 KB a chunk).
func TestChunkDecodedAloneTakesOneHint(t *testing.T) {
	raw := []byte(`{"action_id":"act_1","sequence":1,"kind":"data","data":{"hermes_sse":{"data":{"choices":[{"delta":{"content":"tok "},"finish_reason":null,"index":0}],"id":"c","model":"m","object":"chat.completion.chunk"},"raw_data":"{\"id\": \"c\"}","terminal":false}}}`)
	if c, ok := decodeChunkFast(raw); !ok || c.hint == nil {
		t.Fatal("not decoded in one pass")
	}
	const n = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		decodeChunkFast(raw)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 2*uint64(unsafe.Sizeof(chunkHint{}))+1024 {
		t.Fatalf("%d bytes allocated a chunk (a hint is %d)", per, unsafe.Sizeof(chunkHint{}))
	}
}

// TestChatChunkDecodeAllocations: a Chat delta chunk decodes with the
// scanner's one allocation and its hint's. The delta's strings live in
// the frame's arena: a *string of their own each was an allocation a
// chunk (strArena.ptr's &v made every call allocate).
func TestChatChunkDecodeAllocations(t *testing.T) {
	raw := []byte(`{"action_id":"act_1","sequence":5,"kind":"data","data":{"hermes_sse":{"data":{"choices":[{"delta":{"content":"token 000004 "},"finish_reason":null,"index":0}],"created":1789028102,"id":"chatcmpl-1","model":"hermes-agent","object":"chat.completion.chunk"},"raw_data":"{\"id\": \"chatcmpl-1\", \"choices\": [{\"index\": 0, \"delta\": {\"content\": \"token 000004 \"}, \"finish_reason\": null}]}","terminal":false}}}`)
	if c, ok := decodeChunkFast(raw); !ok || c.hint == nil || !c.hint.h.chatOK {
		t.Fatalf("not decoded in one pass as a Chat frame: %+v %v", c, ok)
	}
	if n := testing.AllocsPerRun(200, func() { decodeChunkFast(raw) }); n > 2 {
		t.Fatalf("%v allocations a chunk, want at most 2", n)
	}
}

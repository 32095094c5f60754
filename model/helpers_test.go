package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// The longest differential and property tests call t.Parallel: they read
// only the testdata and build their own actions, and the package's globals
// are read-only tables. Tests that measure the heap or count allocations
// stay sequential, and Go starts the parallel ones only after those.

// t0 is the fixed receive time used by the tests; times never decide anything.
var t0 = time.Date(2026, 9, 20, 12, 0, 0, 0, time.UTC)

// loadChunks reads testdata/NAME.chunks.jsonl: one chunk object per line,
// exactly as aipd sends it inside {"chunk": ...}.
func loadChunks(t testing.TB, name string) []StreamChunk {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".chunks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []StreamChunk
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		c, err := DecodeChunk(line)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no chunks", name)
	}
	return out
}

// loadResult reads testdata/NAME.result.json.
func loadResult(t testing.TB, name string) ActionResult {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".result.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeResult(raw)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// scenario feeds a fixture's chunks in order (and its result when withResult)
// to a fresh Action named after the chunks.
func scenario(t testing.TB, name string, withResult bool) *Action {
	t.Helper()
	chunks := loadChunks(t, name)
	a := NewAction(chunks[0].ActionID)
	feed(t, a, chunks)
	a.SetCursor("aev_cursor_9_" + name)
	a.MarkTerminalFrame()
	if withResult {
		a.SetResult(loadResult(t, name))
	}
	return a
}

func feed(t testing.TB, a *Action, chunks []StreamChunk) {
	t.Helper()
	for _, c := range chunks {
		if got := a.IngestChunk(c, t0); got != Applied {
			t.Fatalf("chunk %d: outcome %v, want Applied", c.Sequence, got)
		}
	}
}

// ---- synthetic chunks, shaped like the fixtures ----

// pyDumps writes v as Python's json.dumps with default settings (", " and
// ": ", non-ASCII as \uXXXX with surrogate pairs). Maps come out sorted.
func pyDumps(v any) string {
	var b strings.Builder
	pyWrite(&b, v)
	return b.String()
}

func pyWrite(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		fmt.Fprint(b, x)
	case int, int64, uint64, float64:
		fmt.Fprint(b, x)
	case json.RawMessage: // a literal as the provider wrote it (1.5, 1e3)
		b.Write(x)
	case string:
		b.WriteByte('"')
		for _, r := range x {
			switch {
			case r == '"':
				b.WriteString(`\"`)
			case r == '\\':
				b.WriteString(`\\`)
			case r == '\n':
				b.WriteString(`\n`)
			case r >= 0x20 && r < 0x7f:
				b.WriteRune(r)
			case r > 0xffff:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
			default:
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyWrite(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			pyWrite(b, k)
			b.WriteString(": ")
			pyWrite(b, x[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("pyDumps: %T", v))
	}
}

// compactJSON is serde_json's compact form: no spaces, UTF-8 kept, sorted keys.
func compactJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

type obj = map[string]any

// hermes builds a Hermes connector chunk for one provider frame. data is the
// provider payload ("[DONE]" for the Chat end marker); kind "" picks the
// connector's kind from the frame name; event "" means no SSE event name.
func hermes(action string, seq uint64, kind ChunkKind, event string, data any) StreamChunk {
	raw := "[DONE]"
	if s, ok := data.(string); !ok || s != "[DONE]" {
		raw = pyDumps(data)
	}
	name := event
	m, isObj := data.(obj)
	if name == "" && isObj {
		if s, ok := m["event"].(string); ok {
			name = s
		} else if s, ok := m["type"].(string); ok {
			name = s
		}
	}
	terminal := raw == "[DONE]"
	switch name {
	case "done", "run.completed", "run.failed", "run.cancelled", "response.completed",
		"response.failed", "response.incomplete", "error":
		terminal = true
	}
	if kind == "" {
		switch {
		case name == "run.failed" || name == "response.failed" || name == "response.incomplete" || name == "error":
			kind = KindError
		case terminal:
			kind = KindDone
		default:
			kind = KindData
		}
	}
	hs := obj{"data": data, "raw_data": raw, "terminal": terminal}
	if event != "" {
		hs["event"] = event
	}
	ch := obj{"action_id": action, "sequence": seq, "kind": string(kind), "data": obj{"hermes_sse": hs}}
	if isObj {
		for _, k := range []string{"delta", "text", "output"} {
			if s, ok := m[k].(string); ok && s != "" {
				ch["part"] = obj{"type": "text", "text": s, "format": "plain"}
				break
			}
		}
	}
	c, err := DecodeChunk(compactJSON(ch))
	if err != nil {
		panic(err)
	}
	return c
}

// rawChunk decodes a chunk given as literal JSON.
func rawChunk(t testing.TB, s string) StreamChunk {
	t.Helper()
	c, err := DecodeChunk([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Chat frame builders (protocol §9.2).

func chatF(delta obj, finish any, extra obj) obj {
	f := obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1789028102,
		"model":   "hermes-agent",
		"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// chatSeq numbers a list of Chat frames from zero for one action: an obj is
// a provider payload (with "__event" for an SSE event name), the string
// "[DONE]" the end marker.
func chatSeq(action string, frames ...any) []StreamChunk {
	out := make([]StreamChunk, 0, len(frames))
	for i, f := range frames {
		event := ""
		if m, ok := f.(obj); ok {
			if e, ok := m["__event"].(string); ok {
				event = e
				cp := obj{}
				for k, v := range m {
					if k != "__event" {
						cp[k] = v
					}
				}
				f = cp
			}
		}
		out = append(out, hermes(action, uint64(i), "", event, f))
	}
	return out
}

func role() obj              { return chatF(obj{"role": "assistant"}, nil, nil) }
func content(s string) obj   { return chatF(obj{"content": s}, nil, nil) }
func reasoning(s string) obj { return chatF(obj{"reasoning_content": s}, nil, nil) }
func finish(reason string, extra obj) obj {
	return chatF(obj{}, reason, extra)
}
func usageObj(p, c int) obj {
	return obj{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
}
func progress(fields obj) obj {
	fields["__event"] = "hermes.tool.progress"
	return fields
}

// Responses frames (protocol §9.4): respSeq numbers AIP sequences from zero
// and sequence_number from zero unless a frame already carries one.
func respSeq(action string, frames ...obj) []StreamChunk {
	out := make([]StreamChunk, 0, len(frames))
	for i, f := range frames {
		if _, ok := f["sequence_number"]; !ok {
			f["sequence_number"] = i
		}
		out = append(out, hermes(action, uint64(i), "", f["type"].(string), f))
	}
	return out
}

func completedResult(action, op string) ActionResult {
	raw := compactJSON(obj{"action_id": action, "status": "completed",
		"output": obj{"endpoint_id": "e", "operation": op, "http_status": 200, "events": []any{},
			"text": "", "terminal": true, "truncated": false}})
	r, err := DecodeResult(raw)
	if err != nil {
		panic(err)
	}
	return r
}

func failedResult(action, op, code string) ActionResult {
	raw := compactJSON(obj{"action_id": action, "status": "failed",
		"output": obj{"endpoint_id": "e", "operation": op, "http_status": 200, "events": []any{},
			"text": "", "terminal": false, "truncated": code == "connector.hermes_agent.stream_truncated"},
		"error": obj{"code": code, "message": "m", "category": "connector"}})
	r, err := DecodeResult(raw)
	if err != nil {
		panic(err)
	}
	return r
}

func hasAnomaly(a *Action, kind AnomalyKind) bool {
	for _, an := range a.Anomalies() {
		if an.Kind == kind {
			return true
		}
	}
	return false
}

func countAnomalies(a *Action, kind AnomalyKind) int {
	n := 0
	for _, an := range a.Anomalies() {
		if an.Kind == kind {
			n++
		}
	}
	return n
}

func containsReason(v Verdict, want string) bool {
	for _, r := range v.Reasons {
		if r == want {
			return true
		}
	}
	return false
}

// snapshot renders everything observable about the model except receive
// times and the Action's own Version counter, for equality checks.
func snapshot(a *Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "text=%q\n", a.Text())
	for _, it := range a.Items() {
		fmt.Fprintf(&b, "item kind=%s key=%q index=%d role=%q label=%q name=%q call=%q args=%q out=%q hasOut=%v status=%q done=%v first=%d last=%d version=%d\n",
			it.Kind, it.Key, it.Index, it.Role, it.Label, it.Name, it.CallID, it.Arguments, it.Output, it.HasOutput,
			it.Status, it.Done, it.FirstSeq, it.LastSeq, it.Version)
		for _, p := range it.Parts {
			fmt.Fprintf(&b, "  part %d text=%q done=%q hasDone=%v\n", p.Index, p.Text(), p.Done, p.HasDone)
		}
	}
	for _, tl := range a.Tools() {
		c := *tl
		c.StartedAt, c.DoneAt = time.Time{}, time.Time{}
		fmt.Fprintf(&b, "tool %+v\n", c)
	}
	rec, _ := json.Marshal(a.Record())
	fmt.Fprintf(&b, "record=%s\n", rec)
	fmt.Fprintf(&b, "verdict=%+v\n", a.Verdict())
	ch := a.Chat()
	fmt.Fprintf(&b, "chat opened=%v role=%q id=%q model=%q done=%v doneSeq=%d", ch.Opened, ch.Role, ch.CompletionID, ch.Model, ch.DoneMarker, ch.DoneSeq)
	if f := ch.Finish; f != nil {
		fmt.Fprintf(&b, " finish=%q crash=%v noReply=%v seq=%d usage=%+v err=%+v hermes=%+v",
			f.Reason, f.Crash, f.NoReply, f.Sequence, f.Usage, f.Error, f.Hermes)
	}
	rs := a.Responses()
	fmt.Fprintf(&b, "\nresp id=%q status=%q terminal=%v usage=%+v err=%+v mismatch=%v\n", rs.ResponseID, rs.Status, rs.Terminal, rs.Usage, rs.Error, rs.Mismatch)
	kinds := map[AnomalyKind]int{}
	for _, an := range a.Anomalies() {
		kinds[an.Kind]++
	}
	fmt.Fprintf(&b, "anomalies=%v notes=%q op=%q upstream=%q\n", kinds, a.Notes(), a.Operation(), a.UpstreamEnd())
	return b.String()
}

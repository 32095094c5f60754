package record

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// hostileText holds every control design §5 names for records: C0 (as
// JSON must escape it), DEL, C1 and bidi controls, raw in the frame bytes.
const hostileText = "esc\x1b[2J bel\x07 del\x7f csi\u009b6n osc\u009d0;t\u009c rlo\u202eevil\u202c iso\u2066x\u2069 nl\nend"

func chunkFrame(t *testing.T, seq int, data any) stream.Frame {
	return hermesFrame(t, seq, "", data)
}

func hermesFrame(t *testing.T, seq int, event string, data any) stream.Frame {
	t.Helper()
	d, _ := json.Marshal(data)
	h := map[string]any{"data": json.RawMessage(d), "raw_data": string(d), "terminal": false}
	if event != "" {
		h["event"] = event
	}
	raw, _ := json.Marshal(map[string]any{"chunk": map[string]any{"action_id": "act_r", "sequence": seq, "kind": "data",
		"data": map[string]any{"hermes_sse": h}}})
	return stream.Frame{Event: "aip.stream.chunk", ID: fmt.Sprintf("chunk:%d", seq), Data: raw, At: time.Unix(int64(seq), 0)}
}

func choice(delta map[string]any, fin any) map[string]any {
	return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
}

// replayInto replays path into a fresh model.
func replayInto(t *testing.T, path string) *model.Action {
	t.Helper()
	rp, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	rp.Warn = func(s string) { warns = append(warns, s) }
	a := model.NewAction(rp.ActionID())
	if err := rp.Run(context.Background(), stream.SinkFunc(func(m stream.Msg) { stream.Apply(a, m) })); err != nil {
		t.Fatal(err)
	}
	if len(warns) > 0 {
		t.Fatalf("replay warned: %q", warns)
	}
	return a
}

// Records escape C0/C1, DEL and bidi controls (no raw byte a terminal
// could obey when the file is shown) and still replay to the same text
// and verdict (design §5).
func TestRecordEscapesControlsAndReplaysTheSame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path, Header{ActionID: "act_r", Started: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	frames := []stream.Frame{
		chunkFrame(t, 0, choice(map[string]any{"role": "assistant"}, nil)),
		chunkFrame(t, 1, choice(map[string]any{"content": hostileText}, nil)),
		hermesFrame(t, 2, "hermes.tool.progress", map[string]any{"tool": "t\u009b", "toolCallId": "c\u202e1", "status": "running\u009d"}),
		chunkFrame(t, 3, choice(map[string]any{}, "stop")),
	}
	// encoding/json writes DEL, C1 and bidi raw: the frames hold them as a
	// hostile server would send them.
	if !strings.ContainsRune(string(frames[1].Data), 0x9b) {
		t.Fatal("the frame lost its raw C1: the test proves nothing")
	}
	live := model.NewAction("act_r")
	for _, f := range frames {
		w.Frame(f)
		m, ok := stream.FrameMsg(f)
		if !ok {
			t.Fatal("frame not routed")
		}
		stream.Apply(live, m)
	}
	res := model.ActionResult{ActionID: "act_r", Status: "completed\u009b"}
	w.Message(stream.ResultMsg{Result: res})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for i, r := range string(b) {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069) {
			t.Fatalf("raw %U in the record at %d: %q", r, i, string(b[max(0, i-20):min(len(b), i+20)]))
		}
	}
	for _, esc := range []string{`\u009b`, `\u007f`, `\u202e`, `\u001b`} {
		if !strings.Contains(string(b), esc) {
			t.Errorf("record lacks the escape %s", esc)
		}
	}
	got := replayInto(t, path)
	live.SetResult(res)
	if got.Text() != live.Text() || !strings.Contains(got.Text(), "\u009b6n") {
		t.Fatalf("replayed text %q, live %q", got.Text(), live.Text())
	}
	if gv, lv := got.Verdict(), live.Verdict(); gv.Word != lv.Word {
		t.Fatalf("replayed verdict %s, live %s", gv.Word, lv.Word)
	}
	if got.Result == nil || got.Result.Status != res.Status {
		t.Fatalf("replayed result status %+v", got.Result)
	}
	if tools := got.Tools(); len(tools) != 1 || tools[0].Status != "running\u009d" {
		t.Fatalf("replayed tools %+v", tools)
	}
}

// A line over the cap is skipped with its line number, without being held
// whole, and everything after it replays.
func TestReplaySkipsATooLongLineAndLosesNothingAfter(t *testing.T) {
	old := maxLine
	maxLine = 4 << 10
	defer func() { maxLine = old }()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path, Header{ActionID: "act_r", Started: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	w.Frame(chunkFrame(t, 0, choice(map[string]any{"role": "assistant", "content": "before "}, nil)))
	w.Frame(chunkFrame(t, 1, choice(map[string]any{"content": strings.Repeat("x", 3*maxLine)}, nil)))
	w.Frame(chunkFrame(t, 2, choice(map[string]any{"content": "after"}, nil)))
	w.Frame(chunkFrame(t, 3, choice(map[string]any{}, "stop")))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	rp.Warn = func(s string) { warns = append(warns, s) }
	a := model.NewAction("act_r")
	if err := rp.Run(context.Background(), stream.SinkFunc(func(m stream.Msg) { stream.Apply(a, m) })); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "line 3:") || !strings.Contains(warns[0], "skipped") {
		t.Fatalf("warnings: %q", warns)
	}
	if a.Text() != "before after" || a.ChunkCount() != 3 {
		t.Fatalf("after the long line: text %q, %d chunks", a.Text(), a.ChunkCount())
	}
}

// --record and --export refuse a symlink at the path.
func TestRecordRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := Create(link, Header{ActionID: "act_r"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Create through a symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Fatalf("the target changed: %q", b)
	}
}

// A replay loads no token, so it scrubbed nothing: a credential the
// recorded URL carried (?token=… taken by an older aipwatch, echoed by the
// server into frames) showed in the replay and its resume line. Open
// protects it for the whole replay and drops it from the header's URL.
func TestReplayProtectsTheRecordedURLsCredential(t *testing.T) {
	const secret = "url-secret-0123456789abcdef"
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := Create(path, Header{ActionID: "act_r", BaseURL: "https://aipd.example:8443/base?region=eu&access_token=" + secret, Started: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rp, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rp.Header.BaseURL, secret) || !strings.Contains(rp.Header.BaseURL, "region=eu") {
		t.Fatalf("header URL %q", rp.Header.BaseURL)
	}
	if got := safe.Line("echoed " + secret); strings.Contains(got, secret[:12]) {
		t.Fatalf("the recorded credential is not scrubbed in the replay: %q", got)
	}
}

package sim

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type outcome struct {
	status    string
	code      string // error code when failed
	lastKind  string
	terminal  bool // aggregate
	truncated bool // aggregate
	errChunk  bool // a final connector error chunk without hermes_sse
}

var finiteScenarios = map[string]outcome{
	"chat-tools":        {status: "completed", lastKind: "done", terminal: true},
	"chat-length":       {status: "completed", lastKind: "done", terminal: true},
	"chat-error":        {status: "completed", lastKind: "done", terminal: true},
	"chat-crash":        {status: "completed", lastKind: "done", terminal: true},
	"chat-unterminated": {status: "failed", code: "connector.hermes_agent.stream_incomplete", lastKind: "error", errChunk: true},
	"chat-truncated":    {status: "failed", code: "connector.hermes_agent.stream_truncated", lastKind: "done", truncated: true},
	"responses-tools":   {status: "completed", lastKind: "done", terminal: true},
	"responses-failed":  {status: "failed", code: "connector.hermes_agent.stream_failed", lastKind: "error", terminal: true},
	"late-cancel":       {status: "completed", lastKind: "done", terminal: true},
	"firehose":          {status: "completed", lastKind: "done", terminal: true},
}

// specialScenarios have tests of their own: they never settle by
// themselves, settle without a result, or refuse the paging runScenario
// uses (modes_test.go).
var specialScenarios = []string{"long", "async-long", "sync-handler-failed", "postgres", "async-dead-lettered"}

func TestEveryScenarioIsCovered(t *testing.T) {
	t.Parallel()
	for _, name := range Scenarios() {
		if _, ok := finiteScenarios[name]; !ok && !slices.Contains(specialScenarios, name) {
			t.Errorf("scenario %s has no expected outcome", name)
		}
	}
}

// run plays a scenario to its end and checks the rules every scenario
// obeys; it returns the log and the result for scenario-specific checks.
func runScenario(t *testing.T, name string, want outcome) (actionEvents, actionResult, aggregate) {
	t.Helper()
	s, u := start(t, name, Knobs{FirehoseN: 500})
	waitSettled(t, s)
	log := everything(t, s, u)
	res := resultT(t, s, u)
	id := s.ActionID()

	if res.Status != want.status || res.ActionID != id {
		t.Fatalf("result %s, want %s", res.Status, want.status)
	}
	if want.code == "" && res.Error != nil || want.code != "" && (res.Error == nil || res.Error.Code != want.code ||
		res.Error.Category != "connector" || res.Error.Source["connector"] != "hermes-agent") {
		t.Fatalf("result error %+v, want %q", res.Error, want.code)
	}
	if st := statusT(t, u, id); st["state"] != want.status {
		t.Fatalf("state %v", st["state"])
	}
	var agg aggregate
	mustJSON(t, res.Output, &agg)
	if agg.Terminal != want.terminal || agg.Truncated != want.truncated || agg.HTTPStatus != 200 ||
		agg.EndpointID != "sim" || agg.Operation != lookup(name).operation {
		t.Fatalf("aggregate terminal=%v truncated=%v %s %s", agg.Terminal, agg.Truncated, agg.EndpointID, agg.Operation)
	}

	// The chunk log: sequences from 0, kinds, one Event per chunk.
	n := len(log.Chunks)
	if log.Chunks[n-1].Kind != want.lastKind {
		t.Fatalf("last chunk kind %s, want %s", log.Chunks[n-1].Kind, want.lastKind)
	}
	for i, c := range log.Chunks {
		if c.Sequence != uint64(i) || c.ActionID != id {
			t.Fatalf("chunk %d: sequence %d action %s", i, c.Sequence, c.ActionID)
		}
		if (c.Kind == "done" || c.Kind == "error") && i != n-1 {
			t.Fatalf("chunk %d is %s but not last", i, c.Kind)
		}
	}
	if len(log.Events) != n+1 || log.Events[n].Kind != "aip.action.result" || log.Events[n].Data["status"] != want.status {
		t.Fatalf("%d events for %d chunks", len(log.Events), n)
	}

	// Every provider frame is in the aggregate, in order, identical.
	hermesChunks := log.Chunks
	if want.errChunk {
		last := log.Chunks[n-1]
		if last.hermes(t) != nil {
			t.Fatal("connector error chunk carries hermes_sse")
		}
		var d map[string]any
		mustJSON(t, last.Data, &d)
		if !reflect.DeepEqual(d, map[string]any{"operation": agg.Operation, "reason": "upstream_stream_closed_without_terminal_event"}) {
			t.Fatalf("error chunk data %v", d)
		}
		hermesChunks = log.Chunks[:n-1]
	}
	if len(agg.Events) != len(hermesChunks) {
		t.Fatalf("aggregate has %d events for %d provider chunks", len(agg.Events), len(hermesChunks))
	}
	for i, c := range hermesChunks {
		h := c.hermes(t)
		if h == nil {
			t.Fatalf("chunk %d has no hermes_sse", i)
		}
		if !reflect.DeepEqual(*h, agg.Events[i]) {
			t.Fatalf("aggregate event %d differs from chunk", i)
		}
		checkHermes(t, c, h)
	}

	// message: the text part, then the output as a json part.
	if agg.Text != "" {
		if len(res.Message) != 2 || res.Message[0].Type != "text" || res.Message[0].Text != agg.Text {
			t.Fatalf("message %+v", res.Message)
		}
	}
	if j := res.Message[len(res.Message)-1]; j.Type != "json" || !jsonEqual(t, j.Data, res.Output) {
		t.Fatal("json message part is not the output")
	}
	return log, res, agg
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	mustJSON(t, a, &x)
	mustJSON(t, b, &y)
	return reflect.DeepEqual(x, y)
}

// checkHermes applies the connector mapping rules to one chunk.
func checkHermes(t *testing.T, c chunk, h *hermesSse) {
	t.Helper()
	for i := 0; i < len(h.RawData); i++ {
		if h.RawData[i] >= 0x80 || h.RawData[i] < 0x20 {
			t.Fatalf("raw_data is not escaped ASCII: %q", h.RawData)
		}
	}
	if h.RawData == "[DONE]" {
		if string(h.Data) != `"[DONE]"` || !h.Terminal || c.Kind != "done" || h.Event != nil {
			t.Fatalf("[DONE] chunk %+v", h)
		}
		return
	}
	if !jsonEqual(t, h.Data, []byte(h.RawData)) {
		t.Fatalf("data is not the parsed raw_data: %s", h.RawData)
	}
	if strings.Contains(h.RawData, `","`) || strings.Contains(h.RawData, `":"`) || strings.Contains(h.RawData, `},{`) {
		t.Fatalf("raw_data lacks Python separators: %s", h.RawData)
	}
	if h.ID != nil {
		t.Fatal("the Hermes routes write no id: lines")
	}
	p := h.provider(t)
	var part string
	for _, k := range []string{"delta", "text", "output"} {
		if s, ok := p[k].(string); ok && s != "" {
			part = s
			break
		}
	}
	switch {
	case part == "" && c.Part != nil:
		t.Fatalf("unexpected part on %s", h.RawData)
	case part != "" && (c.Part == nil || c.Part.Text != part || c.Part.Type != "text" || c.Part.Format != "plain"):
		t.Fatalf("part %+v, want %q", c.Part, part)
	}
}

// chatText is the concatenated content of Chat deltas.
func chatFrames(t *testing.T, chunks []chunk) (text string, frames []map[string]any, events []string) {
	for _, c := range chunks {
		h := c.hermes(t)
		if h == nil || h.RawData == "[DONE]" {
			continue
		}
		p := h.provider(t)
		ev := ""
		if h.Event != nil {
			ev = *h.Event
		}
		events = append(events, ev)
		frames = append(frames, p)
		if ch, ok := p["choices"].([]any); ok {
			if d, ok := ch[0].(map[string]any)["delta"].(map[string]any); ok {
				if s, ok := d["content"].(string); ok {
					text += s
				}
			}
		}
	}
	return
}

func finishOf(t *testing.T, frames []map[string]any) map[string]any {
	t.Helper()
	for i := len(frames) - 1; i >= 0; i-- {
		if ch, ok := frames[i]["choices"].([]any); ok {
			if ch[0].(map[string]any)["finish_reason"] != nil {
				return frames[i]
			}
		}
	}
	t.Fatal("no finish chunk")
	return nil
}

var chatIDRE = regexp.MustCompile(`^chatcmpl-[0-9a-f]{29}$`)

func TestChatScenarios(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"chat-tools", "chat-length", "chat-error", "chat-crash", "chat-unterminated", "chat-truncated", "late-cancel"} {
		t.Run(name, func(t *testing.T) {
			log, _, agg := runScenario(t, name, finiteScenarios[name])
			text, frames, _ := chatFrames(t, log.Chunks)
			if agg.Text != text || text == "" {
				t.Fatalf("aggregate text %q, deltas %q", agg.Text, text)
			}
			first := frames[0]
			if !chatIDRE.MatchString(first["id"].(string)) || first["object"] != "chat.completion.chunk" ||
				first["model"] != "hermes-agent" || first["created"] != float64(hermesCreated) {
				t.Fatalf("first frame %v", first)
			}
			if d := first["choices"].([]any)[0].(map[string]any)["delta"]; !reflect.DeepEqual(d, map[string]any{"role": "assistant"}) {
				t.Fatalf("first frame is not the role chunk: %v", first)
			}
			for _, c := range log.Chunks {
				if c.Part != nil {
					t.Fatal("Chat chunks get no part")
				}
			}
			if name == "chat-unterminated" {
				for _, f := range frames {
					if ch, ok := f["choices"].([]any); ok && ch[0].(map[string]any)["finish_reason"] != nil {
						t.Fatal("unterminated stream has a finish chunk")
					}
				}
				return
			}
			last := log.Chunks[len(log.Chunks)-1].hermes(t)
			if last == nil || last.RawData != "[DONE]" {
				t.Fatalf("last frame is not [DONE]")
			}
			fin := finishOf(t, frames)
			reason := fin["choices"].([]any)[0].(map[string]any)["finish_reason"]
			hermes, _ := fin["hermes"].(map[string]any)
			errObj, _ := fin["error"].(map[string]any)
			_, hasUsage := fin["usage"]
			switch name {
			case "chat-length":
				if reason != "length" || hermes["error_code"] != "output_truncated" || hermes["partial"] != true ||
					errObj["type"] != "agent_error" || !hasUsage {
					t.Fatalf("finish %v", fin)
				}
			case "chat-error":
				if reason != "error" || hermes["failed"] != true || hermes["error_code"] != "agent_error" || errObj == nil || !hasUsage {
					t.Fatalf("finish %v", fin)
				}
			case "chat-crash":
				if reason != "error" || hermes != nil || errObj != nil || hasUsage {
					t.Fatalf("crash chunk %v", fin)
				}
			default:
				if reason != "stop" || hermes != nil || errObj != nil || !hasUsage {
					t.Fatalf("finish %v", fin)
				}
			}
		})
	}
}

func TestChatToolsFrames(t *testing.T) {
	t.Parallel()
	log, _, _ := runScenario(t, "chat-tools", finiteScenarios["chat-tools"])
	var raws []string
	for _, c := range log.Chunks {
		raws = append(raws, c.hermes(t).RawData)
	}
	g := newChatGen("chat-tools")
	wantRaw := []string{
		`{"id": "` + g.id + `", "object": "chat.completion.chunk", "created": 1789028102, "model": "hermes-agent", "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]}`,
		`{"tool": "terminal", "emoji": "\ud83d\udcbb", "label": "ls -la", "toolCallId": "call_terminal_1", "status": "running"}`,
		`{"tool": "terminal", "toolCallId": "call_terminal_1", "status": "completed"}`,
		`{"tool": "read_file", "emoji": "\ud83d\udcd6", "label": "README.md", "toolCallId": "call_read_file_2", "status": "running"}`,
		`{"tool": "read_file", "toolCallId": "call_read_file_2", "status": "completed"}`,
		`{"id": "` + g.id + `", "object": "chat.completion.chunk", "created": 1789028102, "model": "hermes-agent", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1840, "completion_tokens": 212, "total_tokens": 2052}}`,
		`[DONE]`,
	}
	for _, w := range wantRaw {
		if !slices.Contains(raws, w) {
			t.Errorf("no frame with raw_data\n%s", w)
		}
	}
	// Progress frames are SSE events named hermes.tool.progress, kind data.
	var progress []string
	for _, c := range log.Chunks {
		if h := c.hermes(t); h.Event != nil {
			if *h.Event != "hermes.tool.progress" || c.Kind != "data" {
				t.Fatalf("event %s kind %s", *h.Event, c.Kind)
			}
			p := h.provider(t)
			progress = append(progress, p["toolCallId"].(string)+"/"+p["status"].(string))
		}
	}
	if !slices.Equal(progress, []string{"call_terminal_1/running", "call_terminal_1/completed", "call_read_file_2/running", "call_read_file_2/completed"}) {
		t.Fatalf("progress %v", progress)
	}
	// Non-ASCII text and markdown made it through, escaped.
	joined := strings.Join(raws, "\n")
	for _, esc := range []string{`na\u00efve`, `caf\u00e9`, `\u2014`, `\ud83d\udcbb\u2728`, "`model/`", `\n- `} {
		if !strings.Contains(joined, esc) {
			t.Errorf("raw_data never contains %s", esc)
		}
	}
	text, _, _ := chatFrames(t, log.Chunks)
	if !strings.Contains(text, "tidy 💻✨") || !strings.Contains(text, "- `model/`") {
		t.Fatalf("text %q", text)
	}
}

func TestChatTruncatedLandsOnTheLimit(t *testing.T) {
	t.Parallel()
	log, res, agg := runScenario(t, "chat-truncated", finiteScenarios["chat-truncated"])
	if res.Error.Message != "Hermes stream exceeded its configured event limit" ||
		!reflect.DeepEqual(res.Error.Details, map[string]any{"operation": "chat_stream"}) {
		t.Fatalf("error %+v", res.Error)
	}
	last := log.Chunks[len(log.Chunks)-1].hermes(t)
	if last.RawData != "[DONE]" || !last.Terminal {
		t.Fatal("the limit-th frame is not [DONE]")
	}
	_, max := lookup("chat-truncated").script(Knobs{})
	if len(agg.Events) != max || len(log.Chunks) != max {
		t.Fatalf("%d events for max_events %d", len(agg.Events), max)
	}
}

var (
	respIDRE = regexp.MustCompile(`^resp_[0-9a-f]{28}$`)
	msgIDRE  = regexp.MustCompile(`^msg_[0-9a-f]{24}$`)
	fcIDRE   = regexp.MustCompile(`^fc_[0-9a-f]{24}$`)
	fcoIDRE  = regexp.MustCompile(`^fco_[0-9a-f]{24}$`)
	seqTail  = regexp.MustCompile(`, "sequence_number": (\d+)\}$`)
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// responsesFrames checks the Responses invariants and returns the frames.
func responsesFrames(t *testing.T, log actionEvents) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, c := range log.Chunks {
		h := c.hermes(t)
		p := h.provider(t)
		if h.Event == nil || *h.Event != p["type"] {
			t.Fatalf("frame %d: event %v type %v", i, h.Event, p["type"])
		}
		m := seqTail.FindStringSubmatch(h.RawData)
		if m == nil || p["sequence_number"] != float64(i) || !strings.HasPrefix(h.RawData, `{"type": "`+*h.Event+`", `) {
			t.Fatalf("frame %d: sequence_number not last / not %d: %s", i, i, h.RawData)
		}
		out = append(out, p)
	}
	created := out[0]
	if created["type"] != "response.created" || !respIDRE.MatchString(created["response"].(map[string]any)["id"].(string)) ||
		created["response"].(map[string]any)["status"] != "in_progress" {
		t.Fatalf("first frame %v", created)
	}
	return out
}

func TestResponsesTools(t *testing.T) {
	t.Parallel()
	log, _, agg := runScenario(t, "responses-tools", finiteScenarios["responses-tools"])
	frames := responsesFrames(t, log)
	var deltas, msgID string
	indexOf := map[string]float64{} // item id -> output_index
	var order []string
	for i, f := range frames {
		switch f["type"] {
		case "response.output_item.added":
			item := f["item"].(map[string]any)
			id := item["id"].(string)
			indexOf[id] = f["output_index"].(float64)
			order = append(order, item["type"].(string))
			switch item["type"] {
			case "message":
				if !msgIDRE.MatchString(id) || item["status"] != "in_progress" {
					t.Fatalf("message item %v", item)
				}
				msgID = id
			case "function_call":
				if !fcIDRE.MatchString(id) || item["status"] != "in_progress" || !json.Valid([]byte(item["arguments"].(string))) {
					t.Fatalf("function_call item %v", item)
				}
				raw := log.Chunks[i].hermes(t).RawData
				if !strings.Contains(raw, `"status": "in_progress", "name": "`+item["name"].(string)+`", "call_id": "`) ||
					!strings.Contains(raw, `"arguments": "{\"`) {
					t.Fatalf("function_call key order: %s", raw)
				}
			case "function_call_output":
				out := item["output"].([]any)
				if !fcoIDRE.MatchString(id) || len(out) != 1 || out[0].(map[string]any)["type"] != "input_text" || item["status"] != "completed" {
					t.Fatalf("function_call_output item %v", item)
				}
			}
		case "response.output_text.delta":
			if f["item_id"] != msgID || f["output_index"] != indexOf[msgID] || f["content_index"] != float64(0) {
				t.Fatalf("delta into the wrong item: %v", f)
			}
			if lp, ok := f["logprobs"].([]any); !ok || len(lp) != 0 {
				t.Fatalf("logprobs %v", f["logprobs"])
			}
			deltas += f["delta"].(string)
		case "response.output_text.done":
			if f["text"] != deltas {
				t.Fatalf("done text %q, deltas %q", f["text"], deltas)
			}
		}
	}
	// The message opened first (index 0) and kept it for the text after the
	// tools; each call and each output got its own index.
	if !slices.Equal(order, []string{"message", "function_call", "function_call_output", "function_call", "function_call_output"}) {
		t.Fatalf("item order %v", order)
	}
	var idx []float64
	for _, f := range frames {
		if f["type"] == "response.output_item.added" {
			idx = append(idx, f["output_index"].(float64))
		}
	}
	if !slices.Equal(idx, []float64{0, 1, 2, 3, 4}) {
		t.Fatalf("output indexes %v", idx)
	}
	if agg.Text != deltas || !strings.Contains(deltas, "Let me check") || !strings.Contains(deltas, "passes now ✅") {
		t.Fatalf("text %q", agg.Text)
	}
	last := frames[len(frames)-1]
	resp := last["response"].(map[string]any)
	if last["type"] != "response.completed" || resp["status"] != "completed" || resp["usage"] == nil {
		t.Fatalf("terminal %v", last)
	}
	output := resp["output"].([]any)
	wantKeys := [][]string{
		{"arguments", "call_id", "name", "type"}, {"call_id", "output", "type"},
		{"arguments", "call_id", "name", "type"}, {"call_id", "output", "type"},
		{"content", "role", "type"},
	}
	if len(output) != len(wantKeys) {
		t.Fatalf("terminal output has %d items", len(output))
	}
	for i, it := range output {
		if got := keys(it.(map[string]any)); !slices.Equal(got, wantKeys[i]) {
			t.Fatalf("terminal item %d keys %v, want the slim %v", i, got, wantKeys[i])
		}
	}
	// Parts: text deltas and the done text.
	for i, c := range log.Chunks {
		typ := frames[i]["type"]
		hasPart := typ == "response.output_text.delta" || typ == "response.output_text.done"
		if (c.Part != nil) != hasPart {
			t.Fatalf("%s: part %v", typ, c.Part)
		}
	}
}

func TestResponsesFailed(t *testing.T) {
	t.Parallel()
	log, res, _ := runScenario(t, "responses-failed", finiteScenarios["responses-failed"])
	frames := responsesFrames(t, log)
	last := frames[len(frames)-1]
	resp := last["response"].(map[string]any)
	if last["type"] != "response.failed" || resp["status"] != "failed" || resp["error"].(map[string]any)["type"] != "server_error" {
		t.Fatalf("terminal %v", last)
	}
	details, _ := json.Marshal(res.Error.Details)
	if !jsonEqual(t, details, log.Chunks[len(log.Chunks)-1].hermes(t).Data) {
		t.Fatalf("details are not the last event's data: %s", details)
	}
}

func TestFirehose(t *testing.T) {
	t.Parallel()
	// More chunks than one page of the 1000 a read may ask for, so the
	// log and its result are read across pages; the default
	// DefaultFirehoseN is cmd/aipdsim's and the benchmarks'.
	const n = 1500
	s, u := start(t, "firehose", Knobs{FirehoseN: n})
	log := everything(t, s, u)
	if len(log.Chunks) != n+3 {
		t.Fatalf("%d chunks, want role + %d deltas + finish + [DONE]", len(log.Chunks), n)
	}
	if res := resultT(t, s, u); res.Status != "completed" {
		t.Fatalf("result %s", res.Status)
	}
	frames, _ := followAll(t, followURL(u, s.ActionID(), "cursor=aev_cursor_"+strconv.Itoa(n+4)+"_none"))
	var size, count int
	for _, f := range frames {
		if strings.HasPrefix(f.id, "chunk:") && f.id != "chunk:0" && count < 100 {
			size += len(f.raw)
			count++
		}
	}
	if avg := size / count; avg < 500 || avg > 700 {
		t.Fatalf("average chunk frame %d bytes, want about 630", avg)
	}
}

func TestCancelLong(t *testing.T) {
	t.Parallel()
	s, u := start(t, "long", Knobs{PollInterval: 10 * time.Millisecond})
	// A follower that is attached when the cancel lands.
	st := openFollow(t, followURL(u, s.ActionID(), ""))
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] == "streaming" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("long never streams")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-s.Settled():
		t.Fatal("long settled on its own")
	case <-time.After(50 * time.Millisecond):
	}
	r := do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{"reason":"operator said stop"}`)
	if r.status != http.StatusOK || string(r.body) != `{"action_result":{"action_id":"`+s.ActionID()+`","status":"cancelled","output":{"cancelled":true}}}` {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	waitSettled(t, s)
	frames := st.all()
	if frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("the follower did not see the terminal frame")
	}

	log := everything(t, s, u)
	res := resultT(t, s, u)
	if res.Status != "cancelled" || string(res.Output) != `{"cancelled":true,"reason":"action cancellation requested"}` {
		t.Fatalf("result %s %s", res.Status, res.Output)
	}
	if st := statusT(t, u, s.ActionID()); st["state"] != "cancelled" {
		t.Fatalf("state %v", st["state"])
	}
	// The daemon publishes no chunk when it cancels (protocol
	// §10.4): the log ends on an ordinary delta.
	last := log.Chunks[len(log.Chunks)-1]
	if h := last.hermes(t); last.Kind != "data" || h.Terminal {
		t.Fatalf("last chunk %s %+v", last.Kind, h)
	}
	var cancelled *event
	for i, e := range log.Events {
		if e.Kind == "aip.action.cancelled" {
			cancelled = &log.Events[i]
		}
	}
	if cancelled == nil || !reflect.DeepEqual(cancelled.Data, map[string]any{"target": "action", "action_id": s.ActionID(), "reason": "operator said stop"}) {
		t.Fatalf("cancelled event %+v", cancelled)
	}
	n := len(log.Chunks)
	time.Sleep(30 * time.Millisecond)
	if after := everything(t, s, u); len(after.Chunks) != n {
		t.Fatal("chunks after the cancel")
	}
	if s.CancelCount() != 1 {
		t.Fatalf("CancelCount %d", s.CancelCount())
	}
}

func TestLateCancel(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{})
	waitSettled(t, s)
	before := everything(t, s, u)
	r := do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"status":"cancelled"`) {
		t.Fatalf("late cancel: %d %s", r.status, r.body)
	}
	if st := statusT(t, u, s.ActionID()); st["state"] != "completed" || st["result_status"] != "completed" {
		t.Fatalf("state after a late cancel: %v", st)
	}
	if res := resultT(t, s, u); res.Status != "completed" {
		t.Fatalf("result after a late cancel: %s", res.Status)
	}
	after := everything(t, s, u)
	if len(after.Chunks) != len(before.Chunks) || len(after.Events) != len(before.Events)+1 {
		t.Fatalf("late cancel changed the log: %d→%d chunks", len(before.Chunks), len(after.Chunks))
	}
	if e := after.Events[len(after.Events)-1]; e.Kind != "aip.action.cancelled" || e.Data["reason"] != nil {
		t.Fatalf("cancel event %+v", e)
	}
	if s.CancelCount() != 1 {
		t.Fatalf("CancelCount %d", s.CancelCount())
	}
}

func TestFinished(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Speed: 1, Finished: true})
	select {
	case <-s.Settled():
	default:
		t.Fatal("Finished action not settled at start")
	}
	if res := resultT(t, s, u); res.Status != "completed" {
		t.Fatalf("result %s", res.Status)
	}
	s2, u2 := start(t, "long", Knobs{Speed: 1, Finished: true})
	if res := resultT(t, s2, u2); res.Status != "cancelled" {
		t.Fatalf("finished long: %s", res.Status)
	}
	log := everything(t, s2, u2)
	if !slices.ContainsFunc(log.Events, func(e event) bool { return e.Kind == "aip.action.cancelled" }) {
		t.Fatal("finished long has no cancellation event")
	}
}

func TestSpeed(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{Speed: 1})
	time.Sleep(100 * time.Millisecond)
	select {
	case <-s.Settled():
		t.Fatal("demo pacing settled within 100 ms")
	default:
	}
	if st := statusT(t, u, s.ActionID()); st["state"] != "unknown" {
		t.Fatalf("state %v", st["state"])
	}
	s0, _ := start(t, "chat-tools", Knobs{})
	select {
	case <-s0.Settled():
	default:
		t.Fatal("Speed 0 did not append the whole script at start")
	}
	// Speed scales: chat-error takes about 1.5 s at Speed 1.
	s4, _ := start(t, "chat-error", Knobs{Speed: 10})
	t0 := time.Now()
	waitSettled(t, s4)
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("Speed 10 took %v", d)
	}
}

// TestCancelInTransit: a cancel sent while the turn still runs reaches the
// daemon only after the result, so it is the late cancel (200, the result
// stays completed, the turn played out); without the knob the same cancel
// stops the turn.
func TestCancelInTransit(t *testing.T) {
	t.Parallel()
	for _, transit := range []time.Duration{0, 20 * time.Millisecond} {
		// The turn is held after its first chunk (Knobs.Hold) until the
		// cancel has reached the simulator (in transit: its request is in,
		// the daemon has not seen it) or, without transit, has its answer:
		// the cancel leaves while the turn runs, by construction; then the
		// turn plays out at once.
		hold := make(chan struct{})
		s, u := start(t, "late-cancel", Knobs{Hold: hold, CancelInTransit: transit})
		replied := make(chan int, 1)
		go func() {
			resp, err := http.Post(u+"/aip/v1/actions/"+s.ActionID()+"/cancel", "application/json", nil)
			if err != nil {
				replied <- 0
				return
			}
			resp.Body.Close()
			replied <- resp.StatusCode
		}()
		for deadline := time.Now().Add(10 * time.Second); !slices.ContainsFunc(s.Requests(), func(r RequestLog) bool {
			return strings.HasSuffix(r.Path, "/cancel")
		}); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the cancel never left")
			}
		}
		status := 0
		if transit == 0 {
			status = <-replied
		}
		close(hold)
		if transit != 0 {
			status = <-replied
		}
		if status != http.StatusOK {
			t.Fatalf("transit %v: cancel %d", transit, status)
		}
		waitSettled(t, s)
		res := resultT(t, s, u)
		log := everything(t, s, u)
		if transit == 0 {
			if res.Status != "cancelled" {
				t.Fatalf("an early cancel without transit: result %s", res.Status)
			}
			continue
		}
		if res.Status != "completed" {
			t.Fatalf("a cancel in transit: result %s, want completed", res.Status)
		}
		if last := log.Chunks[len(log.Chunks)-1]; last.Kind != "done" {
			t.Fatalf("the turn did not play out: last chunk %s", last.Kind)
		}
		if e := log.Events[len(log.Events)-1]; e.Kind != "aip.action.cancelled" {
			t.Fatalf("the cancel did not land after the result: last event %s", e.Kind)
		}
		if st := statusT(t, u, s.ActionID()); st["state"] != "completed" {
			t.Fatalf("state after the late cancel: %v", st["state"])
		}
	}
}

package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/exp/golden"
	"golang.org/x/net/html"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// The HTML report (design §16):
//
//	go test ./output -run TestHTMLGolden -update

func TestHTMLGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		redact bool
	}{{"chat_stop", false}, {"responses_completed", false}, {"responses_completed", true}} {
		name := tc.name
		if tc.redact {
			name += "_redacted"
		}
		t.Run(name, func(t *testing.T) {
			a := fixture(t, tc.name)
			out := HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Redact: tc.redact, Version: "test", Now: now},
				Resume: "aipwatch --url https://aipd.example:8443 " + a.ID})
			golden.RequireEqual(t, out)
		})
	}
}

// htmlPayloads are what a hostile daemon or provider may put in a field
// to turn the report into a page that runs or loads something: the
// safe/ corpus of terminal sequences (testdata/hostile.json), and HTML's
// own.
func htmlPayloads(t testing.TB) map[string]string {
	raw, err := os.ReadFile(filepath.Join("..", "safe", "testdata", "hostile.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := map[string]string{}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"script":        `<script>alert(1)</script>`,
		"img onerror":   `<img src=x onerror="alert(1)">`,
		"attr break":    `"><svg onload=alert(1)>`,
		"single quote":  `' onmouseover='alert(1)`,
		"javascript":    `javascript:alert(document.cookie)`,
		"link":          `<a href="https://evil.example/x">click</a>`,
		"style url":     `<style>body{background:url(https://evil.example/p.png)}</style>`,
		"css import":    `</style><style>@import "https://evil.example/x.css";</style>`,
		"pre break":     `</pre><iframe src="https://evil.example"></iframe><pre>`,
		"svg break":     `</text></svg><object data="https://evil.example/x"></object>`,
		"cdata":         `<![CDATA[ ]]><script>x</script>`,
		"comment":       `<!-- --><base href="https://evil.example/">`,
		"entity":        `&lt;script&gt;alert(1)&lt;/script&gt;`,
		"meta refresh":  `<meta http-equiv="refresh" content="0;url=https://evil.example">`,
		"invalid utf-8": "ok\xff\xfe<b>",
		"nul":           "a\x00<script>",
	} {
		p[k] = v
	}
	return p
}

// hostileChunk is one Hermes chunk as aipd sends it, from Go values (so
// that every payload is valid JSON).
func hostileChunk(t testing.TB, id string, seq int, kind, event string, data any) model.StreamChunk {
	h := map[string]any{"data": data, "raw_data": "x", "terminal": kind == "done"}
	if event != "" {
		h["event"] = event
	}
	b, err := json.Marshal(map[string]any{"action_id": id, "sequence": seq, "kind": kind, "data": map[string]any{"hermes_sse": h}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.DecodeChunk(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hostileAction is a turn with the payload in every field the report
// shows: the text, reasoning, tool names, emoji, labels, arguments and
// results, the response ID, IDs, the error, the capability, the
// connection's causes, a failed cancel's message and an anomaly.
func hostileAction(t testing.TB, payload string, responses bool) *model.Action {
	id := "act_hostile"
	a := model.NewAction(id)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	step := func() time.Time { at = at.Add(300 * time.Millisecond); return at }
	apply := func(m stream.Msg) { stream.ApplyAt(a, m, at) }
	apply(stream.StatusMsg{Status: model.ActionStatus{ActionID: id, CapabilityID: "cap." + payload, State: "streaming",
		StartedAt: at.Format(time.RFC3339Nano)}})
	apply(stream.ModeMsg{})
	apply(stream.ConnectedMsg{Attempt: 1})
	var chunks []model.StreamChunk
	op := model.OpChat
	if responses {
		op = model.OpResponses
		ev := func(typ string, body map[string]any) model.StreamChunk {
			body["type"] = typ
			body["sequence_number"] = len(chunks)
			return hostileChunk(t, id, len(chunks), "data", typ, body)
		}
		chunks = append(chunks, ev("response.created", map[string]any{"response": map[string]any{"id": "resp_" + payload, "status": "in_progress"}}))
		chunks = append(chunks, ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}}))
		chunks = append(chunks, ev("response.output_text.delta", map[string]any{"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": payload}))
		call := map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_" + payload, "name": payload, "arguments": `{"q": ` + jsonString(payload) + `}`, "status": "completed"}
		chunks = append(chunks, ev("response.output_item.added", map[string]any{"output_index": 1, "item": call}))
		chunks = append(chunks, ev("response.output_item.done", map[string]any{"output_index": 1, "item": call}))
		out := map[string]any{"type": "function_call_output", "id": "fco_1", "call_id": "call_" + payload, "output": []any{map[string]any{"type": "input_text", "text": payload}}, "status": "completed"}
		chunks = append(chunks, ev("response.output_item.done", map[string]any{"output_index": 2, "item": out}))
		chunks = append(chunks, ev("response.failed", map[string]any{"response": map[string]any{"id": "resp_" + payload, "status": "failed", "error": map[string]any{"code": payload, "message": payload}}}))
	} else {
		delta := func(d map[string]any) model.StreamChunk {
			return hostileChunk(t, id, len(chunks), "data", "", map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}})
		}
		chunks = append(chunks, delta(map[string]any{"role": "assistant"}))
		chunks = append(chunks, delta(map[string]any{"reasoning_content": payload}))
		chunks = append(chunks, delta(map[string]any{"content": payload}))
		chunks = append(chunks, hostileChunk(t, id, len(chunks), "tool", "hermes.tool.progress", map[string]any{"tool": payload, "emoji": payload, "label": payload, "toolCallId": "call_" + payload, "status": "running"}))
		chunks = append(chunks, hostileChunk(t, id, len(chunks), "tool", "hermes.tool.progress", map[string]any{"tool": payload, "toolCallId": "call_" + payload, "status": payload}))
		chunks = append(chunks, hostileChunk(t, id, len(chunks), "data", "", map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}, "error": map[string]any{"message": payload}}))
	}
	for i, c := range chunks {
		ev := model.Event{ID: fmt.Sprintf("evt_%d", i), Kind: "aip.stream.chunk", OccurredAt: step().Format(time.RFC3339Nano), ActionID: id,
			Data: []byte(fmt.Sprintf(`{"action_id":%q,"sequence":%d,"kind":%q}`, id, c.Sequence, c.Kind))}
		apply(stream.BatchMsg{Chunks: []model.StreamChunk{c}, Events: []model.Event{ev}, At: at})
		if i == 2 {
			apply(stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: payload})
			apply(stream.ConnectedMsg{Attempt: 2, Cursor: "cur_" + payload, Resumed: true})
			a.RequestCancel(payload, at)
			apply(stream.CancelMsg{Err: &stream.Error{Op: "cancel", Code: payload, Message: payload}})
		}
	}
	// A conflicting repeat of a chunk: an anomaly whose detail is ours,
	// and a bad frame whose reason is the payload.
	conflict := chunks[1]
	conflict.Data = []byte(strings.Replace(string(conflict.Data), `"choices"`, `"choices" `, 1))
	conflict.Raw = nil
	apply(stream.BatchMsg{Chunks: []model.StreamChunk{conflict}, At: at})
	apply(stream.BadFrameMsg{Reason: payload})
	apply(stream.TerminalMsg{Cursor: "cur_" + payload})
	res, err := model.DecodeResult([]byte(`{"action_id":"act_hostile","status":"failed","output":{"endpoint_id":` + jsonString(payload) +
		`,"operation":"` + op + `","http_status":200,"events":[],"text":` + jsonString(payload) + `,"terminal":true,"truncated":false},` +
		`"error":{"code":` + jsonString("x."+payload) + `,"message":` + jsonString(payload) + `,"category":"connector"}}`))
	if err != nil {
		t.Fatal(err)
	}
	apply(stream.ResultMsg{Result: res})
	apply(stream.DoneMsg{})
	return a
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// allowedElements are the only elements the report has.
var allowedElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true, "main": true,
	"footer": true, "h1": true, "h2": true, "h3": true, "p": true, "span": true, "code": true, "pre": true, "em": true,
	"ul": true, "ol": true, "li": true, "table": true, "tbody": true, "tr": true, "th": true, "td": true,
	"figure": true, "figcaption": true,
	"svg": true, "desc": true, "line": true, "text": true, "rect": true, "path": true, "polyline": true,
}

// allowedAttrs are the only attributes it has; none holds a URL.
var allowedAttrs = map[string]bool{
	"lang": true, "charset": true, "http-equiv": true, "content": true, "name": true, "class": true, "scope": true,
	"role": true, "aria-labelledby": true, "id": true, "viewbox": true, "width": true, "height": true,
	"x": true, "y": true, "x1": true, "y1": true, "x2": true, "y2": true, "rx": true, "d": true, "points": true, "text-anchor": true,
}

// inert checks a report: it parses as HTML, and holds no element but
// ours (no script, no iframe, no object, no link, no base, no img), no
// attribute but ours (no on*, no href, no src, no style), no URL in its
// style, and the Content-Security-Policy that forbids every load.
func inert(t testing.TB, doc []byte) (elements map[string]int, text string) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("the report does not parse: %v", err)
	}
	elements = map[string]int{}
	var texts strings.Builder
	csp := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			elements[n.Data]++
			if !allowedElements[n.Data] {
				t.Errorf("element <%s> in the report", n.Data)
			}
			for _, at := range n.Attr {
				k := strings.ToLower(at.Key)
				if strings.HasPrefix(k, "on") {
					t.Errorf("event attribute %s=%q on <%s>", at.Key, at.Val, n.Data)
				}
				if !allowedAttrs[k] {
					t.Errorf("attribute %s=%q on <%s>", at.Key, at.Val, n.Data)
				}
				if v := strings.ToLower(at.Val); strings.Contains(v, "http:") || strings.Contains(v, "https:") ||
					strings.Contains(v, "data:") || strings.Contains(v, "javascript:") || strings.Contains(v, "url(") {
					t.Errorf("a URL in %s=%q on <%s>", at.Key, at.Val, n.Data)
				}
			}
			if n.Data == "meta" {
				for _, at := range n.Attr {
					if at.Key == "content" && strings.Contains(at.Val, "default-src 'none'") {
						csp = true
					}
				}
			}
			if n.Data == "style" {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if s := strings.ToLower(c.Data); strings.Contains(s, "url(") || strings.Contains(s, "@import") || strings.Contains(s, "expression(") {
						t.Errorf("the style loads something: %.200q", c.Data)
					}
				}
			}
		case html.TextNode:
			texts.WriteString(n.Data)
			texts.WriteByte('\n')
		case html.CommentNode:
			t.Errorf("a comment in the report: %q", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	if !csp {
		t.Error("no Content-Security-Policy with default-src 'none'")
	}
	if elements["style"] != 1 || elements["svg"] > 1 || elements["body"] != 1 {
		t.Errorf("the report's structure changed: %v", elements)
	}
	return elements, texts.String()
}

// A turn full of hostile payloads gives a report that runs and loads
// nothing, whatever the field; the payload is shown as text (unless
// redacted, when the content fields are masked); the token is never in it.
func TestHTMLHostilePayloadsAreInert(t *testing.T) {
	token := "aip_tok_" + strings.Repeat("Zq9", 6) + fmt.Sprint(time.Now().UnixNano())
	safe.Protect(token)
	payloads := htmlPayloads(t)
	names := make([]string, 0, len(payloads))
	for k := range payloads {
		names = append(names, k)
	}
	sort.Strings(names)
	var ref map[string]int
	for _, name := range names {
		for _, responses := range []bool{false, true} {
			for _, redact := range []bool{false, true} {
				payload := payloads[name] + " " + token
				a := hostileAction(t, payload, responses)
				doc := HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Redact: redact, Version: "test", Now: now}, Resume: "aipwatch " + payload})
				if bytes.Contains(doc, []byte(token)) || bytes.Contains(doc, []byte(token[:12])) {
					t.Errorf("%s: the token is in the report", name)
				}
				els, text := inert(t, doc)
				if !redact && name == "script" && !strings.Contains(text, "<script>alert(1)</script>") {
					t.Errorf("%s: the payload is not shown as text", name)
				}
				if redact {
					for _, p := range []string{"alert(", "evil.example"} {
						if strings.Contains(payloads[name], p) && strings.Contains(text, p) && !strings.Contains(text, "aipwatch "+safe.Line(payloads[name])) {
							t.Errorf("%s: redacted report shows %q", name, p)
						}
					}
				}
				if !responses && !redact {
					// Every payload gives the same elements: none
					// of them is taken as markup.
					if ref == nil {
						ref = els
					} else if fmt.Sprint(els) != fmt.Sprint(ref) {
						t.Errorf("%s: elements %v, another payload's %v", name, els, ref)
					}
				}
			}
		}
	}
}

// FuzzHTML: whatever the text, the tool name, the arguments and the
// error, the report is inert, and its elements are those of the same turn
// with every character HTML gives a meaning to (< > & " ') replaced by x:
// no payload adds, removes or nests an element.
func FuzzHTML(f *testing.F) {
	for _, p := range htmlPayloads(f) {
		f.Add(p, false)
	}
	f.Add("plain text", true)
	f.Add("", false)
	defang := strings.NewReplacer("<", "x", ">", "x", "&", "x", `"`, "x", "'", "x")
	f.Fuzz(func(t *testing.T, payload string, responses bool) {
		doc := HTML(hostileAction(t, payload, responses), HTMLOptions{MarkdownOptions: MarkdownOptions{Now: now}, Resume: payload})
		els, _ := inert(t, doc)
		plain := defang.Replace(payload)
		want, _ := inert(t, HTML(hostileAction(t, plain, responses), HTMLOptions{MarkdownOptions: MarkdownOptions{Now: now}, Resume: plain}))
		if got, want := fmt.Sprint(els), fmt.Sprint(want); got != want {
			t.Errorf("elements %s, the defanged turn's %s", got, want)
		}
	})
}

// The Markdown export's timeline chart holds tool names: fenced like all
// untrusted text, a name with backticks, a newline or Markdown can
// neither end the fence nor break the chart's rows.
func TestMarkdownTimelineChartIsFenced(t *testing.T) {
	a := hostileAction(t, "```\n# forged\n<script>x</script>", false)
	md := string(Markdown(a, MarkdownOptions{Now: now}))
	i := strings.Index(md, "## Timeline\n\n")
	if i < 0 {
		t.Fatalf("no timeline:\n%s", md)
	}
	rest := md[i+len("## Timeline\n\n"):]
	fence := rest[:strings.IndexByte(rest, '\n')]
	if len(fence) < 4 || strings.Trim(fence, "`") != "text" {
		t.Fatalf("the chart's fence %q is not longer than the name's backticks", fence)
	}
	ticks := strings.TrimSuffix(fence, "text")
	body := rest[len(fence)+1:]
	end := strings.Index(body, "\n"+ticks+"\n")
	if end < 0 {
		t.Fatal("the chart's fence is not closed")
	}
	for _, row := range strings.Split(body[:end], "\n") {
		if strings.HasPrefix(row, "# forged") || utf8.RuneCountInString(row) > chartWidth+2 {
			t.Errorf("a tool name broke the chart's rows: %q", row)
		}
	}
}

// --redact masks in the report what it masks in Markdown: the text, the
// tool arguments and results, the provider IDs.
func TestRedactedHTMLHidesContent(t *testing.T) {
	a := fixture(t, "responses_completed")
	plain := string(HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Now: now}}))
	red := string(HTML(a, HTMLOptions{MarkdownOptions: MarkdownOptions{Redact: true, Now: now}}))
	secrets := []string{a.Responses().ResponseID, a.Text()}
	for _, tool := range a.Tools() {
		secrets = append(secrets, tool.ID, tool.Label)
	}
	for _, it := range a.Items() {
		secrets = append(secrets, it.Output...)
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		first := html.EscapeString(strings.Split(s, "\n")[0])
		if !strings.Contains(plain, first) {
			t.Errorf("the report lacks %q (the test would prove nothing)", first)
		}
		if strings.Contains(red, first) {
			t.Errorf("the redacted report holds %q", first)
		}
	}
	if !strings.Contains(red, safe.Masked) {
		t.Error("the redacted report shows no mask")
	}
}

package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// frame is one SSE frame as the Hermes API server writes it (docs/protocol.md §9).
// The Chat and Responses routes never write an id: line, and always exactly
// one data: line.
type frame struct {
	event string // SSE event name; "" when the frame has no event: line
	value any    // the JSON payload (an obj); nil when data is not JSON
	text  string // the data text when value is nil, e.g. "[DONE]"
}

// fakeHex gives stable, random-looking hex ids derived from a label, so a
// scenario's provider ids are the same on every run.
func fakeHex(label string, n int) string {
	var out strings.Builder
	for i := 0; out.Len() < n; i++ {
		sum := sha256.Sum256([]byte(label + "#" + string(rune('a'+i))))
		out.WriteString(hex.EncodeToString(sum[:]))
	}
	return out.String()[:n]
}

// The fixed created timestamp of the scripted turns (2026-09-10, the date of
// the real capture in docs/protocol.md §9.1).
const hermesCreated = 1789028102

const hermesModel = "hermes-agent"

// doneFrame is the Chat stream's last frame.
func doneFrame() frame { return frame{text: "[DONE]"} }

// chatGen writes Chat Completions chunks (docs/protocol.md §9.2).
type chatGen struct {
	id string // "chatcmpl-" + 29 hex
}

func newChatGen(label string) chatGen {
	return chatGen{id: "chatcmpl-" + fakeHex("chat:"+label, 29)}
}

func (g chatGen) chunk(choice obj, extra ...kv) frame {
	v := o("id", g.id, "object", "chat.completion.chunk", "created", hermesCreated, "model", hermesModel,
		"choices", []any{choice})
	return frame{value: append(v, extra...)}
}

// role is the first chunk of every Chat stream.
func (g chatGen) role() frame {
	return g.chunk(o("index", 0, "delta", o("role", "assistant"), "finish_reason", nil))
}

// delta is one content chunk.
func (g chatGen) delta(text string) frame {
	return g.chunk(o("index", 0, "delta", o("content", text), "finish_reason", nil))
}

func chatUsage(prompt, completion int) obj {
	return o("prompt_tokens", prompt, "completion_tokens", completion, "total_tokens", prompt+completion)
}

// finishStop is the ordinary finish chunk: no error, no hermes object.
func (g chatGen) finishStop(usage obj) frame {
	return g.chunk(o("index", 0, "delta", o(), "finish_reason", "stop"), kv{"usage", usage})
}

// finishLength is the finish of a partial result whose error mentions
// truncation (§2.5).
func (g chatGen) finishLength(usage obj, errText string) frame {
	return g.chunk(o("index", 0, "delta", o(), "finish_reason", "length"),
		kv{"usage", usage},
		kv{"error", o("message", errText, "type", "agent_error")},
		kv{"hermes", o("completed", false, "partial", true, "failed", false, "error", errText, "error_code", "output_truncated")})
}

// finishError is the finish of a failed agent result (§2.5).
func (g chatGen) finishError(usage obj, errText string) frame {
	return g.chunk(o("index", 0, "delta", o(), "finish_reason", "error"),
		kv{"usage", usage},
		kv{"error", o("message", errText, "type", "agent_error")},
		kv{"hermes", o("completed", false, "partial", false, "failed", true, "error", errText, "error_code", "agent_error")})
}

// crash is the chunk the writer sends when it fails itself: no usage, no
// error object (§2.5).
func (g chatGen) crash() frame {
	return g.chunk(o("index", 0, "delta", o(), "finish_reason", "error"))
}

// toolRunning and toolCompleted are the hermes.tool.progress events (§2.4).
func toolRunning(tool, emoji, label, callID string) frame {
	return frame{event: "hermes.tool.progress",
		value: o("tool", tool, "emoji", emoji, "label", label, "toolCallId", callID, "status", "running")}
}

func toolCompleted(tool, callID string) frame {
	return frame{event: "hermes.tool.progress",
		value: o("tool", tool, "toolCallId", callID, "status", "completed")}
}

// respGen writes a Responses stream (docs/protocol.md §9.4). It keeps the state
// the server keeps: the sequence number, output index allocation, the open
// message item and the slim items of the terminal output.
type respGen struct {
	label    string
	id       string // "resp_" + 28 hex
	seq      int
	next     int // next output_index
	msgID    string
	msgIndex int
	msgOpen  bool
	text     strings.Builder
	calls    map[string]*respCall
	nCalls   int
	terminal []any // slim tool items for the terminal output, in order
}

type respCall struct {
	item  obj // the streamed function_call item, status patched per event
	index int
	name  string
	args  string
}

func newRespGen(label string) *respGen {
	return &respGen{label: label, id: "resp_" + fakeHex("resp:"+label, 28), calls: map[string]*respCall{}}
}

// ev finishes a Responses event: type first, sequence_number last.
func (g *respGen) ev(typ string, body ...kv) frame {
	v := make(obj, 0, len(body)+2)
	v = append(v, kv{"type", typ})
	v = append(v, body...)
	v = append(v, kv{"sequence_number", g.seq})
	g.seq++
	return frame{event: typ, value: v}
}

func (g *respGen) envelope(status string, output []any, extra ...kv) obj {
	v := o("id", g.id, "object", "response", "status", status, "created_at", hermesCreated, "model", hermesModel, "output", output)
	return append(v, extra...)
}

func (g *respGen) created() frame {
	return g.ev("response.created", kv{"response", g.envelope("in_progress", []any{})})
}

// textDelta writes one batch of text, opening the message item (and
// allocating its output_index) at the first one. Text after tools goes into
// the same item.
func (g *respGen) textDelta(text string) []frame {
	var out []frame
	if !g.msgOpen {
		g.msgOpen = true
		g.msgID = "msg_" + fakeHex("msg:"+g.label, 24)
		g.msgIndex = g.next
		g.next++
		out = append(out, g.ev("response.output_item.added", kv{"output_index", g.msgIndex},
			kv{"item", o("id", g.msgID, "type", "message", "status", "in_progress", "role", "assistant", "content", []any{})}))
	}
	g.text.WriteString(text)
	out = append(out, g.ev("response.output_text.delta", kv{"item_id", g.msgID}, kv{"output_index", g.msgIndex},
		kv{"content_index", 0}, kv{"delta", text}, kv{"logprobs", []any{}}))
	return out
}

// toolStarted opens a function_call item. args is the JSON text of the
// arguments object, as Python json.dumps writes it.
func (g *respGen) toolStarted(name, callID string, args obj) frame {
	g.nCalls++
	c := &respCall{index: g.next, name: name, args: string(appendPy(nil, args))}
	g.next++
	c.item = o("id", "fc_"+fakeHex("fc:"+g.label+callID, 24), "type", "function_call", "status", "in_progress",
		"name", name, "call_id", callID, "arguments", c.args)
	g.calls[callID] = c
	return g.ev("response.output_item.added", kv{"output_index", c.index}, kv{"item", c.item})
}

// toolCompleted closes the function_call and adds its output item (added and
// done at once, with identical items).
func (g *respGen) toolCompleted(callID, result string) []frame {
	c := g.calls[callID]
	done := make(obj, len(c.item))
	copy(done, c.item)
	for i := range done {
		if done[i].K == "status" {
			done[i].V = "completed"
		}
	}
	outIndex := g.next
	g.next++
	parts := []any{o("type", "input_text", "text", result)}
	item := o("id", "fco_"+fakeHex("fco:"+g.label+callID, 24), "type", "function_call_output", "call_id", callID,
		"output", parts, "status", "completed")
	g.terminal = append(g.terminal,
		o("type", "function_call", "name", c.name, "arguments", c.args, "call_id", callID),
		o("type", "function_call_output", "call_id", callID, "output", parts))
	return []frame{
		g.ev("response.output_item.done", kv{"output_index", c.index}, kv{"item", done}),
		g.ev("response.output_item.added", kv{"output_index", outIndex}, kv{"item", item}),
		g.ev("response.output_item.done", kv{"output_index", outIndex}, kv{"item", item}),
	}
}

// completed closes the message item (if one was opened) and writes the
// terminal response.completed with the slim output.
func (g *respGen) completed(input, output int) []frame {
	var out []frame
	final := append([]any{}, g.terminal...)
	if g.msgOpen {
		text := g.text.String()
		out = append(out,
			g.ev("response.output_text.done", kv{"item_id", g.msgID}, kv{"output_index", g.msgIndex},
				kv{"content_index", 0}, kv{"text", text}, kv{"logprobs", []any{}}),
			g.ev("response.output_item.done", kv{"output_index", g.msgIndex},
				kv{"item", o("id", g.msgID, "type", "message", "status", "completed", "role", "assistant",
					"content", []any{o("type", "output_text", "text", text)})}))
		final = append(final, o("type", "message", "role", "assistant", "content", []any{o("type", "output_text", "text", text)}))
	}
	usage := o("input_tokens", input, "output_tokens", output, "total_tokens", input+output)
	out = append(out, g.ev("response.completed", kv{"response", g.envelope("completed", final, kv{"usage", usage})}))
	return out
}

// failed writes response.failed for an agent that errored with an empty
// final response: the output carries the tool items and a message holding
// the (redacted) error text; usage is zero.
func (g *respGen) failed(errText string) frame {
	final := append([]any{}, g.terminal...)
	final = append(final, o("type", "message", "role", "assistant", "content", []any{o("type", "output_text", "text", errText)}))
	return g.ev("response.failed", kv{"response", g.envelope("failed", final,
		kv{"error", o("message", errText, "type", "server_error")},
		kv{"usage", o("input_tokens", 0, "output_tokens", 0, "total_tokens", 0)})})
}

// cancelReasonText is the reason a cancelled action's result carries.
const cancelReasonText = "action cancellation requested"

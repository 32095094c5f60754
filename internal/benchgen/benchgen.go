// Package benchgen builds the raw StreamChunk objects of the performance
// benchmarks: a Chat turn of one-token deltas, a Responses turn with many
// items or one long item, and the hostile arrivals of the hostile-order benchmarks (descending
// sequence order, many conflicting chunks on one sequence). The chunks have
// the shape aipd's Hermes connector writes (protocol §8.1): the provider
// frame as hermes_sse.data and again, as text, in raw_data. It is test
// support only and imports nothing of this module.
package benchgen

import (
	"encoding/json"
	"strconv"
)

const chatID = "chatcmpl-0123456789abcdef0123456789abc"

// chunk writes one Hermes chunk around a provider frame (nil frame: the
// Chat [DONE] marker).
func chunk(action string, seq uint64, kind, event string, frame []byte, terminal bool) []byte {
	raw := frame
	data := frame
	if frame == nil {
		raw, data = []byte("[DONE]"), []byte("null")
	}
	rd, _ := json.Marshal(string(raw))
	b := make([]byte, 0, 2*len(frame)+160)
	b = append(b, `{"action_id":"`...)
	b = append(b, action...)
	b = append(b, `","sequence":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, kind...)
	b = append(b, `","data":{"hermes_sse":{`...)
	if event != "" {
		b = append(b, `"event":"`...)
		b = append(b, event...)
		b = append(b, `",`...)
	}
	b = append(b, `"data":`...)
	b = append(b, data...)
	b = append(b, `,"raw_data":`...)
	b = append(b, rd...)
	b = append(b, `,"terminal":`...)
	b = strconv.AppendBool(b, terminal)
	return append(b, `}}}`...)
}

func chatFrame(delta string, finish string) []byte {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	s := `{"id":"` + chatID + `","object":"chat.completion.chunk","created":1789028102,"model":"hermes-agent","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + `}]`
	if finish != "" {
		s += `,"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}`
	}
	return []byte(s + "}")
}

// ChatToken is the Chat content chunk of one token at seq.
func ChatToken(action string, seq uint64, token string) []byte {
	t, _ := json.Marshal(token)
	return chunk(action, seq, "data", "", chatFrame(`{"content":`+string(t)+`}`, ""), false)
}

// Chat is a whole Chat turn of n chunks (n >= 4), sequences 0..n-1: the
// role chunk, n-3 one-token content chunks, the finish (stop) and [DONE].
func Chat(action string, n int) [][]byte {
	out := make([][]byte, 0, n)
	out = append(out, chunk(action, 0, "data", "", chatFrame(`{"role":"assistant"}`, ""), false))
	for i := 1; i < n-2; i++ {
		out = append(out, ChatToken(action, uint64(i), "tok"+strconv.Itoa(i%100)+" "))
	}
	out = append(out, chunk(action, uint64(n-2), "data", "", chatFrame(`{}`, "stop"), false))
	out = append(out, chunk(action, uint64(n-1), "done", "", nil, true))
	return out
}

// Descending is chunks in descending sequence order (a hostile server).
func Descending(chunks [][]byte) [][]byte {
	out := make([][]byte, len(chunks))
	for i, c := range chunks {
		out[len(chunks)-1-i] = c
	}
	return out
}

// Conflicting is n chunks of which all but the first (the role chunk, 0)
// carry sequence 1 with different content: the first of them is kept, the
// other n-2 are conflicts.
func Conflicting(action string, n int) [][]byte {
	out := make([][]byte, 0, n)
	out = append(out, chunk(action, 0, "data", "", chatFrame(`{"role":"assistant"}`, ""), false))
	for i := 1; i < n; i++ {
		out = append(out, ChatToken(action, 1, "tok"+strconv.Itoa(i)+" "))
	}
	return out
}

func respFrame(seqNum int, typ, rest string) []byte {
	return []byte(`{"type":"` + typ + `","sequence_number":` + strconv.Itoa(seqNum) + rest + `}`)
}

// ResponsesItems is a Responses turn with items message items, each opened,
// given one text delta and closed: 3*items+2 chunks.
func ResponsesItems(action string, items int) [][]byte {
	out := make([][]byte, 0, 3*items+2)
	seq := 0
	add := func(typ, rest string, kind string, terminal bool) {
		out = append(out, chunk(action, uint64(seq), kind, typ, respFrame(seq, typ, rest), terminal))
		seq++
	}
	add("response.created", `,"response":{"id":"resp_bench","status":"in_progress"}`, "data", false)
	for i := 0; i < items; i++ {
		id := `"msg_` + strconv.Itoa(i) + `"`
		idx := strconv.Itoa(i)
		add("response.output_item.added", `,"output_index":`+idx+`,"item":{"id":`+id+`,"type":"message","status":"in_progress","role":"assistant","content":[]}`, "data", false)
		add("response.output_text.delta", `,"item_id":`+id+`,"output_index":`+idx+`,"content_index":0,"delta":"item `+idx+` text"`, "data", false)
		add("response.output_item.done", `,"output_index":`+idx+`,"item":{"id":`+id+`,"type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"item `+idx+` text"}]}`, "data", false)
	}
	add("response.completed", `,"response":{"id":"resp_bench","status":"completed","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`, "done", true)
	return out
}

// ResponsesOneItem is a Responses turn of n chunks (n >= 4) with one
// message item growing by n-4 deltas: the normal-order reference for
// ResponsesItems with the same count.
func ResponsesOneItem(action string, n int) [][]byte {
	out := make([][]byte, 0, n)
	seq := 0
	add := func(typ, rest string, kind string, terminal bool) {
		out = append(out, chunk(action, uint64(seq), kind, typ, respFrame(seq, typ, rest), terminal))
		seq++
	}
	add("response.created", `,"response":{"id":"resp_bench","status":"in_progress"}`, "data", false)
	add("response.output_item.added", `,"output_index":0,"item":{"id":"msg_0","type":"message","status":"in_progress","role":"assistant","content":[]}`, "data", false)
	for i := 0; i < n-4; i++ {
		add("response.output_text.delta", `,"item_id":"msg_0","output_index":0,"content_index":0,"delta":"tok`+strconv.Itoa(i%100)+` "`, "data", false)
	}
	add("response.output_item.done", `,"output_index":0,"item":{"id":"msg_0","type":"message","status":"completed","role":"assistant","content":[]}`, "data", false)
	add("response.completed", `,"response":{"id":"resp_bench","status":"completed","usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`, "done", true)
	return out
}

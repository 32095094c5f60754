package record

import (
	"encoding/json"
	"fmt"

	"aipwatch/safe"
)

// redactor masks the content of recorded frames (--redact) while keeping
// their structure, so a redacted recording still replays to the same
// verdict: event names, types, statuses, finish reasons, kinds, sequences
// and counts stay; provider IDs become stable pseudonyms (id-1, id-2, …) so
// calls still pair with their outputs; streamed text becomes empty (so an
// output_text.done still agrees with its deltas); every other string is
// masked.
type redactor struct {
	ids map[string]string
}

func newRedactor() *redactor { return &redactor{ids: map[string]string{}} }

// keep: structural keys whose values decide the verdict or the layout.
var keep = map[string]bool{
	"type": true, "event": true, "object": true, "status": true, "role": true, "finish_reason": true,
	"kind": true, "tool": true, "emoji": true, "name": true, "error_code": true, "code": true,
	"category": true, "retryable": true, "operation": true, "endpoint_id": true, "http_status": true,
	"terminal": true, "truncated": true, "completed": true, "partial": true, "failed": true,
	"sequence_number": true, "output_index": true, "content_index": true, "sequence": true,
	"action_id": true, "created": true, "created_at": true, "model": true, "occurred_at": true,
	"next_cursor": true, "format": true, "target": true, "retry_after_ms": true, "state": true,
	"index": true, "logprobs": true, "usage": true, "cancelled": true,
}

// pseudonymised: provider identifiers.
var pseudonymised = map[string]bool{
	"id": true, "item_id": true, "call_id": true, "toolCallId": true, "tool_call_id": true,
	"response_id": true, "session_id": true,
}

// streamed: text that accumulates and is compared with a done text.
var streamed = map[string]bool{"delta": true, "content": true, "text": true, "reasoning_content": true}

// frameData redacts one frame's data; data that is not JSON is masked.
func (r *redactor) frameData(data string) string {
	if data == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		return safe.Masked
	}
	b, err := json.Marshal(r.value("", v))
	if err != nil {
		return safe.Masked
	}
	return string(b)
}

// object redacts a decoded object (status, result) re-encoded as JSON.
func (r *redactor) object(raw json.RawMessage) json.RawMessage {
	return json.RawMessage(r.frameData(string(raw)))
}

func (r *redactor) value(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if k == "raw_data" {
				// The provider text itself: the structure is in data.
				out[k] = r.rawData(x)
				continue
			}
			out[k] = r.value(k, val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = r.value(key, val)
		}
		return out
	case string:
		switch {
		case x == "" || x == "[DONE]":
			return x
		case keep[key]:
			return x
		case pseudonymised[key]:
			return r.pseudonym(x)
		case streamed[key]:
			return ""
		}
		return safe.Masked
	default:
		return v // numbers, booleans, null
	}
}

// rawData keeps [DONE] (it decides explicit-terminal) and masks the rest.
func (r *redactor) rawData(envelope map[string]any) string {
	if s, _ := envelope["raw_data"].(string); s == "[DONE]" || s == "" {
		return s
	}
	return safe.Masked
}

func (r *redactor) pseudonym(id string) string {
	if p, ok := r.ids[id]; ok {
		return p
	}
	p := fmt.Sprintf("id-%d", len(r.ids)+1)
	r.ids[id] = p
	return p
}

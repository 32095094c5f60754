package stream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// bigResult is a result reply like the firehose's: an aggregate whose
// events array holds n provider frames, twice (output and a json part).
func bigResult(n int) []byte {
	var ev strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			ev.WriteByte(',')
		}
		ev.WriteString(`{"event":null,"data":{"id":"chatcmpl-0123456789abcdef","object":"chat.completion.chunk","created":1789028102,"model":"hermes-agent","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]},"raw_data":"{\"id\": \"chatcmpl-0123456789abcdef\", \"object\": \"chat.completion.chunk\", \"created\": 1789028102, \"model\": \"hermes-agent\", \"choices\": [{\"index\": 0, \"delta\": {\"content\": \"token \"}, \"finish_reason\": null}]}","terminal":false}`)
	}
	agg := `{"endpoint_id":"sim","operation":"chat_stream","http_status":200,"events":[` + ev.String() + `],"text":"t","terminal":true,"truncated":false}`
	return []byte(`{"action_result":{"action_id":"act_1","status":"completed","output":` + agg + `,"message":[{"type":"text","text":"t","format":"plain"},{"type":"json","data":` + agg + `}]}}`)
}

// BenchmarkResultReply: reading a 10,000-frame result reply, streamed
// (reduceResult: the events arrays skipped by their structure, the rest
// validated) against encoding/json into any (the general way to read it
// whole), in MB/s of reply.
func BenchmarkResultReply(b *testing.B) {
	body := bigResult(10000)
	b.Run("stream", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := reduceResult(bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-any", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

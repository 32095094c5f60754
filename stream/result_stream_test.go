package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// withoutEvents decodes a result reply into any and deletes the events
// members reduceResult drops: what the reduced body must equal.
func withoutEvents(t testing.TB, b []byte) (any, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false // trailing data: json.Unmarshal refuses it too
	}
	res := v
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["action_result"]; ok {
			strip(inner)
		}
		strip(res)
	}
	return v, true
}

func strip(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if out, ok := m["output"].(map[string]any); ok {
		delete(out, "events")
	}
	if parts, ok := m["message"].([]any); ok {
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				if data, ok := pm["data"].(map[string]any); ok {
					delete(data, "events")
				}
			}
		}
	}
}

// checkReduce: reduceResult accepts exactly the valid JSON documents, and
// what it returns is the document without the aggregate's events arrays,
// however the reader splits the bytes.
func checkReduce(t *testing.T, body []byte) {
	want, valid := withoutEvents(t, body)
	for _, r := range []io.Reader{bytes.NewReader(body), iotest.OneByteReader(bytes.NewReader(body)), iotest.HalfReader(bytes.NewReader(body))} {
		got, err := reduceResult(r)
		if (err == nil) != valid {
			if err != nil && errors.Is(err, errTooDeep) {
				return
			}
			t.Fatalf("valid %v, reduceResult error %v\n%q", valid, err, body)
		}
		if !valid {
			continue
		}
		var g any
		d := json.NewDecoder(bytes.NewReader(got))
		d.UseNumber()
		if err := d.Decode(&g); err != nil {
			t.Fatalf("reduced body is not JSON: %v\n%q\n%q", err, body, got)
		}
		if !reflect.DeepEqual(g, want) {
			t.Fatalf("reduced body differs:\n%q\ngot  %q", body, got)
		}
	}
}

var reduceSeeds = []string{
	`{"action_result":{"action_id":"act_1","status":"completed","output":{"endpoint_id":"e","operation":"chat_stream","http_status":200,"events":[{"event":null,"data":{"a":[1,2,{"b":"\"]}"}]},"raw_data":"{\"x\":\"\\u00e9\"}"}],"text":"hi","terminal":true,"truncated":false},"message":[{"type":"text","text":"hi","format":"plain"},{"type":"json","data":{"operation":"chat_stream","events":[{"x":1}],"terminal":true}}]}}`,
	`{"action_id":"act_1","status":"failed","output":{"events":[]},"error":{"code":"connector.hermes_agent.stream_truncated","message":"m"}}`,
	`{"action_result":{"status":"cancelled","output":{"cancelled":true,"reason":"r"}},"other":[1,2.5e-3,-0,true,false,null]}`,
	` {"action_result" : { "status" : "completed" , "output" : { "ev\u0065nts" : [ 1 , 2 ] , "terminal" : true } } } `,
	`{"action_result":{"status":"completed","output":{"events":[1,2],"events":[3]}}}`,
	`{"action_result":{"status":"completed","output":"a string output","message":[]}}`,
	`{"action_result":{"status":"completed","output":{"events":[tru]}}}`,
	`{"action_result":{"status":"completed","output":{"events":["\x01"]}}}`,
	`{"action_result":{"status":"completed","output":{"events":[01]}}}`,
	`{"action_result":{"status":"completed"}} x`,
	`{"action_result":{"status":"completed","output":{"events":["\ud83d\ude00 \q"]}}}`,
	`{"a":`,
	`[]`,
	`"s"`,
}

func TestReduceResult(t *testing.T) {
	for _, s := range reduceSeeds {
		checkReduce(t, []byte(s))
	}
	// A long events array across many buffer refills.
	var b strings.Builder
	b.WriteString(`{"action_result":{"action_id":"act_big","status":"completed","output":{"operation":"chat_stream","events":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"event":null,"data":{"choices":[{"delta":{"content":"tok \"q\" \\ \u00e9"}}]},"raw_data":"{\"choices\":[{\"delta\":{\"content\":\"tok\"}}]}","terminal":false}`)
	}
	b.WriteString(`],"text":"t","terminal":true,"truncated":false}}}`)
	body := []byte(b.String())
	checkReduce(t, body)
	got, err := reduceResult(bytes.NewReader(body))
	if err != nil || len(got) > 200 {
		t.Fatalf("reduced to %d bytes (%v): %s", len(got), err, got)
	}
}

func TestReduceResultReaderError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"action_result":{"status":"completed","output":{"events":[1,`), iotest.ErrReader(boom))
	_, err := reduceResult(r)
	var re readError
	if !errors.As(err, &re) || !errors.Is(err, boom) {
		t.Fatalf("error %v, want the reader's", err)
	}
}

func FuzzReduceResult(f *testing.F) {
	for _, s := range reduceSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkReduce(t, body) })
}

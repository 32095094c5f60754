package model

import (
	"encoding/json"
	"testing"
)

func TestStructural(t *testing.T) {
	byName := func(name string) []StreamChunk { return loadChunks(t, name) }
	chat := byName("chat_stop")
	resp := byName("responses_completed")
	cases := []struct {
		name string
		c    StreamChunk
		want bool
	}{
		{"chat role opens the message", chat[0], true},
		{"chat content delta only grows text", chat[1], false},
		{"tool progress running", chat[2], true},
		{"tool progress completed", chat[3], true},
		{"chat finish", chat[5], true},
		{"[DONE]", chat[6], true},
		{"response.created", resp[0], true},
		{"output_item.added", resp[1], true},
		{"output_text.delta only grows text", resp[2], false},
		{"output_item.done", resp[4], true},
		{"output_text.done", resp[8], true},
		{"response.completed", resp[10], true},
		{"upstream closed error chunk", byName("chat_upstream_closed")[3], true},
		{"crash finish", byName("chat_crash")[2], true},
		{"generic text part", rawChunk(t, `{"action_id":"a","sequence":0,"kind":"data","part":{"type":"text","text":"hi","format":"plain"}}`), false},
		{"generic progress", rawChunk(t, `{"action_id":"a","sequence":0,"kind":"progress","data":{"message":"50%"}}`), true},
		{"unknown kind", rawChunk(t, `{"action_id":"a","sequence":0,"kind":"mystery"}`), true},
		// Text that merely mentions the markers is escaped inside the JSON
		// string and is not structural.
		{"content quoting a finish", hermes("a", 1, "", "", content(`say "finish_reason":"stop" and "role":"x"`)), false},
	}
	for _, tc := range cases {
		if got := Structural(tc.c); got != tc.want {
			t.Errorf("%s: Structural = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Structural must agree with what the chunk does to the model for the
// fixture streams: a chunk it calls non-structural only grows text.
func TestStructuralAgreesWithModel(t *testing.T) {
	for _, name := range []string{"chat_stop", "chat_length", "chat_old_tool", "responses_completed", "responses_mismatch"} {
		chunks := loadChunks(t, name)
		a := NewAction(chunks[0].ActionID)
		for _, c := range chunks {
			before := shape(a)
			a.IngestChunk(c, t0)
			if !Structural(c) && shape(a) != before {
				t.Errorf("%s chunk %d: not structural but changed %s -> %s", name, c.Sequence, before, shape(a))
			}
		}
	}
}

// shape is the model minus growing text: items, tools, finish, terminal.
func shape(a *Action) string {
	type it struct {
		Kind         ItemKind
		Key          string
		Status       string
		Done, HasOut bool
	}
	var s struct {
		Items  []it
		Tools  []string
		Finish bool
		Done   bool
		Resp   string
	}
	for _, x := range a.Items() {
		s.Items = append(s.Items, it{x.Kind, x.Key, x.Status, x.Done, x.HasOutput})
	}
	for _, tl := range a.Tools() {
		s.Tools = append(s.Tools, tl.ID+"/"+tl.Status)
	}
	s.Finish = a.Chat().Finish != nil
	s.Done = a.Chat().DoneMarker
	s.Resp = a.Responses().Status
	b, _ := json.Marshal(s)
	return string(b)
}

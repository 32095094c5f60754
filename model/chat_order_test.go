package model

import "testing"

// Reasoning is shown before the answer even when the role chunk opened the
// message first (the usual order on the wire).
func TestChatReasoningComesBeforeTheAnswer(t *testing.T) {
	a := NewAction("act_r")
	feed(t, a, chatSeq("act_r", role(), reasoning("thinking"), content("answer"), finish("stop", nil), "[DONE]"))
	items := a.Items()
	if len(items) != 2 || items[0].Kind != ItemReasoning || items[1].Kind != ItemMessage {
		t.Fatalf("items: %v then %v", items[0].Kind, items[len(items)-1].Kind)
	}
	if a.Text() != "answer" {
		t.Fatalf("text %q", a.Text())
	}
}

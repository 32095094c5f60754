package model

import (
	"strings"
	"testing"
)

func TestChatStopScenario(t *testing.T) {
	a := scenario(t, "chat_stop", true)

	// Chat text is the content deltas, not StreamChunk.part (there is none).
	for _, s := range a.Sequences() {
		if c, _ := a.ChunkAt(s); c.Part != nil {
			t.Fatalf("fixture chunk %d has a part; Chat frames get none", s)
		}
	}
	const want = "Listing the files\u2026 Here are the files: na\u00efve.txt and \U0001F389.md."
	if a.Text() != want {
		t.Fatalf("Text %q, want %q", a.Text(), want)
	}
	ch := a.Chat()
	if !ch.Opened || ch.Role != "assistant" || ch.CompletionID != "chatcmpl-3f9a0c1e2d4b5a69788776655443" || ch.Model != "hermes-agent" {
		t.Fatalf("chat state %+v", ch)
	}
	if !ch.DoneMarker || ch.DoneSeq != 6 {
		t.Fatalf("[DONE] not marked: %v %d", ch.DoneMarker, ch.DoneSeq)
	}
	f := ch.Finish
	if f == nil || f.Reason != "stop" || f.Sequence != 5 || f.Crash || f.NoReply || f.Error != nil || f.Hermes != nil {
		t.Fatalf("finish %+v", f)
	}
	if f.Usage == nil || f.Usage.PromptTokens != 10 || f.Usage.CompletionTokens != 5 || f.Usage.TotalTokens != 15 || f.Usage.In() != 10 || f.Usage.Out() != 5 {
		t.Fatalf("usage %+v", f.Usage)
	}
	items := a.Items()
	if len(items) != 1 || items[0].Kind != ItemMessage || !items[0].Done || items[0].Status != "stop" || items[0].FirstSeq != 0 {
		t.Fatalf("items %+v", itemsDump(a))
	}

	tools := a.Tools()
	if len(tools) != 1 {
		t.Fatalf("tools %+v", tools)
	}
	tl := tools[0]
	// The emoji arrives as a surrogate pair on the wire (raw_data) and as
	// UTF-8 in the re-encoded data; either way it is the real emoji.
	if tl.ID != "call_terminal_1" || tl.Name != "terminal" || tl.Emoji != "\U0001F4BB" || tl.Label != "ls -la" ||
		tl.Status != ToolCompleted || tl.Legacy || tl.FirstSeq != 2 || tl.LastSeq != 3 {
		t.Fatalf("tool %+v", *tl)
	}
	if c, _ := a.ChunkAt(2); !strings.Contains(string(c.Data), `\\ud83d\\udcbb`) {
		t.Fatal("fixture raw_data does not carry the surrogate pair")
	}

	if a.Operation() != OpChat || a.FinishReason() != "stop" || a.Endpoint() != "hermes_local" {
		t.Fatalf("op %q finish %q endpoint %q", a.Operation(), a.FinishReason(), a.Endpoint())
	}
	if len(a.Notes()) != 0 {
		t.Fatalf("notes %q", a.Notes())
	}
}

// Surrogate pairs written as JSON escapes inside data decode to the emoji.
func TestToolEmojiSurrogatePair(t *testing.T) {
	a := NewAction("act_e")
	a.IngestChunk(rawChunk(t, `{"action_id":"act_e","sequence":0,"kind":"data","data":{"hermes_sse":{"event":"hermes.tool.progress","data":{"tool": "terminal", "emoji": "\ud83d\udcbb", "label": "ls -la", "toolCallId": "call_terminal_1", "status": "running"},"raw_data":"{\"tool\": \"terminal\", \"emoji\": \"\\ud83d\\udcbb\", \"label\": \"ls -la\", \"toolCallId\": \"call_terminal_1\", \"status\": \"running\"}","terminal":false}}}`), t0)
	tools := a.Tools()
	if len(tools) != 1 || tools[0].Emoji != "💻" || tools[0].Status != ToolRunning {
		t.Fatalf("tools %+v", tools)
	}
}

func TestToolProgressLifecycle(t *testing.T) {
	chunks := chatSeq("act_t",
		role(),
		progress(obj{"tool": "terminal", "emoji": "💻", "label": "ls -la", "toolCallId": "call_1", "status": "running"}),
		progress(obj{"tool": "read_file", "emoji": "📖", "label": "a.txt", "toolCallId": "call_2", "status": "running"}),
		progress(obj{"tool": "read_file", "toolCallId": "call_2", "status": "completed"}),
		// A late running frame must not reopen a completed tool.
		progress(obj{"tool": "read_file", "emoji": "📖", "label": "a.txt", "toolCallId": "call_2", "status": "running"}),
		content("ok"),
		progress(obj{"tool": "terminal", "toolCallId": "call_1", "status": "completed"}),
		finish("stop", obj{"usage": usageObj(1, 1)}),
		"[DONE]",
	)
	a := NewAction("act_t")
	feed(t, a, chunks)
	tools := a.Tools()
	if len(tools) != 2 {
		t.Fatalf("want one entry per toolCallId, got %+v", tools)
	}
	// First-seen order, completed frames keep the running label and emoji.
	if tools[0].ID != "call_1" || tools[0].Status != ToolCompleted || tools[0].Label != "ls -la" || tools[0].Emoji != "💻" {
		t.Fatalf("tool 0 %+v", *tools[0])
	}
	if tools[1].ID != "call_2" || tools[1].Status != ToolCompleted || tools[1].Label != "a.txt" {
		t.Fatalf("tool 1 %+v (a late running frame reopened it?)", *tools[1])
	}
	// Tool progress does not leak into the text.
	if a.Text() != "ok" {
		t.Fatalf("text %q", a.Text())
	}
	a.SetResult(completedResult("act_t", OpChat))
	v := a.Verdict()
	if v.Word != VerdictVerified || v.UnconfirmedToolEffects != 2 || !containsReason(v, "2 tool effects to confirm") || v.ToolsReason != "2 tool effects to confirm" {
		t.Fatalf("verdict %+v", v)
	}
	rec := a.Record()
	if len(rec.Tools) != 2 || rec.Tools[0] != (ToolRecord{ID: "call_1", Name: "terminal", Status: "completed"}) || rec.UnconfirmedToolEffects != 2 {
		t.Fatalf("record tools %+v", rec.Tools)
	}
}

// Tool progress arrives as kind data; it is never dropped, also when the
// chunk says kind tool.
func TestToolProgressKindDataNeverDropped(t *testing.T) {
	a := NewAction("act_k")
	a.IngestChunk(hermes("act_k", 0, KindData, "hermes.tool.progress",
		obj{"tool": "terminal", "emoji": "💻", "label": "pwd", "toolCallId": "call_9", "status": "running"}), t0)
	a.IngestChunk(hermes("act_k", 1, KindTool, "hermes.tool.progress",
		obj{"tool": "terminal", "toolCallId": "call_9", "status": "completed"}), t0)
	if tl := a.Tools(); len(tl) != 1 || tl[0].ID != "call_9" || tl[0].Status != ToolCompleted || tl[0].Label != "pwd" {
		t.Fatalf("tools %+v", tl)
	}
}

func TestToolProgressOldShape(t *testing.T) {
	a := scenario(t, "chat_old_tool", true)
	tools := a.Tools()
	if len(tools) != 2 {
		t.Fatalf("tools %+v", tools)
	}
	for i, want := range []struct{ name, emoji, label string }{
		{"web_search", "\U0001F50D", "golang rapid"},
		{"read_file", "\U0001F4D6", "notes/todo.txt"},
	} {
		tl := tools[i]
		if !tl.Legacy || tl.Status != ToolStarted || tl.Name != want.name || tl.Emoji != want.emoji || tl.Label != want.label || tl.ID == "" {
			t.Fatalf("tool %d %+v", i, *tl)
		}
	}
	if tools[0].ID == tools[1].ID {
		t.Fatal("two old-shape starts share one entry")
	}
	if a.Text() != "Found it." {
		t.Fatalf("text %q", a.Text())
	}
	if v := a.Verdict(); v.Word != VerdictVerified || v.UnconfirmedToolEffects != 2 {
		t.Fatalf("verdict %+v", v)
	}
	// The web dashboard's snake_case tool_call_id is a correlation id too.
	b := NewAction("act_s")
	b.IngestChunk(hermes("act_s", 0, "", "hermes.tool.progress", obj{"tool": "x", "tool_call_id": "call_s"}), t0)
	if tl := b.Tools(); len(tl) != 1 || tl[0].ID != "call_s" || tl[0].Legacy || tl[0].Status != ToolStarted {
		t.Fatalf("snake_case id: %+v", tl)
	}
}

func TestChatRoleRendersNoTextAndReasoningApart(t *testing.T) {
	a := NewAction("act_r")
	feed(t, a, chatSeq("act_r", role()))
	if !a.Chat().Opened || a.Text() != "" {
		t.Fatalf("role chunk: opened %v text %q", a.Chat().Opened, a.Text())
	}
	if items := a.Items(); len(items) != 1 || items[0].Kind != ItemMessage || items[0].Text() != "" {
		t.Fatalf("role chunk should open an empty message: %v", itemsDump(a))
	}
	rest := chatSeq("act_r", role(), reasoning("Let me think\u2026"), content("The answer"), reasoning(" more"), content(" is 42."),
		finish("stop", obj{"usage": usageObj(3, 4)}), "[DONE]")
	feed(t, a, rest[1:])
	if a.Text() != "The answer is 42." {
		t.Fatalf("text %q: reasoning leaked in?", a.Text())
	}
	var got string
	for _, it := range a.Items() {
		if it.Kind == ItemReasoning {
			got += it.Text()
			if !it.Done {
				t.Fatal("reasoning not closed by the finish")
			}
		}
	}
	if got != "Let me think\u2026 more" {
		t.Fatalf("reasoning %q", got)
	}
}

func TestChatFinishShapes(t *testing.T) {
	t.Run("length", func(t *testing.T) {
		a := scenario(t, "chat_length", true)
		f := a.Chat().Finish
		if f == nil || f.Reason != "length" || f.Usage == nil || f.Usage.TotalTokens != 8 {
			t.Fatalf("finish %+v", f)
		}
		if f.Error == nil || f.Error.Message != "output was truncated" || f.Error.Type != "agent_error" {
			t.Fatalf("error %+v", f.Error)
		}
		if h := f.Hermes; h == nil || h.Completed || !h.Partial || h.Failed || h.ErrorCode != "output_truncated" || h.Error != "output was truncated" {
			t.Fatalf("hermes %+v", f.Hermes)
		}
		if a.Text() != "The report is long and" {
			t.Fatalf("text %q", a.Text())
		}
	})
	t.Run("error", func(t *testing.T) {
		a := scenario(t, "chat_error", true)
		f := a.Chat().Finish
		if f == nil || f.Reason != "error" || f.Crash || f.Usage == nil || f.Error == nil || f.Error.Message != "upstream model 500" ||
			f.Hermes == nil || !f.Hermes.Failed || f.Hermes.ErrorCode != "agent_error" {
			t.Fatalf("finish %+v", f)
		}
	})
	t.Run("crash", func(t *testing.T) {
		a := scenario(t, "chat_crash", true)
		f := a.Chat().Finish
		if f == nil || f.Reason != "error" || !f.Crash || f.Usage != nil || f.Error != nil || f.Hermes != nil || f.NoReply {
			t.Fatalf("finish %+v", f)
		}
		if a.Text() != "Working on it" {
			t.Fatalf("text %q", a.Text())
		}
		if !strings.Contains(strings.Join(a.Notes(), "|"), "crashed") {
			t.Fatalf("notes %q", a.Notes())
		}
	})
	t.Run("no reply", func(t *testing.T) {
		a := scenario(t, "chat_no_reply", true)
		f := a.Chat().Finish
		if f == nil || f.Reason != "stop" || !f.NoReply {
			t.Fatalf("finish %+v", f)
		}
		if notes := strings.Join(a.Notes(), "|"); !strings.Contains(notes, "no reply text") {
			t.Fatalf("notes %q", notes)
		}
		if a.Text() != "" {
			t.Fatalf("text %q", a.Text())
		}
	})
	t.Run("string error", func(t *testing.T) {
		a := NewAction("act_s")
		feed(t, a, chatSeq("act_s", content("x"), finish("error", obj{"error": "bare string"})))
		if f := a.Chat().Finish; f == nil || f.Error == nil || f.Error.Message != "bare string" {
			t.Fatalf("finish %+v", f)
		}
	})
	t.Run("second finish", func(t *testing.T) {
		a := NewAction("act_2")
		feed(t, a, chatSeq("act_2", content("x"), finish("stop", nil), finish("length", nil)))
		// Contract §3: the worse of two disagreeing finishes counts.
		if f := a.Chat().Finish; f == nil || f.Reason != "length" || f.Sequence != 2 {
			t.Fatalf("the worse finish is kept: %+v", f)
		}
		if countAnomalies(a, AnomalyConflict) != 1 {
			t.Fatalf("a second, disagreeing finish chunk: anomalies %+v", a.Anomalies())
		}
	})
}

// The guide's §6 sample writes "event": null and "id": null; the chunk still
// reads as Chat.
func TestChatNullEventAndID(t *testing.T) {
	a := scenario(t, "chat_no_finish", true)
	if a.Text() != "alphabeta" || !a.Chat().DoneMarker || a.Chat().Finish != nil {
		t.Fatalf("text %q done %v finish %+v", a.Text(), a.Chat().DoneMarker, a.Chat().Finish)
	}
}

func TestUpstreamClosedChunk(t *testing.T) {
	a := scenario(t, "chat_upstream_closed", true)
	if a.UpstreamEnd() != "upstream_stream_closed_without_terminal_event" {
		t.Fatalf("UpstreamEnd %q", a.UpstreamEnd())
	}
	if !strings.Contains(strings.Join(a.Notes(), "|"), "upstream closed") {
		t.Fatalf("notes %q", a.Notes())
	}
	if a.Text() != "I will run " {
		t.Fatalf("text %q", a.Text())
	}
	if tl := a.Tools(); len(tl) != 1 || tl[0].Status != ToolRunning || tl[0].Label != "make test" {
		t.Fatalf("tools %+v", tl)
	}
}

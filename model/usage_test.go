package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// chatTurn is a Chat stream whose finish chunk carries usage (nil: none).
func chatTurn(act string, usage any) []StreamChunk {
	var extra obj
	if usage != nil {
		extra = obj{"usage": usage}
	}
	return chatSeq(act, role(), content("hello"), finish("stop", extra), "[DONE]")
}

// respTurn is a Responses stream whose response.completed carries usage
// (nil: none).
func respTurn(act string, usage any) []StreamChunk {
	resp := obj{"id": "resp_u", "status": "completed", "output": []any{}}
	if usage != nil {
		resp["usage"] = usage
	}
	return respSeq(act,
		obj{"type": "response.created", "response": obj{"id": "resp_u", "status": "in_progress"}},
		obj{"type": "response.output_item.added", "output_index": 0, "item": obj{"id": "msg_u", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}},
		obj{"type": "response.output_text.delta", "item_id": "msg_u", "output_index": 0, "content_index": 0, "delta": "hello"},
		obj{"type": "response.completed", "response": resp})
}

func settled(t *testing.T, act, op string, chunks []StreamChunk) *Action {
	t.Helper()
	a := NewAction(act)
	feed(t, a, chunks)
	a.MarkTerminalFrame()
	a.SetResult(completedResult(act, op))
	return a
}

func TestUsagePerFieldChat(t *testing.T) {
	a := settled(t, "act_u", OpChat, chatTurn("act_u", obj{"prompt_tokens": 1840, "completion_tokens": 212, "total_tokens": 2052}))
	if got, want := a.Usage(), (TurnUsage{InputTokens: 1840, OutputTokens: 212, TotalTokens: 2052, Reported: true}); got != want {
		t.Fatalf("usage %+v, want %+v", got, want)
	}
	// The record carries the same figures.
	if r := a.Record(); r.Usage != a.Usage() {
		t.Fatalf("record usage %+v", r.Usage)
	}
}

// With stream_options.include_usage the usage comes in a chunk of its own
// (no choices) after the finish: the last chunk that carried usage counts.
func TestUsageChatLastChunkCarryingIt(t *testing.T) {
	const act = "act_ul"
	usageOnly := obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "hermes-agent", "choices": []any{},
		"usage": obj{"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}}
	a := settled(t, act, OpChat, chatSeq(act, role(), content("hi"),
		finish("stop", obj{"usage": usageObj(1, 1)}), usageOnly, "[DONE]"))
	if got := a.Usage(); got != (TurnUsage{InputTokens: 30, OutputTokens: 12, TotalTokens: 42, Reported: true}) {
		t.Fatalf("usage %+v: not the last chunk's", got)
	}
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("verdict %s %v", v.Word, v.Reasons)
	}
}

func TestUsagePerFieldResponses(t *testing.T) {
	a := settled(t, "act_r", OpResponses, respTurn("act_r", obj{"input_tokens": 1840, "output_tokens": 212, "total_tokens": 2052}))
	if got, want := a.Usage(), (TurnUsage{InputTokens: 1840, OutputTokens: 212, TotalTokens: 2052, Reported: true}); got != want {
		t.Fatalf("usage %+v, want %+v", got, want)
	}
}

func TestUsageNoneReported(t *testing.T) {
	for name, chunks := range map[string][]StreamChunk{
		"chat": chatTurn("act_n", nil), "responses": respTurn("act_n", nil), "chat null": chatTurn("act_n", json.RawMessage("null")),
	} {
		a := NewAction("act_n")
		feed(t, a, chunks)
		if got := a.Usage(); got != (TurnUsage{}) {
			t.Errorf("%s: usage %+v, want zeros and reported false", name, got)
		}
		if n := countAnomalies(a, AnomalyUsage); n != 0 {
			t.Errorf("%s: %d usage anomalies for no usage", name, n)
		}
	}
}

// A missing total is input + output; an integer written with a fraction or
// an exponent is that integer.
func TestUsageLenientButExact(t *testing.T) {
	for name, tc := range map[string]struct {
		usage any
		want  TurnUsage
	}{
		"no total":   {obj{"prompt_tokens": 7, "completion_tokens": 3}, TurnUsage{7, 3, 10, true}},
		"212.0":      {obj{"prompt_tokens": json.RawMessage("1e3"), "completion_tokens": json.RawMessage("212.0"), "total_tokens": 1212}, TurnUsage{1000, 212, 1212, true}},
		"at the cap": {obj{"prompt_tokens": 1_000_000_000_000, "completion_tokens": 0, "total_tokens": 1_000_000_000_000}, TurnUsage{1_000_000_000_000, 0, 1_000_000_000_000, true}},
	} {
		a := settled(t, "act_l", OpChat, chatTurn("act_l", tc.usage))
		if got := a.Usage(); got != tc.want {
			t.Errorf("%s: usage %+v, want %+v", name, got, tc.want)
		}
	}
}

// Bad figures are an anomaly and left out of the totals: never a crash,
// never a conflict, never another verdict (design §4, bad input).
func TestUsageBadInputIsAnAnomaly(t *testing.T) {
	bad := map[string]struct{ chat, resp any }{
		"negative": {obj{"prompt_tokens": -1, "completion_tokens": 5, "total_tokens": 4},
			obj{"input_tokens": -1, "output_tokens": 5, "total_tokens": 4}},
		"absurd": {obj{"prompt_tokens": 1_000_000_000_001, "completion_tokens": 5, "total_tokens": 1_000_000_000_006},
			obj{"input_tokens": 1_000_000_000_001, "output_tokens": 5, "total_tokens": 1_000_000_000_006}},
		"huge": {obj{"prompt_tokens": json.RawMessage("1e400"), "completion_tokens": 5},
			obj{"input_tokens": json.RawMessage("99999999999999999999999"), "output_tokens": 5}},
		"non-integer": {obj{"prompt_tokens": json.RawMessage("1.5"), "completion_tokens": 5, "total_tokens": 6},
			obj{"input_tokens": 1, "output_tokens": json.RawMessage("5.25"), "total_tokens": 6}},
		"string": {obj{"prompt_tokens": "12", "completion_tokens": 5, "total_tokens": 17},
			obj{"input_tokens": "12", "output_tokens": 5, "total_tokens": 17}},
		"total is not in + out": {obj{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 16},
			obj{"input_tokens": 10, "output_tokens": 5, "total_tokens": 14}},
		"not an object": {"lots", []any{1, 2}},
	}
	for name, tc := range bad {
		for api, chunks := range map[string][]StreamChunk{
			OpChat:      chatTurn("act_b", tc.chat),
			OpResponses: respTurn("act_b", tc.resp),
		} {
			a := settled(t, "act_b", api, chunks)
			if got := a.Usage(); got != (TurnUsage{}) {
				t.Errorf("%s %s: usage %+v, want it left out", name, api, got)
			}
			if n := countAnomalies(a, AnomalyUsage); n != 1 {
				t.Errorf("%s %s: %d usage anomalies %+v, want 1", name, api, n, a.Anomalies())
			}
			if hasAnomaly(a, AnomalyUndecodable) || hasAnomaly(a, AnomalyConflict) {
				t.Errorf("%s %s: anomalies %+v: the frame must still be read, and it is no conflict", name, api, a.Anomalies())
			}
			if v := a.Verdict(); v.Word != VerdictVerified || v.Row != 13 {
				t.Errorf("%s %s: verdict %s row %d %v, want verified as with good usage", name, api, v.Word, v.Row, v.Reasons)
			}
			if r := a.Record(); r.Anomalies != 1 || r.Usage.Reported {
				t.Errorf("%s %s: record anomalies %d usage %+v", name, api, r.Anomalies, r.Usage)
			}
		}
	}
}

// Responses usage read by the one-pass decoder and by encoding/json agree,
// sane or not.
func TestUsageFastDecoderAgrees(t *testing.T) {
	for _, u := range []string{`{"input_tokens":3,"output_tokens":4,"total_tokens":7}`, `{"input_tokens":-3}`,
		`{"input_tokens":1.5}`, `"x"`, `null`, `{"output_tokens":4}`} {
		b := []byte(`{"type":"response.completed","response":{"id":"r","status":"completed","usage":` + u + `}}`)
		f, ok := decodeRespFast(b)
		if !ok {
			t.Fatalf("fast decoder refused %s", b)
		}
		var want respFrame
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f, want) {
			t.Errorf("fast %+v, encoding/json %+v for %s", f.Response.Usage, want.Response.Usage, u)
		}
	}
}

// timed feeds chunks with their aip.stream.chunk events at the given
// offsets (ms from base), events first as in a review.
func timed(t *testing.T, a *Action, chunks []StreamChunk, ms ...int) {
	t.Helper()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, c := range chunks {
		a.IngestEvent(chunkOccurredEvent(a.ID, c.Sequence, base.Add(time.Duration(ms[i])*time.Millisecond)))
	}
	feed(t, a, chunks)
}

func TestTimingFromEventTimes(t *testing.T) {
	// Chat: role at 0, text at 400, finish at 3000, [DONE] at 3100.
	a := NewAction("act_t")
	timed(t, a, chatTurn("act_t", usageObj(5, 5)), 0, 400, 3000, 3100)
	if got := a.Timing(); got != (TurnTiming{FirstTokenMS: 400, DurationMS: 3100, HasFirstToken: true, HasDuration: true}) {
		t.Fatalf("chat timing %+v", got)
	}
	// Responses: created 0, item added 100 (no text yet), delta 250, completed 900.
	b := NewAction("act_t")
	timed(t, b, respTurn("act_t", nil), 0, 100, 250, 900)
	if got := b.Timing(); got != (TurnTiming{FirstTokenMS: 250, DurationMS: 900, HasFirstToken: true, HasDuration: true}) {
		t.Fatalf("responses timing %+v", got)
	}
	// A tool call before any text is the first token.
	c := NewAction("act_t")
	timed(t, c, chatSeq("act_t", role(),
		progress(obj{"tool": "terminal", "toolCallId": "call_1", "status": "running"}), content("x")), 0, 700, 900)
	if got := c.Timing(); got.FirstTokenMS != 700 || got.DurationMS != 900 {
		t.Fatalf("tool-first timing %+v", got)
	}
}

func TestTimingNeverNegative(t *testing.T) {
	a := NewAction("act_back")
	// The last chunk's time is before the first's, the text's too.
	timed(t, a, chatTurn("act_back", nil), 5000, 1000, 2000, 4000)
	got := a.Timing()
	if got.FirstTokenMS != 0 || got.DurationMS != 0 || !got.HasDuration {
		t.Fatalf("timing %+v, want zeros, not negative", got)
	}
}

func TestTimingUnknownWithoutEvents(t *testing.T) {
	a := NewAction("act_none")
	feed(t, a, chatTurn("act_none", nil))
	if got := a.Timing(); got != (TurnTiming{}) {
		t.Fatalf("timing %+v with no event times", got)
	}
	if CostLine(a.Usage(), a.Timing()) != "no usage reported" {
		t.Fatalf("line %q", CostLine(a.Usage(), a.Timing()))
	}
}

// Live (chunks first, each event just after its chunk, a late chunk) and a
// review (every event first, in one pass) give the same figures: they are
// aipd's times, not the moments aipwatch read them.
func TestTimingLiveEqualsReview(t *testing.T) {
	const act = "act_lr"
	chunks := chatTurn(act, usageObj(1840, 212))
	ms := []int{0, 400, 3000, 3100}
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	live := NewAction(act)
	order := []int{0, 2, 1, 3} // the text chunk comes late
	for _, i := range order {
		live.IngestChunk(chunks[i], time.Now())
		live.IngestEvent(chunkOccurredEvent(act, chunks[i].Sequence, base.Add(time.Duration(ms[i])*time.Millisecond)))
	}
	live.MarkTerminalFrame()
	live.SetResult(completedResult(act, OpChat))

	review := NewAction(act)
	timed(t, review, chunks, ms...)
	review.MarkTerminalFrame()
	review.SetResult(completedResult(act, OpChat))

	if live.Timing() != review.Timing() || live.Usage() != review.Usage() || live.Cost() != review.Cost() {
		t.Fatalf("live %+v %+v, review %+v %+v", live.Timing(), live.Usage(), review.Timing(), review.Usage())
	}
	if got := review.Cost(); got != "2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s" {
		t.Fatalf("cost line %q", got)
	}
}

func TestOutputRate(t *testing.T) {
	const act = "act_rate"
	// 400 bytes of text between 1s and 3s: an estimate of 100 tokens in 2s.
	chunks := chatSeq(act, role(), content(strings.Repeat("abcd", 50)), content(strings.Repeat("abcd", 50)))
	a := NewAction(act)
	timed(t, a, chunks, 0, 1000, 3000)
	rate, est, ok := a.OutputRate()
	if !ok || !est || rate != 50 || a.RateLine() != "~50 tok/s" {
		t.Fatalf("rate %v estimated %v ok %v (%q), want 50 estimated", rate, est, ok, a.RateLine())
	}
	// Once usage is reported, the provider's count.
	b := NewAction(act)
	timed(t, b, chatSeq(act, role(), content("x"), finish("stop", obj{"usage": usageObj(10, 300)})), 0, 1000, 3000)
	if rate, est, ok := b.OutputRate(); !ok || est || rate != 150 || b.RateLine() != "150 tok/s" {
		t.Fatalf("rate %v estimated %v ok %v, want 150 reported", rate, est, ok)
	}
	// No time between first token and last chunk: no rate.
	c := NewAction(act)
	timed(t, c, chatSeq(act, role(), content("x")), 0, 1000)
	if _, _, ok := c.OutputRate(); ok || c.RateLine() != "" {
		t.Fatal("a rate over no time")
	}
}

func TestCostLine(t *testing.T) {
	for _, tc := range []struct {
		u    TurnUsage
		tm   TurnTiming
		want string
	}{
		{TurnUsage{1840, 212, 2052, true}, TurnTiming{400, 3100, true, true, false}, "2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s"},
		{TurnUsage{}, TurnTiming{400, 3100, true, true, false}, "no usage reported · first token 0.4s · 3.1s"},
		{TurnUsage{1_234_567, 0, 1_234_567, true}, TurnTiming{0, 125_400, false, true, false}, "1,234,567 tokens (1,234,567 in, 0 out) · 2m05s"},
		{TurnUsage{0, 0, 0, true}, TurnTiming{}, "usage not counted (0 tokens reported)"},
		{TurnUsage{}, TurnTiming{43, 99, true, true, false}, "no usage reported · first token 43ms · 99ms"},
	} {
		if got := CostLine(tc.u, tc.tm); got != tc.want {
			t.Errorf("CostLine(%+v, %+v) = %q, want %q", tc.u, tc.tm, got, tc.want)
		}
	}
	if got := CostLineShort(TurnUsage{1840, 212, 2052, true}, TurnTiming{400, 3100, true, true, false}); got != "2,052 tokens · first token 0.4s · 3.1s" {
		t.Errorf("short %q", got)
	}
	if got := CostLineShort(TurnUsage{}, TurnTiming{0, 3100, false, true, false}); got != "no usage reported · 3.1s" {
		t.Errorf("short %q", got)
	}
}

// A provider that reported usage 0/0/0 and a daemon that stamped every
// chunk event at one instant measured nothing: the cost line says so
// instead of "0 tokens · first token 0ms · 0ms", which reads as measured.
// One chunk, or usage that counts, is shown as before.
func TestCostLineSaysWhatWasNotMeasured(t *testing.T) {
	a := NewAction("act_z")
	timed(t, a, chatTurn("act_z", usageObj(0, 0)), 0, 0, 0, 0)
	tm := a.Timing()
	if !tm.OneInstant || tm.HasDuration || tm.HasFirstToken {
		t.Fatalf("timing %+v", tm)
	}
	if u := a.Usage(); !u.Reported || u.Counted() {
		t.Fatalf("usage %+v", u)
	}
	for _, line := range []string{a.Cost(), CostLineShort(a.Usage(), a.Timing())} {
		if strings.Contains(line, "0 tokens ·") || strings.Contains(line, "0ms") ||
			!strings.Contains(line, "usage not counted") || !strings.Contains(line, "times not measured") {
			t.Fatalf("cost line %q", line)
		}
	}
	b := NewAction("act_z")
	timed(t, b, chatTurn("act_z", usageObj(5, 0)), 0, 0, 0, 0)
	if line := b.Cost(); !strings.HasPrefix(line, "5 tokens (5 in, 0 out)") || !strings.Contains(line, "times not measured") {
		t.Fatalf("counted usage, one instant: %q", line)
	}
}

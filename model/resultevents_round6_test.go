package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// resultOf is a completed chat_stream result whose output.events are the
// given provider frames (the connector's HermesSSE envelopes).
func resultOf(id string, frames ...string) ActionResult {
	yes := true
	return ActionResult{ActionID: id, Status: ResultCompleted, Aggregate: &ConnectorOutput{
		Operation: OpChat, Terminal: &yes, Events: json.RawMessage("[" + strings.Join(frames, ",") + "]")}}
}

// protocol §8.2: the connector's stream_chunk_kind of each frame name,
// tool.failed among the tool frames.
func TestChunksOfResultKindOfEachFrameName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]ChunkKind{
		"tool.started": KindTool, "tool.completed": KindTool, "tool.failed": KindTool,
		"run.failed": KindError, "response.incomplete": KindError, "error": KindError,
		"done": KindDone, "run.cancelled": KindDone, "approval.request": KindPendingApproval,
		"reasoning.available": KindThought, "message.delta": KindData,
	} {
		r := resultOf("act_k", `{"event":"`+name+`","data":{"x":1},"raw_data":"","terminal":false}`)
		got, skipped := ChunksOfResult("act_k", &r)
		if skipped != 0 || len(got) != 1 || got[0].Kind != want {
			t.Errorf("%s: %d chunks (%d skipped), kind %v; want %s", name, len(got), skipped, kinds(got), want)
		}
	}
}

func kinds(cs []StreamChunk) []ChunkKind {
	var out []ChunkKind
	for _, c := range cs {
		out = append(out, c.Kind)
	}
	return out
}

// protocol §8.2: the text part is the first of data.delta, data.text and
// data.output present, when it is a non-empty string: an empty delta gives
// no part (and the text after it is not taken instead); escaped keys read
// as encoding/json reads them, in the same order.
func TestChunksOfResultTextPart(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		`{"delta":"D","text":"T"}`:            "D",
		`{"text":"T","output":"O"}`:           "T",
		`{"delta":"","text":"T"}`:             "",
		`{"delta":1,"text":"T"}`:              "",
		`{"t\u0065xt":"T","d\u0065lta":"D"}`:  "D",
		`{"outp\u0075t":"O","t\u0065xt":"T"}`: "T",
		`{"d\u0065lta":"","t\u0065xt":"T"}`:   "",
		`{"d\u0065lta":"\u0044","text":"T"}`:  "D",
		`{"other":"x"}`:                       "",
	} {
		r := resultOf("act_t", `{"event":"message.delta","data":`+data+`,"raw_data":"","terminal":false}`)
		got, _ := ChunksOfResult("act_t", &r)
		if len(got) != 1 {
			t.Fatalf("%s: %d chunks", data, len(got))
		}
		text := ""
		if got[0].Part != nil {
			text = got[0].Part.Text
			if text == "" {
				t.Errorf("%s: an empty text part", data)
			}
		}
		if text != want {
			t.Errorf("%s: part %q, want %q", data, text, want)
		}
	}
}

// design §14: chunks read from a result were never received live: their
// receive time, and the times of the tools they start and end, are
// unknown, never the instant the result was read.
func TestResultEventsHaveNoReceiveTime(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"chat_stop", "chat_old_tool", "responses_completed"} {
		r := loadResult(t, name)
		a := NewAction(r.ActionID)
		if n := a.ReadResultEvents(r); n == 0 {
			t.Fatalf("%s: nothing read", name)
		}
		for seq := uint64(0); seq < uint64(a.ChunkCount()); seq++ {
			if c, ok := a.ChunkAt(seq); ok && !c.ReceivedAt.IsZero() {
				t.Errorf("%s: chunk %d received at %v", name, seq, c.ReceivedAt)
			}
		}
		for _, tool := range a.Tools() {
			if !tool.StartedAt.IsZero() || !tool.DoneAt.IsZero() {
				t.Errorf("%s: tool %s timed %v–%v", name, tool.ID, tool.StartedAt, tool.DoneAt)
			}
		}
	}
}

// design §14: while an action runs with no chunk, the live view says why
// after a few seconds (here 10 s: a few), not at once, and says nothing
// once the action ended.
func TestNoChunksYetAfterAFewSecondsWhileRunning(t *testing.T) {
	t.Parallel()
	a := NewAction("act_n")
	a.SetStatus(ActionStatus{ActionID: "act_n", State: "running"})
	if got := a.NoChunksYet(10 * time.Second); !strings.Contains(got, "no live chunk after 10s") {
		t.Fatalf("after 10 s: %q", got)
	}
	if got := a.NoChunksYet(500 * time.Millisecond); got != "" {
		t.Fatalf("at once: %q", got)
	}
	a.SetStatus(ActionStatus{ActionID: "act_n", State: "completed"})
	if got := a.NoChunksYet(time.Minute); got != "" {
		t.Fatalf("ended: %q", got)
	}
}

// protocol §13.4: each of the fleet's refusals is one raised before Hermes
// ran; another code is not.
func TestRefusedBeforeHermesEachCode(t *testing.T) {
	t.Parallel()
	for _, code := range []string{CodeHostNotReady, CodeHostCapacity, CodeSchedulerOverloaded, CodeAdmissionCapacity, CodeRequestRejected} {
		if !RefusedBeforeHermes(code, "") {
			t.Errorf("%s not a refusal before Hermes", code)
		}
	}
	for _, code := range []string{"", "connector.hermes_agent.transport", "auth.not_authorized"} {
		if RefusedBeforeHermes(code, "other") {
			t.Errorf("%s taken for a refusal before Hermes", code)
		}
	}
}

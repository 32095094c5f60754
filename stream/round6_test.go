package stream

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// design §14: a result applied to an action with no chunk is read from its
// output.events, and the timeline says once that aipd recorded no live
// chunk (HapNoLiveChunks, with the frames read): every output's one line
// comes from it. A second result says nothing more.
func TestApplyResultWithoutChunksLogsNoLiveChunksOnce(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../model/testdata/chat_stop.result.json")
	if err != nil {
		t.Fatal(err)
	}
	var r model.ActionResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	a := model.NewAction(r.ActionID)
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ApplyAt(a, ResultMsg{Result: r}, now)
	ApplyAt(a, ResultMsg{Result: r}, now.Add(time.Second))
	var frames []int
	for _, h := range a.Timeline() {
		if h.Kind == model.HapNoLiveChunks {
			frames = append(frames, h.Frames)
		}
	}
	if len(frames) != 1 || frames[0] != a.ChunkCount() || frames[0] == 0 {
		t.Fatalf("no-live-chunks entries %v, %d chunks read", frames, a.ChunkCount())
	}
}

// design §14: an admission limit's scope (the daemon's details) is one
// short line in the advice, whatever the daemon sends; a retry_after_ms of
// more than a day is no advice (the line says "in a moment").
func TestFleetAdviceBoundsWhatTheDaemonSends(t *testing.T) {
	t.Parallel()
	long, _ := json.Marshal("tenant\nX-Injected: " + strings.Repeat("s", 10000))
	got := FleetAdvice(model.CodeAdmissionCapacity, "", 0, long)
	if strings.ContainsAny(got, "\n\r") || len(got) > 400 || strings.Count(got, "s") > 200 {
		t.Fatalf("scope not bounded to one short line (%d bytes): %.300q", len(got), got)
	}
	for _, ms := range []string{"86400001", "3e12", "1e300"} {
		got := FleetAdvice(model.CodeHostCapacity, "", 0, json.RawMessage(`{"retry_after_ms":`+ms+`}`))
		if !strings.Contains(got, "in a moment") || strings.Contains(got, " after ") {
			t.Errorf("retry_after_ms %s: %q", ms, got)
		}
	}
	if got := FleetAdvice(model.CodeHostCapacity, "", 0, json.RawMessage(`{"retry_after_ms":86400000}`)); !strings.Contains(got, " after ") {
		t.Errorf("a day's retry_after_ms not told: %q", got)
	}
}

// design §14: each of the fleet's refusals before Hermes ran (the one list,
// model.RefusedBeforeHermes) gets its one line of advice, saying that
// nothing ran and nothing is resent.
func TestFleetAdviceForEveryRefusalBeforeHermes(t *testing.T) {
	t.Parallel()
	for _, code := range []string{model.CodeHostNotReady, model.CodeHostCapacity, model.CodeSchedulerOverloaded, model.CodeAdmissionCapacity, model.CodeRequestRejected} {
		if !model.RefusedBeforeHermes(code, "") {
			t.Fatalf("%s is not one of model's refusals", code)
		}
		if got := FleetAdvice(code, "", 0, nil); !strings.Contains(got, "nothing ran and aipwatch resends nothing") {
			t.Errorf("%s: advice %q", code, got)
		}
	}
}

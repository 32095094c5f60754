package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// withResult feeds a fixture's chunks (all, or those kept by keep) and then
// the given result.
func withResult(t *testing.T, name string, keep func(StreamChunk) bool, r *ActionResult) *Action {
	t.Helper()
	chunks := loadChunks(t, name)
	a := NewAction(chunks[0].ActionID)
	for _, c := range chunks {
		if keep == nil || keep(c) {
			a.IngestChunk(c, t0)
		}
	}
	a.MarkTerminalFrame()
	if r != nil {
		a.SetResult(*r)
	}
	return a
}

func resultFrom(t *testing.T, name string, edit func(*ActionResult)) *ActionResult {
	t.Helper()
	r := loadResult(t, name)
	if edit != nil {
		edit(&r)
	}
	return &r
}

func setAggregate(t *testing.T, r *ActionResult, terminal, truncated bool) {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(r.Output, &out); err != nil {
		t.Fatal(err)
	}
	out["terminal"], out["truncated"] = terminal, truncated
	r.Output = compactJSON(out)
	r.Aggregate = nil // SetResult decodes it again
}

// TestVerdictTable has one case per row of design §3, in its order, plus
// the cases the issue names and a few that pin the order between rows.
func TestVerdictTable(t *testing.T) {
	notDone := func(c StreamChunk) bool { return c.Kind != KindDone }
	cases := []struct {
		name    string
		build   func(t *testing.T) *Action
		word    string
		row     int
		exit    int
		reasons []string // each must be among the reasons
	}{
		{"row 1 result cancelled", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) { r.Status = ResultCancelled }))
		}, VerdictCancelled, 1, ExitCancelled, []string{"AIP result cancelled"}},

		{"row 2 failed stream_truncated (Done chunk exactly at max_events)", func(t *testing.T) *Action {
			a := scenario(t, "chat_truncated", true)
			last, _ := a.LastSequence()
			if c, _ := a.ChunkAt(last); c.Kind != KindDone || a.Chat().Finish.Reason != "stop" {
				t.Fatal("fixture: the last chunk should be a Done after a stop finish")
			}
			return a
		}, VerdictTruncated, 2, ExitTruncated, []string{"AIP result failed", "connector.hermes_agent.stream_truncated"}},

		{"row 3 upstream closed without terminal, stream_incomplete", func(t *testing.T) *Action {
			return scenario(t, "chat_upstream_closed", true)
		}, VerdictIncomplete, 3, ExitIncomplete, []string{"connector.hermes_agent.stream_incomplete"}},

		{"row 4 failed with another code", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) {
				r.Status = ResultFailed
				r.Error = &ProtocolError{Code: "connector.hermes_agent.stream_failed", Message: "run failed"}
			}))
		}, VerdictFailed, 4, ExitFailed, []string{"AIP result failed", "connector.hermes_agent.stream_failed"}},

		{"row 4 failed without a code", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) { r.Status = ResultFailed }))
		}, VerdictFailed, 4, ExitFailed, []string{"no error code"}},

		{"row 4 responses failed: result failed stream_failed", func(t *testing.T) *Action {
			return scenario(t, "responses_failed", true)
		}, VerdictFailed, 4, ExitFailed, []string{"connector.hermes_agent.stream_failed"}},

		{"row 4 state expired", func(t *testing.T) *Action {
			a := withResult(t, "chat_stop", nil, nil)
			a.SetStatus(ActionStatus{ActionID: a.ID, State: StateExpired})
			return a
		}, VerdictFailed, 4, ExitFailed, []string{"AIP state expired"}},

		{"row 4 state dead_lettered, over a pending_approval result", func(t *testing.T) *Action {
			a := withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) { r.Status = ResultPendingApproval }))
			a.SetStatus(ActionStatus{ActionID: a.ID, State: StateDeadLettered})
			return a
		}, VerdictFailed, 4, ExitFailed, []string{"AIP state dead_lettered"}},

		{"row 5 completed but aggregate truncated", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) { setAggregate(t, r, true, true) }))
		}, VerdictTruncated, 5, ExitTruncated, []string{"AIP result completed", "aggregate truncated: true"}},

		{"row 6 completed but aggregate terminal false", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", nil, resultFrom(t, "chat_stop", func(r *ActionResult) { setAggregate(t, r, false, false) }))
		}, VerdictIncomplete, 6, ExitIncomplete, []string{"aggregate terminal: false"}},

		{"row 6 completed but no terminal provider frame seen", func(t *testing.T) *Action {
			return withResult(t, "chat_stop", notDone, resultFrom(t, "chat_stop", nil))
		}, VerdictIncomplete, 6, ExitIncomplete, []string{"no terminal provider frame seen"}},

		{"row 7 Chat without a finish chunk", func(t *testing.T) *Action {
			return scenario(t, "chat_no_finish", true)
		}, VerdictIncomplete, 7, ExitIncomplete, []string{"AIP result completed", "no Chat finish chunk"}},

		{"row 8 completed with Chat length", func(t *testing.T) *Action {
			return scenario(t, "chat_length", true)
		}, VerdictPartial, 8, ExitPartial, []string{"AIP result completed", "finish_reason length"}},

		{"row 9 completed with Chat error", func(t *testing.T) *Action {
			return scenario(t, "chat_error", true)
		}, VerdictFailed, 9, ExitFailed, []string{"AIP result completed", "finish_reason error"}},

		{"row 9 crash chunk", func(t *testing.T) *Action {
			return scenario(t, "chat_crash", true)
		}, VerdictFailed, 9, ExitFailed, []string{"finish_reason error"}},

		{"row 9 stop with an error object", func(t *testing.T) *Action {
			a := NewAction("act_e")
			feed(t, a, chatSeq("act_e", role(), content("x"),
				finish("stop", obj{"usage": usageObj(1, 1), "error": obj{"message": "late failure", "type": "agent_error"}}), "[DONE]"))
			a.SetResult(completedResult("act_e", OpChat))
			return a
		}, VerdictFailed, 9, ExitFailed, []string{"finish chunk carries an error object"}},

		{"row 9 stop with hermes.failed true", func(t *testing.T) *Action {
			a := NewAction("act_h")
			feed(t, a, chatSeq("act_h", role(), content("x"),
				finish("stop", obj{"hermes": obj{"completed": true, "partial": false, "failed": true, "error": "boom", "error_code": "agent_error"}}), "[DONE]"))
			a.SetResult(completedResult("act_h", OpChat))
			return a
		}, VerdictFailed, 9, ExitFailed, []string{"hermes.failed: true"}},

		{"row 10 Responses status failed under a completed result", func(t *testing.T) *Action {
			return withResult(t, "responses_failed", nil, resultFrom(t, "responses_failed", func(r *ActionResult) {
				r.Status, r.Error = ResultCompleted, nil
			}))
		}, VerdictFailed, 10, ExitFailed, []string{"AIP result completed", "response status failed"}},

		{"row 11 Responses completed whose output_text.done disagrees", func(t *testing.T) *Action {
			return scenario(t, "responses_mismatch", true)
		}, VerdictIncomplete, 11, ExitIncomplete, []string{"output_text.done disagrees with its deltas"}},

		{"row 11 Responses status incomplete", func(t *testing.T) *Action {
			a := NewAction("act_i")
			feed(t, a, respSeq("act_i",
				obj{"type": "response.created", "response": obj{"id": "resp_i", "status": "in_progress", "output": []any{}}},
				obj{"type": "response.incomplete", "response": obj{"id": "resp_i", "status": "incomplete", "output": []any{}}},
			))
			a.SetResult(completedResult("act_i", OpResponses))
			return a
		}, VerdictIncomplete, 11, ExitIncomplete, []string{"response status incomplete"}},

		{"row 12 conflict anomaly", func(t *testing.T) *Action {
			a := scenario(t, "chat_stop", true)
			a.IngestChunk(hermes("act_chat_stop", 1, "", "", content("forged")), t0)
			return a
		}, VerdictIncomplete, 12, ExitIncomplete, []string{"conflicting chunk content"}},

		{"row 13 Chat stop", func(t *testing.T) *Action {
			return scenario(t, "chat_stop", true)
		}, VerdictVerified, 13, ExitVerified, []string{"AIP result completed", "finish_reason stop", "1 tool effect to confirm"}},

		{"row 13 Responses completed", func(t *testing.T) *Action {
			return scenario(t, "responses_completed", true)
		}, VerdictVerified, 13, ExitVerified, []string{"AIP result completed", "response completed"}},

		{"row 13 another connector: a done chunk and a completed result", func(t *testing.T) *Action {
			a := NewAction("act_g")
			a.IngestChunk(rawChunk(t, `{"action_id":"act_g","sequence":0,"kind":"data","part":{"type":"text","text":"hi","format":"plain"}}`), t0)
			a.IngestChunk(rawChunk(t, `{"action_id":"act_g","sequence":1,"kind":"done"}`), t0)
			a.SetResult(ActionResult{ActionID: "act_g", Status: ResultCompleted})
			return a
		}, VerdictVerified, 13, ExitVerified, []string{"AIP result completed"}},

		// Order between rows.
		{"order: cancelled beats a Chat length finish", func(t *testing.T) *Action {
			return withResult(t, "chat_length", nil, resultFrom(t, "chat_length", func(r *ActionResult) { r.Status = ResultCancelled }))
		}, VerdictCancelled, 1, ExitCancelled, nil},
		{"order: aggregate truncated beats a Chat error finish", func(t *testing.T) *Action {
			return withResult(t, "chat_error", nil, resultFrom(t, "chat_error", func(r *ActionResult) { setAggregate(t, r, true, true) }))
		}, VerdictTruncated, 5, ExitTruncated, nil},
		{"order: Chat length (partial) beats a conflict", func(t *testing.T) *Action {
			a := scenario(t, "chat_length", true)
			a.IngestChunk(hermes("act_chat_length", 1, "", "", content("forged")), t0)
			return a
		}, VerdictPartial, 8, ExitPartial, nil},
		{"order: length is read before the error object it carries", func(t *testing.T) *Action {
			a := scenario(t, "chat_length", true)
			if a.Chat().Finish.Error == nil {
				t.Fatal("fixture: the length finish should carry an error object")
			}
			return a
		}, VerdictPartial, 8, ExitPartial, nil},
	}
	seen := map[int]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.build(t)
			v := a.Verdict()
			if v.Word != tc.word || v.Row != tc.row || v.ExitCode != tc.exit || !v.Final {
				t.Fatalf("verdict %q row %d exit %d final %v (reasons %q), want %q row %d exit %d",
					v.Word, v.Row, v.ExitCode, v.Final, v.Reasons, tc.word, tc.row, tc.exit)
			}
			for _, r := range tc.reasons {
				if !containsReason(v, r) {
					t.Fatalf("reasons %q lack %q", v.Reasons, r)
				}
			}
			if rec := a.Record(); rec.Verdict != tc.word || !reflect.DeepEqual(rec.Reasons, v.Reasons) {
				t.Fatalf("record %q %q disagrees with verdict", rec.Verdict, rec.Reasons)
			}
		})
		seen[tc.row] = true
	}
	for row := 1; row <= 13; row++ {
		if !seen[row] {
			t.Errorf("no case for row %d", row)
		}
	}
}

// Reasons name the evidence: a finish_reason the table does not list is
// named as it is, not reported as "stop".
func TestVerdictReasonNamesRealFinishReason(t *testing.T) {
	a := NewAction("act_f")
	feed(t, a, chatSeq("act_f", role(), content("x"), finish("content_filter", nil), "[DONE]"))
	a.SetResult(completedResult("act_f", OpChat))
	v := a.Verdict()
	// Guide §8 accepts only stop: another finish_reason is no stop evidence.
	if v.Word != VerdictIncomplete || containsReason(v, "finish_reason stop") ||
		!containsReason(v, "finish_reason content_filter is not stop") {
		t.Fatalf("verdict %s, reasons %q", v.Word, v.Reasons)
	}
}

// Text never decides anything: the same evidence with and without text gives
// the same verdict, also when the aggregate text disagrees.
func TestVerdictIgnoresText(t *testing.T) {
	for _, reason := range []string{"stop", "length", "error"} {
		with := NewAction("act_w")
		feed(t, with, chatSeq("act_w", role(), content("lots of text"), finish(reason, obj{"usage": usageObj(1, 1)}), "[DONE]"))
		without := NewAction("act_w")
		feed(t, without, chatSeq("act_w", role(), finish(reason, obj{"usage": usageObj(1, 1)}), "[DONE]"))
		r := completedResult("act_w", OpChat)
		with.SetResult(r)
		without.SetResult(r)
		if vw, vo := with.Verdict(), without.Verdict(); vw.Word != vo.Word || vw.Row != vo.Row {
			t.Fatalf("%s: with text %s/%d, without %s/%d", reason, vw.Word, vw.Row, vo.Word, vo.Row)
		}
	}
}

func TestVerdictLive(t *testing.T) {
	a := NewAction("act_chat_stop")
	if v := a.Verdict(); v.Word != LiveFollowing || v.Final || v.Row != 0 || v.ExitCode != ExitPending {
		t.Fatalf("empty: %+v", v)
	}
	feed(t, a, loadChunks(t, "chat_stop"))
	// All chunks, even the Done chunk, are not an outcome: still following.
	if v := a.Verdict(); v.Word != LiveFollowing || v.Final || v.UnconfirmedToolEffects != 1 {
		t.Fatalf("after the chunks: %+v", v)
	}
	a.MarkTerminalFrame()
	if a.Phase() != PhaseAwaitingResult {
		t.Fatalf("phase %v", a.Phase())
	}
	if v := a.Verdict(); v.Word != LiveAwaitingResult || v.Final {
		t.Fatalf("after the terminal frame: %+v", v)
	}
	a.SetResult(ActionResult{ActionID: a.ID, Status: ResultRequiresHuman})
	if v := a.Verdict(); v.Word != LiveAwaitingResult || !containsReason(v, "AIP result requires_human") {
		t.Fatalf("requires_human: %+v", v)
	}
	a.Stop()
	v := a.Verdict()
	if v.Word != VerdictPending || v.Final || v.ExitCode != ExitPending || !containsReason(v, "viewer stopped before the action settled") {
		t.Fatalf("stopped: %+v", v)
	}
	if rec := a.Record(); rec.Verdict != VerdictPending || rec.AIPStatus != ResultRequiresHuman {
		t.Fatalf("record %+v", rec)
	}
	// A settled action stays settled when the viewer stops.
	b := scenario(t, "chat_stop", true)
	b.Stop()
	if v := b.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("stopped after settling: %+v", v)
	}
}

func TestCancelOutcome(t *testing.T) {
	a := scenario(t, "chat_stop", false)
	if a.CancelOutcome() != "" {
		t.Fatalf("no cancel asked: %q", a.CancelOutcome())
	}
	a.RequestCancel("operator asked", time.Unix(0, 0))
	if a.CancelOutcome() != "cancel requested" || a.Cancel.Reason != "operator asked" {
		t.Fatalf("%q", a.CancelOutcome())
	}
	a.CancelAccepted()
	if got := a.CancelOutcome(); got != "cancel accepted, waiting for the outcome" {
		t.Fatalf("%q", got)
	}
	// The action had already completed: the acceptance is not an outcome.
	a.SetResult(loadResult(t, "chat_stop"))
	if v := a.Verdict(); v.Word != VerdictVerified {
		t.Fatalf("a late cancel changed the verdict: %+v", v)
	}
	if got := a.CancelOutcome(); !strings.Contains(got, "too late") || !strings.Contains(got, "completed") {
		t.Fatalf("CancelOutcome %q", got)
	}

	b := scenario(t, "chat_stop", false)
	b.RequestCancel("r", t0)
	b.CancelAccepted()
	b.SetResult(ActionResult{ActionID: b.ID, Status: ResultCancelled})
	if got := b.CancelOutcome(); got != "cancelled" || b.Verdict().Word != VerdictCancelled {
		t.Fatalf("cancelled: %q %s", got, b.Verdict().Word)
	}

	// A cancel answered with an error while the action ends cancelled
	// (protocol §10.6, §13): cancelled, the daemon's error as a note.
	e := NewAction("act_e")
	e.RequestCancel("r", t0)
	e.CancelFailed("connector_host.execution (HTTP 502): connector host could not cancel the action")
	e.SetResult(ActionResult{ActionID: e.ID, Status: ResultCancelled})
	if got := e.CancelOutcome(); !strings.HasPrefix(got, "cancelled (") || !strings.Contains(got, "connector_host.execution") ||
		e.Verdict().ExitCode != ExitCancelled {
		t.Fatalf("cancel error, then cancelled: %q, exit %d", got, e.Verdict().ExitCode)
	}

	c := NewAction("act_c")
	c.RequestCancel("r", t0)
	c.CancelFailed("action.not_cancellable")
	if got := c.CancelOutcome(); got != "cancel failed: action.not_cancellable" {
		t.Fatalf("%q", got)
	}
}

var recordKeys = []string{"type", "action_id", "verdict", "aip_status", "error_code", "operation",
	"finish_reason", "response_id", "response_status", "text", "tools", "unconfirmed_tool_effects",
	"reasons", "detail", "usage", "timing", "anomalies", "chunks", "cursor"}

func recordKeyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestVerdictRecordKeysFixed(t *testing.T) {
	// An empty model: every key present, tools and reasons [] not null.
	empty, err := json.Marshal(NewAction("act_empty").Record())
	if err != nil {
		t.Fatal(err)
	}
	if got := recordKeyOrder(t, empty); !reflect.DeepEqual(got, recordKeys) {
		t.Fatalf("keys %v\nwant %v", got, recordKeys)
	}
	for _, want := range []string{`"tools":[]`, `"reasons":[]`, `"text":""`, `"error_code":""`, `"anomalies":0`, `"chunks":0`, `"cursor":""`, `"detail":""`, `"type":"verdict"`,
		`"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"reported":false}`, `"timing":{"first_token_ms":0,"duration_ms":0}`} {
		if !bytes.Contains(empty, []byte(want)) {
			t.Fatalf("%s lacks %s", empty, want)
		}
	}

	a := scenario(t, "chat_stop", true)
	raw, _ := json.Marshal(a.Record())
	if got := recordKeyOrder(t, raw); !reflect.DeepEqual(got, recordKeys) {
		t.Fatalf("keys %v", got)
	}
	var rec VerdictRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	want := VerdictRecord{
		Type: "verdict", ActionID: "act_chat_stop", Verdict: VerdictVerified, AIPStatus: "completed",
		Operation: OpChat, FinishReason: "stop",
		Text:                   "Listing the files\u2026 Here are the files: na\u00efve.txt and \U0001F389.md.",
		Tools:                  []ToolRecord{{ID: "call_terminal_1", Name: "terminal", Status: "completed"}},
		UnconfirmedToolEffects: 1,
		Reasons:                a.Verdict().Reasons,
		Usage:                  TurnUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15, Reported: true},
		Chunks:                 7,
		Cursor:                 "aev_cursor_9_chat_stop",
	}
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("record\n%+v\nwant\n%+v", rec, want)
	}

	tr := scenario(t, "chat_truncated", true).Record()
	if tr.Verdict != VerdictTruncated || tr.AIPStatus != "failed" || tr.ErrorCode != "connector.hermes_agent.stream_truncated" {
		t.Fatalf("truncated record %+v", tr)
	}
	rr := scenario(t, "responses_completed", true).Record()
	if rr.ResponseID != "resp_8c1b2378ab1a41e0bcb7903e8885" || rr.ResponseStatus != "completed" || rr.Operation != OpResponses || rr.FinishReason != "" || rr.Text != respDoneText {
		t.Fatalf("responses record %+v", rr)
	}
	mm := scenario(t, "responses_mismatch", true).Record()
	if mm.Anomalies != 1 {
		t.Fatalf("mismatch record anomalies %d", mm.Anomalies)
	}
	st := NewAction("act_s")
	st.SetStatus(ActionStatus{ActionID: "act_s", State: StateDeadLettered})
	if r := st.Record(); r.AIPStatus != StateDeadLettered || r.Verdict != VerdictFailed {
		t.Fatalf("status-only record %+v", r)
	}
}

func TestDecodeResultAggregate(t *testing.T) {
	r := loadResult(t, "chat_truncated")
	agg := r.Aggregate
	if agg == nil || agg.Operation != OpChat || agg.Terminal == nil || *agg.Terminal || agg.Truncated == nil || !*agg.Truncated || agg.EndpointID != "hermes_local" {
		t.Fatalf("aggregate %+v", agg)
	}
	if r.ErrorCode() != "connector.hermes_agent.stream_truncated" || len(r.Message) != 2 || r.Message[0].Text != "Short answer." {
		t.Fatalf("result %+v", r)
	}
	// Another connector's output is no aggregate: absence is not "false".
	other, err := DecodeResult([]byte(`{"action_id":"act_o","status":"completed","output":{"answer":42}}`))
	if err != nil || other.Aggregate != nil {
		t.Fatalf("other output read as an aggregate: %+v %v", other.Aggregate, err)
	}
	var nilResult *ActionResult
	if nilResult.ErrorCode() != "" {
		t.Fatal("nil result error code")
	}
}

// TestResultOf: a result naming another action is no evidence about this
// one (design §3); one naming none is taken as this action's.
func TestResultOf(t *testing.T) {
	for _, c := range []struct {
		named string
		want  bool
	}{{"", true}, {"act_1", true}, {"act_2", false}} {
		if got := (ActionResult{ActionID: c.named}).Of("act_1"); got != c.want {
			t.Errorf("a result naming %q: Of(act_1) = %v", c.named, got)
		}
	}
}

package model

import (
	"strings"
	"testing"
)

// TestFailureDetail: design §4 — why an unverified action ended, in the
// evidence's words, the provider's first, else the result's code and
// message; nothing for a verified action.
func TestFailureDetail(t *testing.T) {
	cases := []struct {
		fixture string
		word    string
		detail  string
		code    string // DetailCode: the result's code, when the detail is "code: message"
	}{
		{"chat_error", VerdictFailed, "upstream model 500", ""},     // finish chunk error.message
		{"chat_length", VerdictPartial, "output was truncated", ""}, // length with an error object
		{"responses_failed", VerdictFailed, "upstream model 500", ""},
		{"chat_truncated", VerdictTruncated, // no provider words: the result's code and message
			"connector.hermes_agent.stream_truncated: Hermes stream exceeded its configured event limit",
			"connector.hermes_agent.stream_truncated"},
		{"chat_stop", VerdictVerified, "", ""},
		{"chat_crash", VerdictFailed, "", ""}, // finish_reason error, no words anywhere: the reasons say it
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			a := scenario(t, c.fixture, true)
			v := a.Verdict()
			if v.Word != c.word {
				t.Fatalf("verdict %s, want %s (%v)", v.Word, c.word, v.Reasons)
			}
			if v.Detail != c.detail {
				t.Errorf("detail %q, want %q", v.Detail, c.detail)
			}
			if v.DetailCode != c.code || c.code != "" && !containsReason(v, c.code) {
				t.Errorf("detail code %q, want %q among the reasons %v", v.DetailCode, c.code, v.Reasons)
			}
			if got := a.Record().Detail; got != c.detail {
				t.Errorf("record detail %q, want %q", got, c.detail)
			}
		})
	}
}

func TestFailureDetailSources(t *testing.T) {
	const act = "act_detail"
	t.Run("hermes failure without an error object", func(t *testing.T) {
		a := NewAction(act)
		feed(t, a, chatSeq(act, role(), content("hi"),
			finish("error", obj{"hermes": obj{"failed": true, "error": "agent crashed\nat step 3", "error_code": "E1"}}), "[DONE]"))
		a.MarkTerminalFrame()
		a.SetResult(completedResult(act, OpChat))
		if d := a.Verdict().Detail; d != "agent crashed at step 3" {
			t.Errorf("detail %q: want the hermes error on one line", d)
		}
	})
	t.Run("hermes error code only", func(t *testing.T) {
		a := NewAction(act)
		feed(t, a, chatSeq(act, role(), finish("error", obj{"hermes": obj{"failed": true, "error_code": "E1"}}), "[DONE]"))
		a.MarkTerminalFrame()
		a.SetResult(completedResult(act, OpChat))
		if d := a.Verdict().Detail; d != "E1" {
			t.Errorf("detail %q, want E1", d)
		}
	})
	t.Run("provider words win over the result's", func(t *testing.T) {
		a := NewAction(act)
		feed(t, a, chatSeq(act, role(), finish("error", obj{"error": obj{"message": "boom"}}), "[DONE]"))
		a.MarkTerminalFrame()
		a.SetResult(failedResult(act, OpChat, "connector.hermes_agent.stream_failed"))
		if d := a.Verdict().Detail; d != "boom" {
			t.Errorf("detail %q, want boom", d)
		}
	})
	t.Run("result code alone", func(t *testing.T) {
		a := NewAction(act)
		a.MarkTerminalFrame()
		r := failedResult(act, OpChat, "action.input_schema_invalid")
		r.Error.Message = ""
		a.SetResult(r)
		if d := a.Verdict().Detail; d != "action.input_schema_invalid" {
			t.Errorf("detail %q", d)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		a := NewAction(act)
		feed(t, a, chatSeq(act, role(), finish("error", obj{"error": obj{"message": strings.Repeat("x", 5000)}}), "[DONE]"))
		a.MarkTerminalFrame()
		a.SetResult(completedResult(act, OpChat))
		d := []rune(a.Verdict().Detail)
		if len(d) != detailMaxRunes || d[len(d)-1] != '…' {
			t.Errorf("detail of %d runes, want %d ending in …", len(d), detailMaxRunes)
		}
	})
	t.Run("unsettled has none", func(t *testing.T) {
		a := NewAction(act)
		feed(t, a, chatSeq(act, role(), finish("error", obj{"error": obj{"message": "boom"}})))
		if d := a.Verdict().Detail; d != "" {
			t.Errorf("unsettled detail %q", d)
		}
	})
}

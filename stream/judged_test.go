package stream

import (
	"testing"
	"time"

	"aipwatch/model"
)

func TestJudgementJudged(t *testing.T) {
	at := time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)
	r := &model.ActionRow{ActionID: "act_1", CapabilityID: "cap:hermes_agent:ep:chat_stream", UpdatedAt: at}
	tm := model.TurnTiming{FirstTokenMS: 400, HasFirstToken: true}
	u := model.TurnUsage{TotalTokens: 9, Reported: true}
	got := Judgement{ID: "act_1", Word: model.VerdictFailed, Usage: u, Timing: tm}.Judged(r)
	want := model.Judged{CapabilityID: r.CapabilityID, Verdict: model.VerdictFailed, SettledAt: at, Usage: u, Timing: tm}
	if got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
	if got := (Judgement{ID: "act_1", Live: true, Timing: tm}).Judged(r); got.Verdict != "" || got.Timing.HasFirstToken {
		t.Errorf("a live action counted as judged: %+v", got)
	}
}

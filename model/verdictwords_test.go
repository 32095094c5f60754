package model

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseVerdicts(t *testing.T) {
	for in, want := range map[string][]string{
		"failed,incomplete":                                      {"failed", "incomplete"},
		" incomplete , failed ,failed,":                          {"failed", "incomplete"},
		"cancelled,truncated,partial,verified,failed,incomplete": {"verified", "partial", "failed", "truncated", "incomplete", "cancelled"},
	} {
		got, err := ParseVerdicts(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseVerdicts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"":                      "no verdict given",
		" , ":                   "no verdict given",
		"failed,completed":      `not a verdict: "completed"`,
		"FAILED":                `not a verdict: "FAILED"`,
		"pending":               `not a verdict: "pending"`,
		"fail\x1b[31med":        `not a verdict: "fail?[31med"`,
		strings.Repeat("x", 99): `not a verdict: "` + strings.Repeat("x", 40) + `…"`,
	} {
		got, err := ParseVerdicts(in)
		if err == nil || !strings.Contains(err.Error(), msg) || got != nil {
			t.Errorf("ParseVerdicts(%q) = %v, %v; want an error with %q", in, got, err, msg)
		}
	}
	if _, err := ParseVerdicts("x"); !strings.Contains(err.Error(), "verified, partial, failed, truncated, incomplete, cancelled") {
		t.Errorf("the error does not name the verdicts: %v", err)
	}
}

// design §13: ls --verdict=failed,incomplete keeps the rows judged so; a
// live row (no verdict) and one not judged are left out, and no words keep
// every row.
func TestKeepVerdicts(t *testing.T) {
	rows := func() []ActionRow {
		return []ActionRow{{ActionID: "a", Verdict: "failed"}, {ActionID: "live"}, {ActionID: "b", Verdict: "verified"},
			{ActionID: "c", Verdict: NotJudged}, {ActionID: "d", Verdict: "incomplete"}}
	}
	var ids []string
	for _, r := range KeepVerdicts(rows(), []string{"failed", "incomplete"}) {
		ids = append(ids, r.ActionID)
	}
	if !reflect.DeepEqual(ids, []string{"a", "d"}) {
		t.Errorf("kept %v, want [a d]", ids)
	}
	if got := KeepVerdicts(rows(), nil); len(got) != 5 {
		t.Errorf("no words kept %d rows, want every one of 5", len(got))
	}
}

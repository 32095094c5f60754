package model

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestQuantilesNearestRank(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want Quantiles
	}{
		{nil, Quantiles{}},
		{[]int64{7}, Quantiles{P50: 7, P95: 7, N: 1}},
		{[]int64{3, 1}, Quantiles{P50: 1, P95: 3, N: 2}},
		{[]int64{400, 100, 300, 200}, Quantiles{P50: 200, P95: 400, N: 4}},
		// 1..100: the 50th and the 95th.
		{seq(1, 100), Quantiles{P50: 50, P95: 95, N: 100}},
		// 1..20: rank ceil(0.95*20) = 19.
		{seq(1, 20), Quantiles{P50: 10, P95: 19, N: 20}},
		{[]int64{math.MaxInt64, 0, math.MaxInt64}, Quantiles{P50: math.MaxInt64, P95: math.MaxInt64, N: 3}},
	} {
		if got := QuantilesOf(c.in); got != c.want {
			t.Errorf("QuantilesOf(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func seq(from, to int64) []int64 {
	var s []int64
	for i := to; i >= from; i-- { // given backwards: QuantilesOf sorts
		s = append(s, i)
	}
	return s
}

func judged(capID, verdict string, firstMS, durMS int64, tokens int) Judged {
	j := Judged{CapabilityID: capID, Verdict: verdict}
	if firstMS >= 0 {
		j.Timing.FirstTokenMS, j.Timing.HasFirstToken = firstMS, true
	}
	if durMS >= 0 {
		j.Timing.DurationMS, j.Timing.HasDuration = durMS, true
	}
	if tokens >= 0 {
		j.Usage = TurnUsage{TotalTokens: tokens, Reported: true}
	}
	return j
}

const (
	capChat = "cap:hermes_agent:ep:chat_stream"
	capResp = "cap:hermes_agent:ep:responses_stream"
)

func TestSummarise(t *testing.T) {
	got := Summarise([]Judged{
		judged(capResp, VerdictVerified, 700, 9800, 100),
		judged(capChat, VerdictVerified, 400, 6200, 2000),
		judged(capChat, VerdictFailed, 1900, 41000, -1), // no usage reported
		judged(capChat, VerdictVerified, -1, -1, 52),    // not timed
		judged(capChat, "unknown", -1, -1, -1),          // unreadable
		{CapabilityID: capChat},                         // not judged yet: counted, no figures
		judged(capChat, "", 5, 5, 5),                    // not judged: its figures are not counted
	})
	want := []CapabilityStats{
		{CapabilityID: capChat, Actions: 6, Verdicts: map[string]int{"verified": 2, "failed": 1, "unknown": 1, "": 2},
			FirstToken: Quantiles{P50: 400, P95: 1900, N: 2}, Duration: Quantiles{P50: 6200, P95: 41000, N: 2},
			TotalTokens: 2052, Reported: 2},
		{CapabilityID: capResp, Actions: 1, Verdicts: map[string]int{"verified": 1},
			FirstToken: Quantiles{P50: 700, P95: 700, N: 1}, Duration: Quantiles{P50: 9800, P95: 9800, N: 1},
			TotalTokens: 100, Reported: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got[0].Judged() != 4 || got[1].Judged() != 1 {
		t.Errorf("judged %d and %d, want 4 and 1", got[0].Judged(), got[1].Judged())
	}
	if s := Summarise(nil); len(s) != 0 {
		t.Errorf("nothing summarised: %+v", s)
	}
}

// Equal counts: the capabilities in ID order, whatever the input's.
func TestSummariseOrder(t *testing.T) {
	a := Summarise([]Judged{{CapabilityID: "b"}, {CapabilityID: "a"}, {CapabilityID: "c"}, {CapabilityID: "c"}})
	var ids []string
	for _, c := range a {
		ids = append(ids, c.CapabilityID)
	}
	if !reflect.DeepEqual(ids, []string{"c", "a", "b"}) {
		t.Errorf("%v", ids)
	}
}

// design §13: a capability is named by as many of its last parts as tell
// it from the others', at least its operation.
func TestCapabilityNames(t *testing.T) {
	got := CapabilityNames([]string{"cap:x:ep1:chat_stream", "cap:x:ep2:chat_stream", "cap:x:ep1:responses",
		"cap:a:ep:chat", "cap:b:ep:chat", "", "cap:x:ep1:chat_stream", "solo"})
	want := []string{"ep1:chat_stream", "ep2:chat_stream", "responses", "a:ep:chat", "b:ep:chat", "(none)", "ep1:chat_stream", "solo"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// The rows a listing's bound left unjudged are not judged.
func TestJudgedLeavesNotJudgedOut(t *testing.T) {
	c := CapabilityStats{Actions: 5, Verdicts: map[string]int{"verified": 2, "unknown": 1, "not_judged": 1, "": 1}}
	if c.Judged() != 3 {
		t.Fatalf("%d judged, want 3", c.Judged())
	}
}

// A daemon naming thousands of capabilities costs their parts, not their
// pairs: 4,096 (the pulse's bound on settled rows) named at once.
func TestCapabilityNamesOfMany(t *testing.T) {
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = fmt.Sprintf("cap:x:ep%d:chat_stream", i)
	}
	names := CapabilityNames(ids)
	seen := map[string]bool{}
	for i, n := range names {
		if n != fmt.Sprintf("ep%d:chat_stream", i) || seen[n] {
			t.Fatalf("%q for %q", n, ids[i])
		}
		seen[n] = true
	}
}

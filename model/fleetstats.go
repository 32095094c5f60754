package model

import (
	"cmp"
	"slices"
	"time"
)

// The fleet's figures per capability (design §13): what `aipwatch stats`
// prints and the console's pulse shows when a key opens it, computed here
// once for both from the settled actions judged (one judge, one rule: the
// verdicts are the judge's, Action.Verdict of each action's review).

// Judged is one settled action as the fleet's figures count it: its row's
// capability and settle time, and its judgement's verdict, usage and
// timing (on aipd's clock, Action.Timing).
type Judged struct {
	CapabilityID string
	Verdict      string    // the judge's word; "" while not judged
	SettledAt    time.Time // the row's updated_at once settled
	Usage        TurnUsage
	Timing       TurnTiming
}

// Quantiles are the median and 95th percentile of N figures in
// milliseconds (nearest rank: the smallest figure with at least that share
// of them at or below it); N = 0 when none was known, and then P50 and P95
// mean nothing.
type Quantiles struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	N   int   `json:"-"`
}

// QuantilesOf are the quantiles of ms (the slice is sorted in place).
func QuantilesOf(ms []int64) Quantiles {
	if len(ms) == 0 {
		return Quantiles{}
	}
	slices.Sort(ms)
	return Quantiles{P50: nearestRank(ms, 50), P95: nearestRank(ms, 95), N: len(ms)}
}

// nearestRank is the p-th percentile of sorted: the figure at rank
// ceil(p/100 × n), counted from 1.
func nearestRank(sorted []int64, p int) int64 {
	r := (p*len(sorted) + 99) / 100
	return sorted[min(max(r, 1), len(sorted))-1]
}

// CapabilityStats are the figures of one capability over the settled
// actions counted.
type CapabilityStats struct {
	CapabilityID string
	Actions      int            // settled actions counted, judged or not
	Verdicts     map[string]int // by the judge's word (an unreadable action's too); "" not judged yet
	FirstToken   Quantiles      // over the judged actions whose first token was timed
	Duration     Quantiles      // over the judged actions whose duration was timed
	TotalTokens  int            // the provider's total tokens, summed over Reported actions
	Reported     int            // judged actions whose usage was reported
}

// NotJudged is the word of a settled action a listing's bound left
// unjudged (design §13, as `ls --verdict` says it): neither a verdict nor
// a failed read, and not judged.
const NotJudged = "not_judged"

// Judged is the number of its actions judged (every word but "" and
// NotJudged).
func (c *CapabilityStats) Judged() int { return c.Actions - c.Verdicts[""] - c.Verdicts[NotJudged] }

// CapabilityNames are the capabilities of ids as a line of figures names
// them: the fewest of each ID's last ':' parts (at least its operation,
// chat_stream) that no other ID of ids ends with, so that two endpoints'
// chat_stream read apart (ep1:chat_stream, ep2:chat_stream); the whole ID
// without "cap:" when nothing shorter tells it apart, and "(none)" for "".
func CapabilityNames(ids []string) []string {
	// How many distinct IDs end with each tail: one pass, so that a
	// daemon naming thousands of capabilities costs no more than their
	// parts.
	tails := map[string]int{}
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		w := CapabilityWords(id)
		for i := len(w); i >= 0; i-- {
			if i == 0 || w[i-1] == ':' {
				tails[w[i:]]++
			}
		}
	}
	out := make([]string, len(ids))
	for k, id := range ids {
		if id == "" {
			out[k] = "(none)"
			continue
		}
		w := CapabilityWords(id)
		out[k] = w
		for i := len(w); i >= 0; i-- {
			if (i == 0 || w[i-1] == ':') && i < len(w) && tails[w[i:]] == 1 {
				out[k] = w[i:]
				break
			}
		}
	}
	return out
}

// Summarise computes the figures of each capability, the one with the
// most actions first (then by ID). A capability the daemon did not name
// is "".
func Summarise(js []Judged) []CapabilityStats {
	type acc struct {
		s          CapabilityStats
		first, dur []int64
	}
	by := map[string]*acc{}
	for i := range js {
		j := &js[i]
		a := by[j.CapabilityID]
		if a == nil {
			a = &acc{s: CapabilityStats{CapabilityID: j.CapabilityID, Verdicts: map[string]int{}}}
			by[j.CapabilityID] = a
		}
		a.s.Actions++
		a.s.Verdicts[j.Verdict]++
		if j.Verdict == "" {
			continue // not judged: its figures are not known
		}
		if j.Timing.HasFirstToken {
			a.first = append(a.first, j.Timing.FirstTokenMS)
		}
		if j.Timing.HasDuration {
			a.dur = append(a.dur, j.Timing.DurationMS)
		}
		if j.Usage.Reported {
			a.s.TotalTokens += j.Usage.TotalTokens
			a.s.Reported++
		}
	}
	out := make([]CapabilityStats, 0, len(by))
	for _, a := range by {
		a.s.FirstToken, a.s.Duration = QuantilesOf(a.first), QuantilesOf(a.dur)
		if a.s.Verdicts[""] == 0 {
			delete(a.s.Verdicts, "")
		}
		out = append(out, a.s)
	}
	slices.SortFunc(out, func(a, b CapabilityStats) int {
		if c := cmp.Compare(b.Actions, a.Actions); c != 0 {
			return c
		}
		return cmp.Compare(a.CapabilityID, b.CapabilityID)
	})
	return out
}

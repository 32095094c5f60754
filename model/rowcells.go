package model

import (
	"strconv"
	"strings"
	"time"
)

// Cells are a row's columns as `ls` and the console show them (design §7):
// one rule for both outputs. Compact is the console's narrower wording.
// The daemon's fields are untrusted: clean (each output's sanitiser, which
// may also cut a field to a width) is applied to each before it is
// composed with our words, so that a long one never cuts them off.
type Cells struct {
	Capability, State, Result, Started, Updated, Lease, Tries, Journal string
	// Verdict is the judged verdict (Row.Verdict); "" when not judged.
	Verdict string
}

// Cells are r's columns at now; "" where there is nothing to show.
func (r *ActionRow) Cells(now time.Time, compact bool, clean func(string) string) Cells {
	c := Cells{State: vocab(r.State, KnownState, compact, clean), Result: vocab(r.ResultStatus, KnownResultStatus, compact, clean),
		Verdict: clean(r.Verdict), Started: ShortAge(now, r.StartedAt), Updated: ShortAge(now, r.UpdatedAt)}
	if r.Unreachable != "" {
		// The row stands for a context's daemon that could not be read.
		return Cells{State: "unreachable", Capability: clean(r.Unreachable), Updated: c.Updated}
	}
	switch {
	case r.LiveSync && compact:
		c.Capability = "(sync)"
	case r.LiveSync:
		c.Capability = "(sync, streaming)"
	case r.CapabilityID == "":
	case compact:
		c.Capability = clean(r.Endpoint() + ":" + r.Operation())
	default:
		c.Capability = clean(CapabilityWords(r.CapabilityID))
	}
	if r.QueuedState != "" && r.QueuedState != r.State {
		q := vocab(r.QueuedState, KnownQueuedState, compact, clean)
		if compact {
			c.State += " (q: " + q + ")"
		} else {
			c.State += " (queue " + q + ")"
		}
	}
	if r.LeaseWorker != "" {
		c.Lease = clean(r.LeaseWorker)
		switch {
		case !r.LeaseStuck(now):
		case compact:
			c.Lease = "EXPIRED"
		default:
			c.Lease += " EXPIRED " + ShortAge(now, r.LeaseExpires) + " ago: stuck?"
		}
	}
	if r.Attempts > 0 {
		c.Tries = strconv.Itoa(r.Attempts)
	}
	switch {
	case r.JournalOnly() && compact:
		c.Journal = "j!"
	case r.JournalOnly():
		c.Journal = "yes (not listed)"
	case r.Journal && compact:
		c.Journal = "j"
	case r.Journal:
		c.Journal = "yes"
	}
	return c
}

// vocab is a daemon's word for a column whose words AIP fixes (a state, a
// result status): as it is when AIP has it, else marked unknown, so that a
// word of the daemon's own (say "verified") never reads as one of ours.
func vocab(word string, known func(string) bool, compact bool, clean func(string) string) string {
	switch {
	case word == "" || known(word):
		return clean(word)
	case compact:
		return "unknown?"
	default:
		return "unknown (" + clean(word) + "?)"
	}
}

// CapabilityWords is a capability as a table shows it to people (ls, the
// console's wide list, stats): its ID without the "cap:" every ID starts
// with. jsonl keeps the whole capability_id.
func CapabilityWords(id string) string { return strings.TrimPrefix(id, "cap:") }

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
	c := Cells{State: clean(r.State), Result: clean(r.ResultStatus), Verdict: clean(r.Verdict), Started: ShortAge(now, r.StartedAt), Updated: ShortAge(now, r.UpdatedAt)}
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
		c.Capability = clean(strings.TrimPrefix(r.CapabilityID, "cap:"))
	}
	if r.QueuedState != "" && r.QueuedState != r.State {
		if compact {
			c.State += " (q: " + clean(r.QueuedState) + ")"
		} else {
			c.State += " (queue " + clean(r.QueuedState) + ")"
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

package model

import "time"

// RunSpan is when the action ran on aipd's clock: from the earlier of its
// record's started_at and its first chunk's time (the occurred_at of its
// aip.stream.chunk event; Timing's first and last chunk) to the later of
// completed_at and its last chunk's. A synchronous action's record is written when it settles, so
// its started_at and completed_at are the same instant and only the chunk
// events tell how long the turn took. A zero time is one not known.
func (a *Action) RunSpan() (start, end time.Time) {
	if s := a.Status; s != nil {
		if s.StartedAt != "" { // (a failed parse allocates its error)
			start, _ = parseRFC3339(s.StartedAt)
		}
		if s.CompletedAt != "" {
			end, _ = parseRFC3339(s.CompletedAt)
		}
	}
	// The first and last chunk with a time, as Timing measures the turn.
	if a.occFirst.set {
		if t := a.occFirst.time(); start.IsZero() || t.Before(start) {
			start = t
		}
		if t := a.occLast.time(); t.After(end) {
			end = t
		}
	}
	return start, end
}

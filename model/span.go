package model

import "time"

// MaxTurnSpan is the longest run aipwatch believes of aipd's times: no
// turn streams for a week, so two of its times further apart say that a
// clock or an occurred_at is wrong (year 1 to 9999 gave a duration of
// 292 years, Go's longest). Such a span is an anomaly and gives no figure.
const MaxTurnSpan = 7 * 24 * time.Hour

// maxTurnSpanText is MaxTurnSpan in an anomaly's words.
const maxTurnSpanText = "a week"

// absurdSpan reports whether from and to are further apart than
// MaxTurnSpan, either way.
func absurdSpan(from, to time.Time) bool {
	d := to.Sub(from)
	return d > MaxTurnSpan || d < -MaxTurnSpan
}

// RunSpan is when the action ran on aipd's clock: from the earlier of its
// record's started_at and its first chunk's time (the occurred_at of its
// aip.stream.chunk event; Timing's first and last chunk) to the later of
// completed_at and its last chunk's. A synchronous action's record is written when it settles, so
// its started_at and completed_at are the same instant and only the chunk
// events tell how long the turn took. A zero time is one not known; both
// are zero when they are further apart than MaxTurnSpan.
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
	if !start.IsZero() && !end.IsZero() && absurdSpan(start, end) {
		return time.Time{}, time.Time{} // no span to believe (Timing's anomaly, or the record's times)
	}
	return start, end
}

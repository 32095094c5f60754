package model

import (
	"strconv"
	"strings"
	"time"
)

// CostLine is what the turn cost in one line, the same in plain's closing
// lines, the TUI's status bar and the export (design §4):
// "2,052 tokens (1,840 in, 212 out) · first token 0.4s · 3.1s", or "no
// usage reported · …" when the provider sent none (or none that was
// sane). A time that is not known is left out; zeros that measure nothing
// (usage of 0 tokens, every chunk at one instant) are said to be so.
func CostLine(u TurnUsage, t TurnTiming) string { return costLine(u, t, false) }

// CostLineShort is CostLine without the input/output split, for a line
// with no room for it (the TUI's meters at 80 columns): "2,052 tokens ·
// first token 0.4s · 3.1s".
func CostLineShort(u TurnUsage, t TurnTiming) string { return costLine(u, t, true) }

func costLine(u TurnUsage, t TurnTiming, short bool) string {
	var b strings.Builder
	switch {
	case u.Reported && !u.Counted() && short:
		b.WriteString("usage not counted")
	case u.Reported && !u.Counted():
		b.WriteString("usage not counted (0 tokens reported)")
	case u.Reported && short:
		b.WriteString(Thousands(u.TotalTokens))
		b.WriteString(" tokens")
	case u.Reported:
		b.WriteString(Thousands(u.TotalTokens))
		b.WriteString(" tokens (")
		b.WriteString(Thousands(u.InputTokens))
		b.WriteString(" in, ")
		b.WriteString(Thousands(u.OutputTokens))
		b.WriteString(" out)")
	default:
		b.WriteString("no usage reported")
	}
	switch {
	case t.OneInstant && short:
		b.WriteString(" · times not measured")
	case t.OneInstant:
		b.WriteString(" · times not measured (every chunk at one instant)")
	}
	if t.HasFirstToken {
		b.WriteString(" · first token ")
		b.WriteString(Seconds(t.FirstTokenMS))
	}
	if t.HasDuration {
		b.WriteString(" · ")
		b.WriteString(Seconds(t.DurationMS))
	}
	return b.String()
}

// Cost is CostLine of the action's figures.
func (a *Action) Cost() string { return CostLine(a.Usage(), a.Timing()) }

// RateLine is OutputRate as the TUI shows it while the turn streams:
// "48 tok/s", or "~48 tok/s" when estimated from the text; "" when there
// is no rate yet.
func (a *Action) RateLine() string {
	r, est, ok := a.OutputRate()
	if !ok {
		return ""
	}
	s := strconv.FormatFloat(r, 'f', 0, 64) + " tok/s"
	if est {
		s = "~" + s
	}
	return s
}

// Thousands writes n with a comma every three digits (2,052).
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Seconds is HumanDuration of ms milliseconds.
func Seconds(ms int64) string { return HumanDuration(time.Duration(ms) * time.Millisecond) }

// HumanDuration is the one rule for a duration shown to people (the cost
// line, a tool's time, a wait, the TUI's elapsed time): under a tenth of a
// second in milliseconds (43ms, which "0.0s" would hide), under ten
// seconds to a tenth (0.9s, 1.1s), under a minute in whole seconds (12s),
// then minutes and seconds (3m05s), from an hour hours and minutes
// (1h02m). A negative duration is 0ms.
func HumanDuration(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < 100*time.Millisecond:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d < time.Hour:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m" + pad2(int64(d%time.Minute/time.Second)) + "s"
	default:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h" + pad2(int64(d%time.Hour/time.Minute)) + "m"
	}
}

// WaitLeft is the one rule for the time left before a retry, as it counts
// down on screen: whole seconds, rounded up ("in 4s" until the last
// second is over, never "in 0s" while one is left), "now" at zero.
func WaitLeft(d time.Duration) string {
	if d <= 0 {
		return "now"
	}
	return "in " + strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10) + "s"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

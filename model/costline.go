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
// sane). A time that is not known is left out.
func CostLine(u TurnUsage, t TurnTiming) string { return costLine(u, t, false) }

// CostLineShort is CostLine without the input/output split, for a line
// with no room for it (the TUI's meters at 80 columns): "2,052 tokens ·
// first token 0.4s · 3.1s".
func CostLineShort(u TurnUsage, t TurnTiming) string { return costLine(u, t, true) }

func costLine(u TurnUsage, t TurnTiming, short bool) string {
	var b strings.Builder
	switch {
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

// Seconds shows milliseconds as seconds to a tenth (0.4s, 3.1s) under a
// minute, then as minutes and whole seconds (2m05s); under a tenth, as
// milliseconds (43ms), which "0.0s" would hide.
func Seconds(ms int64) string {
	if ms < 100 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	if ms < 60_000 {
		return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + "s"
	}
	d := time.Duration(ms) * time.Millisecond
	m := int64(d / time.Minute)
	s := int64((d % time.Minute) / time.Second)
	return strconv.FormatInt(m, 10) + "m" + pad2(s) + "s"
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

package render

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
)

// The console's pulse (design §13): the fleet at a glance, drawn from
// model.PulseFigures. Its first line reads on its own (the console keeps
// it alone at 80 columns or on a short screen):
//
//	chunks/s ▁▂▃▅▆▇▆▅▃▂ 1.2k now · 3 active │ settled/min ▂▃▂▅▃▂ │ not verified 7% of 212
//
// and two more lines draw the settled rows judged in each minute by
// verdict, a bar a verdict with its letter under it (V P F T I C).

// PulseSep separates the parts of the pulse's first line.
const PulseSep = " │ "

// PulseLine is the pulse's first line, at most width cells: the chunk
// rate, the settled rows a minute and the share not verified, each figure
// with what it counts over. The sparklines take the room there is; what
// does not fit goes, least telling first (the active count, the
// settled sparkline, the share).
func PulseLine(f *model.PulseFigures, width int) string {
	rate := " " + Compact(f.RateNow) + " now"
	active := " · " + strconv.Itoa(f.Active) + " active"
	share := notVerified(f)
	settled := make([]float64, len(f.SettledPerMinute))
	for i, n := range f.SettledPerMinute {
		settled[i] = float64(n)
	}
	// The fewest cells a sparkline is worth drawing in: a minute of the
	// chunk rate, six minutes of settled rows.
	const minChunk, minSettled = 6, 6
	type layout struct{ active, settled, share bool }
	for _, l := range []layout{{true, true, true}, {false, true, true}, {false, false, true}, {false, false, false}} {
		fixed := len("chunks/s ") + Width(rate)
		if l.active {
			fixed += Width(active)
		}
		if l.settled {
			fixed += Width(PulseSep) + len("settled/min ")
		}
		if l.share {
			fixed += Width(PulseSep) + Width(share)
		}
		room := width - fixed
		need := minChunk
		if l.settled {
			need += minSettled
		}
		if room < need && (l.active || l.settled || l.share) {
			continue
		}
		chunkW := max(0, room)
		settledW := 0
		if l.settled {
			settledW = min(len(settled), max(minSettled, room/3))
			chunkW = room - settledW
		}
		chunkW = min(chunkW, len(f.ChunkRate))
		var b strings.Builder
		b.WriteString("chunks/s ")
		b.WriteString(Spark(f.ChunkRate, chunkW))
		b.WriteString(rate)
		if l.active {
			b.WriteString(active)
		}
		if l.settled {
			b.WriteString(PulseSep + "settled/min ")
			b.WriteString(Spark(settled, settledW))
		}
		if l.share {
			b.WriteString(PulseSep)
			b.WriteString(share)
		}
		return Truncate(b.String(), width, "")
	}
	return ""
}

// notVerified is the share of the judged rows not verified, and over how
// many: "not verified 7% of 212"; "no verdicts yet" before any.
func notVerified(f *model.PulseFigures) string {
	if f.Judged == 0 {
		return "no verdicts yet"
	}
	pct := (200*f.NotVerified + f.Judged) / (2 * f.Judged) // rounded
	if pct == 0 && f.NotVerified > 0 {
		pct = 1 // some, never 0%
	}
	if pct == 100 && f.NotVerified < f.Judged {
		pct = 99
	}
	return "not verified " + strconv.Itoa(pct) + "% of " + strconv.Itoa(f.Judged)
}

// PulseVerdictLines are the pulse's second and third lines, at most width
// cells: the rows judged in each minute of the window, a group of bars a
// minute (the oldest left out first when they do not fit), a bar a
// verdict judged in the window with its letter under it.
func (st *Styles) PulseVerdictLines(f *model.PulseFigures, width int) [2]string {
	const label = "by verdict  "
	// Only the verdicts judged in the window have a bar: six letters
	// under every minute would be mostly blanks to read past.
	seen := make([]bool, len(model.SettledVerdicts))
	for _, counts := range f.PerMinute {
		for i, c := range counts {
			seen[i] = seen[i] || c > 0
		}
	}
	if !slices.Contains(seen, true) { // the lines keep their place: no re-flow when one comes
		return [2]string{Truncate(label+"none judged in the window yet", width, ""), ""}
	}
	groups := make([][]Bar, len(f.PerMinute))
	for m, counts := range f.PerMinute {
		var g []Bar
		for i, c := range counts {
			if seen[i] {
				w := model.SettledVerdicts[i]
				g = append(g, Bar{Value: float64(c), Letter: VerdictLetter(w), Word: w})
			}
		}
		groups[m] = g
	}
	bars, letters := st.BarGroups(groups, width-len(label))
	pad := strings.Repeat(" ", len(label))
	return [2]string{Truncate(label+bars, width, ""), Truncate(pad+letters, width, "")}
}

// CapabilityLines are the per-capability figures (design §13), a line
// each, at most width cells: the capability's name (its operation, with as
// many parts before it as tell it from the others': model.CapabilityNames;
// cut at its start when long), first token and duration
// p50/p95 with the number of actions each holds over, the judged and
// settled counts, the tokens.
//
//	chat_stream       first token p50 0.4s p95 1.9s (180) · duration p50 6.2s p95 41s (180) · 180 judged of 190 · 1.2M tokens
func CapabilityLines(stats []model.CapabilityStats, width int) []string {
	ids := make([]string, len(stats))
	for i := range stats {
		ids[i] = stats[i].CapabilityID
	}
	names := model.CapabilityNames(ids)
	nameW := 0
	for i := range names {
		names[i] = Line(names[i])
		nameW = max(nameW, Width(names[i]))
	}
	nameW = min(nameW, maxCapName)
	out := make([]string, 0, len(stats))
	for i := range stats {
		c := &stats[i]
		var b strings.Builder
		b.WriteString(fitTail(names[i], nameW))
		b.WriteString("  first token ")
		b.WriteString(quantiles(c.FirstToken))
		b.WriteString(" · duration ")
		b.WriteString(quantiles(c.Duration))
		b.WriteString(" · ")
		b.WriteString(strconv.Itoa(c.Judged()))
		b.WriteString(" judged of ")
		b.WriteString(strconv.Itoa(c.Actions))
		if c.Reported > 0 {
			b.WriteString(" · ")
			b.WriteString(Compact(float64(c.TotalTokens)))
			b.WriteString(" tokens")
		}
		out = append(out, Truncate(b.String(), width, "…"))
	}
	return out
}

// maxCapName is the widest a capability's name is in the pulse's lines,
// in cells.
const maxCapName = 24

// fitTail is s in exactly w cells: padded, or cut at its start with "…"
// before what is kept (a capability's name differs at its end: the
// endpoint, the operation).
func fitTail(s string, w int) string {
	if n := Width(s); n > w {
		s = ansi.TruncateLeftWc(s, n-w+1, "…")
	}
	return Fit(s, w)
}

// quantiles is "p50 0.4s p95 1.9s (180)", or "–" when nothing was timed.
func quantiles(q model.Quantiles) string {
	if q.N == 0 {
		return "–"
	}
	return "p50 " + model.Seconds(q.P50) + " p95 " + model.Seconds(q.P95) + " (" + strconv.Itoa(q.N) + ")"
}

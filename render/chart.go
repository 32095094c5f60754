package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
)

// Small charts for the console's pulse (design §13): a sparkline and
// groups of bars, one cell a value. The glyph's height carries the value,
// so a terminal without colour (NO_COLOR) reads them as well; colour only
// repeats what the letter under a bar says. Stateless: the caller passes
// the figures and the width, and nothing is kept between frames.

// levels are the eight glyph heights, lowest first.
var levels = [8]rune{'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// noData is the cell of a value that is not a number (NaN, ±Inf): no
// height can be told for it.
const noData = ' '

// Spark draws values as one row, a cell each, at most width cells: the
// last width values (the oldest are cut from the left). Zero and below is
// the baseline ▁; a positive value is ▂ to █ in proportion to the largest
// finite value drawn, rounded up, so the smallest positive one still
// stands above zero. NaN and ±Inf are drawn as a space.
func Spark(values []float64, width int) string {
	if width <= 0 || len(values) == 0 {
		return ""
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	top := peak(values)
	var b strings.Builder
	b.Grow(3 * len(values))
	for _, v := range values {
		b.WriteRune(glyph(v, top))
	}
	return b.String()
}

// peak is the largest finite value, 0 when none is positive.
func peak(values []float64) float64 {
	top := 0.0
	for _, v := range values {
		top = raise(top, v)
	}
	return top
}

// raise is top raised to v when v is finite and above it.
func raise(top, v float64) float64 {
	if !math.IsInf(v, 0) && v > top { // NaN > top is false
		return v
	}
	return top
}

// glyph is the cell of v on a scale whose top is top (> 0, or 0 when
// nothing is positive).
func glyph(v, top float64) rune {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return noData
	case v <= 0 || top <= 0:
		return levels[0]
	}
	// Divided first, so a huge value does not overflow.
	i := int(math.Ceil(v / top * float64(len(levels)-1)))
	return levels[min(max(i, 1), len(levels)-1)]
}

// Bar is one bar of a chart: its value, the letter drawn under it, and
// the verdict word whose colour it takes when there is colour (the letter
// says the same without it).
type Bar struct {
	Value  float64
	Letter byte
	Word   string
}

// BarGroups draws groups of bars as two rows of the same width: the bars,
// a cell each with no space inside a group and one between groups, and
// under each bar its letter. Every bar is on one scale, as Spark's, but a
// bar of zero is no bar (a blank over its letter): a minute where nothing
// settled reads empty, not as a row of baselines. The
// groups that do not fit in width are left out whole, the first ones
// first (the oldest, when groups are minutes). With colour a bar is drawn
// in its word's colour (BadgeColor); the letters are never coloured.
func (st *Styles) BarGroups(groups [][]Bar, width int) (bars, letters string) {
	from, used := len(groups), 0
	for from > 0 {
		w := len(groups[from-1])
		if used > 0 {
			w++ // the space before the group after it
		}
		if used+w > width {
			break
		}
		used += w
		from--
	}
	groups = groups[from:]
	top := 0.0
	for _, g := range groups {
		for _, br := range g {
			top = raise(top, br.Value)
		}
	}
	var b, l strings.Builder
	for gi, g := range groups {
		if gi > 0 {
			b.WriteByte(' ')
			l.WriteByte(' ')
		}
		for _, br := range g {
			cell := string(barGlyph(br.Value, top))
			if st.Color && cell != string(noData) {
				cell = ansi.Style{}.ForegroundColor(ansi.BasicColor(uint8(BadgeColor(br.Word)))).Styled(cell) //nolint:gosec // BadgeColor is 0–15
			}
			b.WriteString(cell)
			l.WriteByte(printable(br.Letter))
		}
	}
	return b.String(), l.String()
}

// barGlyph is a bar's cell: glyph's, but blank at zero and below.
func barGlyph(v, top float64) rune {
	if v <= 0 {
		return ' '
	}
	return glyph(v, top)
}

// printable is c when it is a printable ASCII letter or sign, else '?':
// a letter takes one cell, whatever the caller passes.
func printable(c byte) byte {
	if c < '!' || c > '~' {
		return '?'
	}
	return c
}

// VerdictLetter is the letter that stands for a verdict under a bar: its
// word's first, capital (V verified, P partial, F failed, T truncated, I
// incomplete, C cancelled: the verdicts' initials differ); '?' for any
// other word.
func VerdictLetter(word string) byte {
	if model.VerdictIndex(word) < 0 {
		return '?'
	}
	return word[0] - 'a' + 'A'
}

// Compact is a rate or count in at most five cells: 0, 7, 2.5, 42, 999,
// 1.0k, 1.2k, 12k, 1.2M, 3.4G, ">999T"; "?" for NaN or ±Inf, and 0 below
// zero.
func Compact(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case v < 0:
		v = 0
	}
	units := [...]string{"", "k", "M", "G", "T"}
	i := 0
	for v >= 999.5 && i < len(units)-1 {
		v /= 1000
		i++
	}
	switch {
	case v >= 999.5:
		return ">999T"
	case v < 9.95 && (i > 0 || v != math.Trunc(v)):
		return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + units[i]
}

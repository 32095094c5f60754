package render

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
)

func TestSparkExact(t *testing.T) {
	for _, c := range []struct {
		name  string
		vs    []float64
		width int
		want  string
	}{
		{"ramp", []float64{0, 1, 2, 3, 4, 5, 6, 7}, 80, "▁▂▃▄▅▆▇█"},
		{"the smallest positive value stands above zero", []float64{0, 0.001, 1000}, 80, "▁▂█"},
		{"all zero is the baseline", []float64{0, 0, 0}, 80, "▁▁▁"},
		{"negative is zero", []float64{-5, 2}, 80, "▁█"},
		{"not a number is no data", []float64{math.NaN(), 1, math.Inf(1), math.Inf(-1)}, 80, " █  "},
		{"an infinity does not flatten the rest", []float64{math.Inf(1), 1, 2}, 80, " ▅█"},
		{"huge values keep their proportions", []float64{math.MaxFloat64, math.MaxFloat64 / 2, 0}, 80, "█▅▁"},
		{"the last width values", []float64{7, 0, 1, 2}, 3, "▁▅█"},
		{"no width", []float64{1, 2}, 0, ""},
		{"negative width", []float64{1, 2}, -3, ""},
		{"nothing", nil, 10, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Spark(c.vs, c.width)
			if got != c.want {
				t.Errorf("Spark(%v, %d) = %q, want %q", c.vs, c.width, got, c.want)
			}
			if w := ansi.StringWidth(got); c.width > 0 && w > c.width {
				t.Errorf("%d cells, over the width %d", w, c.width)
			}
		})
	}
}

func verdictBars(counts map[string]float64) []Bar {
	var g []Bar
	for _, w := range []string{model.VerdictVerified, model.VerdictFailed, model.VerdictPartial, model.VerdictIncomplete, model.VerdictCancelled} {
		g = append(g, Bar{Value: counts[w], Letter: VerdictLetter(w), Word: w})
	}
	return g
}

func TestBarGroupsNoColorExact(t *testing.T) {
	st := NewStyles(false)
	groups := [][]Bar{
		verdictBars(map[string]float64{"verified": 7, "failed": 1}),
		verdictBars(map[string]float64{"verified": 3, "partial": 2, "cancelled": 1}),
		verdictBars(nil),
	}
	bars, letters := st.BarGroups(groups, 80)
	if want := "█▂    ▄ ▃ ▂      "; bars != want {
		t.Errorf("bars %q, want %q", bars, want)
	}
	if want := "VFPIC VFPIC VFPIC"; letters != want {
		t.Errorf("letters %q, want %q", letters, want)
	}

	// Too narrow: the first groups go, whole; the two rows stay aligned,
	// and the scale is that of the bars drawn.
	bars, letters = st.BarGroups(groups, 11)
	if bars != "█ ▆ ▄      " || letters != "VFPIC VFPIC" {
		t.Errorf("at 11 cells: %q / %q", bars, letters)
	}
	bars, letters = st.BarGroups(groups, 10)
	if bars != "     " || letters != "VFPIC" {
		t.Errorf("at 10 cells: %q / %q", bars, letters)
	}
	if bars, letters = st.BarGroups(groups, 4); bars != "" || letters != "" {
		t.Errorf("no group fits 4 cells: %q / %q", bars, letters)
	}
	if bars, letters = st.BarGroups(nil, 80); bars != "" || letters != "" {
		t.Errorf("no groups: %q / %q", bars, letters)
	}
}

func TestBarGroupsHostileValuesAndLetters(t *testing.T) {
	st := NewStyles(false)
	bars, letters := st.BarGroups([][]Bar{{
		{Value: math.NaN(), Letter: 'V'}, {Value: math.Inf(1), Letter: '\x1b'},
		{Value: -1, Letter: 0xff}, {Value: 4, Letter: ' '}, {Value: 2, Letter: 'C'},
	}}, 80)
	if bars != "   █▅" || letters != "V???C" {
		t.Errorf("%q / %q", bars, letters)
	}
}

func TestBarGroupsColourRepeatsTheLetter(t *testing.T) {
	st := NewStyles(true)
	bars, letters := st.BarGroups([][]Bar{verdictBars(map[string]float64{"verified": 2, "failed": 1})}, 80)
	if got := ansi.Strip(bars); got != "█▅   " {
		t.Errorf("bars without their colour %q", got)
	}
	if letters != "VFPIC" {
		t.Errorf("letters %q (never coloured)", letters)
	}
	// verified green (32), failed red (31): the badge's colours.
	if !strings.Contains(bars, "\x1b[32m█") || !strings.Contains(bars, "\x1b[31m▅") {
		t.Errorf("bars not in their verdicts' colours: %q", bars)
	}
	if w := ansi.StringWidth(bars); w != 5 {
		t.Errorf("%d cells, want 5", w)
	}
}

func TestVerdictLetter(t *testing.T) {
	got := ""
	for _, w := range []string{"verified", "partial", "failed", "truncated", "incomplete", "cancelled", "pending", "", "\x1b[31m"} {
		got += string(VerdictLetter(w))
	}
	if got != "VPFTIC???" {
		t.Errorf("%q", got)
	}
}

func TestCompact(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 7: "7", 2.5: "2.5", 0.04: "0.0", 9.96: "10", 42: "42", 999: "999", 999.7: "1.0k",
		1234: "1.2k", 12_345: "12k", 999_499: "999k", 999_500: "1.0M", 1.2e6: "1.2M", 3.4e9: "3.4G",
		5e12: "5.0T", 9e14: "900T", 1e300: ">999T", -3: "0",
		math.NaN(): "?", math.Inf(1): "?", math.Inf(-1): "?",
	} {
		if got := Compact(v); got != want {
			t.Errorf("Compact(%v) = %q, want %q", v, got, want)
		}
	}
}

package render

import (
	"strings"
	"testing"

	"aipwatch/model"
)

// pulseFixture is a fleet's pulse: a rate that rises and falls, settled
// rows in the last minutes, some failed.
func pulseFixture() *model.PulseFigures {
	f := &model.PulseFigures{RateNow: 1234, Active: 3, Settled: 230, Judged: 212, NotVerified: 15}
	for i := range 90 {
		f.ChunkRate = append(f.ChunkRate, float64((i*37)%11)*100)
	}
	f.PerMinute = make([]model.VerdictCounts, 15)
	f.SettledPerMinute = make([]int, 15)
	for m := range 15 {
		f.PerMinute[m][0] = 10 + m  // verified
		f.PerMinute[m][2] = m % 3   // failed
		f.PerMinute[m][4] = (m / 7) // incomplete
		f.SettledPerMinute[m] = 12 + m%5
	}
	return f
}

func TestPulseLineExact(t *testing.T) {
	f := pulseFixture()
	for _, c := range []struct {
		width int
		want  string
	}{
		{160, "chunks/s ▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄ 1.2k now · 3 active │ settled/min ▇▇███▇▇███▇▇███ │ not verified 7% of 212"},
		{80, "chunks/s ▄▆▁▄▇▂▅█▃▆█▄▆▁▄ 1.2k now │ settled/min ██▇▇███ │ not verified 7% of 212"},
		{60, "chunks/s ▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄ 1.2k now │ not verified 7% of 212"},
		{45, "chunks/s █▄▆▁▄▇▂▅█▃▆█▄▆▁▄▇▂▅█▃▆█▄▆▁▄ 1.2k now"},
		{24, "chunks/s ▆█▄▆▁▄ 1.2k now"},
		{10, "chunks/s  "},
		{0, ""},
	} {
		got := PulseLine(f, c.width)
		if got != c.want {
			t.Errorf("at %d:\n got %q\nwant %q", c.width, got, c.want)
		}
		if w := Width(got); w > c.width {
			t.Errorf("at %d: %d cells", c.width, w)
		}
	}
}

func TestPulseLineEmptyFleet(t *testing.T) {
	f := &model.PulseFigures{ChunkRate: make([]float64, 90), SettledPerMinute: make([]int, 15), PerMinute: make([]model.VerdictCounts, 15)}
	got := PulseLine(f, 80)
	if want := "chunks/s ▁▁▁▁▁▁▁▁▁▁▁▁▁▁ 0 now · 0 active │ settled/min ▁▁▁▁▁▁▁ │ no verdicts yet"; got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	// The zero figures: nothing at all yet.
	if got := PulseLine(&model.PulseFigures{}, 80); got != "chunks/s  0 now · 0 active │ settled/min  │ no verdicts yet" {
		t.Errorf("%q", got)
	}
}

func TestNotVerifiedShare(t *testing.T) {
	for _, c := range []struct {
		nv, judged int
		want       string
	}{
		{0, 0, "no verdicts yet"}, {0, 10, "not verified 0% of 10"}, {1, 1000, "not verified 1% of 1000"},
		{999, 1000, "not verified 99% of 1000"}, {10, 10, "not verified 100% of 10"}, {1, 3, "not verified 33% of 3"},
		{1, 2, "not verified 50% of 2"},
	} {
		if got := notVerified(&model.PulseFigures{NotVerified: c.nv, Judged: c.judged}); got != c.want {
			t.Errorf("%d of %d: %q, want %q", c.nv, c.judged, got, c.want)
		}
	}
}

func TestPulseVerdictLinesExact(t *testing.T) {
	f := pulseFixture()
	st := NewStyles(false)
	got := st.PulseVerdictLines(f, 80)
	want := [2]string{
		// Only the verdicts judged in the window (verified, failed,
		// incomplete) have bars; a zero is no bar.
		"by verdict  ▄   ▅▂  ▅▂  ▅   ▆▂  ▆▂  ▆   ▆▂▂ ▇▂▂ ▇ ▂ ▇▂▂ █▂▂ █ ▂ █▂▂ █▂▂",
		"            VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI VFI",
	}
	if got != want {
		t.Errorf("\n got %q\n     %q\nwant %q\n     %q", got[0], got[1], want[0], want[1])
	}
	for _, l := range got {
		if Width(l) > 80 {
			t.Errorf("%d cells: %q", Width(l), l)
		}
	}
	wide := st.PulseVerdictLines(f, 160)
	if n := strings.Count(wide[1], "VFI"); n != 15 {
		t.Errorf("at 160: %d minutes, want the 15", n)
	}
}

func TestCapabilityLinesExact(t *testing.T) {
	stats := []model.CapabilityStats{
		{CapabilityID: "cap:hermes_agent:ep:chat_stream", Actions: 190, Verdicts: map[string]int{"verified": 170, "failed": 10, "": 10},
			FirstToken: model.Quantiles{P50: 400, P95: 1900, N: 180}, Duration: model.Quantiles{P50: 6200, P95: 41000, N: 180},
			TotalTokens: 1_234_567, Reported: 170},
		{CapabilityID: "cap:hermes_agent:ep:responses_stream", Actions: 32, Verdicts: map[string]int{"verified": 32},
			FirstToken: model.Quantiles{P50: 700, P95: 2600, N: 32}, Duration: model.Quantiles{P50: 9800, P95: 55000, N: 32}},
		{CapabilityID: "", Actions: 1, Verdicts: map[string]int{"": 1}},
		{CapabilityID: "cap:hermes_agent:ep:evil\x1b]0;x\a", Actions: 1, Verdicts: map[string]int{"unknown": 1}},
	}
	got := CapabilityLines(stats, 160)
	want := []string{
		"chat_stream       first token p50 0.4s p95 1.9s (180) · duration p50 6.2s p95 41s (180) · 180 judged of 190 · 1.2M tokens",
		"responses_stream  first token p50 0.7s p95 2.6s (32) · duration p50 9.8s p95 55s (32) · 32 judged of 32",
		"(none)            first token – · duration – · 0 judged of 1",
		"evil␛]0;x␇        first token – · duration – · 1 judged of 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	for _, l := range CapabilityLines(stats, 80) {
		if Width(l) > 80 {
			t.Errorf("%d cells: %q", Width(l), l)
		}
	}
}

// design §13: two endpoints' chat_stream read apart in the pulse's
// figures (the parts that tell them apart, kept within the name's width:
// a long one cut at its start, never its end), and the rows a listing
// left unjudged are not counted judged.
func TestCapabilityLinesTellEndpointsApart(t *testing.T) {
	stats := []model.CapabilityStats{
		{CapabilityID: "cap:x:ep1:chat_stream", Actions: 2, Verdicts: map[string]int{"verified": 1, "not_judged": 1}},
		{CapabilityID: "cap:x:ep2:chat_stream", Actions: 1, Verdicts: map[string]int{"verified": 1}},
		{CapabilityID: "cap:x:ep1:responses", Actions: 1, Verdicts: map[string]int{"verified": 1}},
		{CapabilityID: "cap:x:a_very_long_endpoint_name_7:chat_stream", Actions: 1, Verdicts: map[string]int{"verified": 1}},
		{CapabilityID: "cap:x:a_very_long_endpoint_name_8:chat_stream", Actions: 1, Verdicts: map[string]int{"verified": 1}},
	}
	lines := CapabilityLines(stats, 80)
	names := make([]string, len(lines))
	for i, l := range lines {
		if Width(l) > 80 {
			t.Errorf("%d cells: %q", Width(l), l)
		}
		names[i], _, _ = strings.Cut(l, "  first token")
		names[i] = strings.TrimSpace(names[i])
	}
	want := []string{"ep1:chat_stream", "ep2:chat_stream", "responses", "…oint_name_7:chat_stream", "…oint_name_8:chat_stream"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("names %q\nwant  %q", names, want)
	}
	if !strings.Contains(lines[0], "1 judged of 2") {
		t.Errorf("a row not judged counted judged: %q", lines[0])
	}
}

// With nothing judged in the window the verdict lines say so, and keep
// their place (no bars of zeros, no row of letters to read past).
func TestPulseVerdictLinesNothingJudged(t *testing.T) {
	f := &model.PulseFigures{PerMinute: make([]model.VerdictCounts, 15)}
	got := NewStyles(false).PulseVerdictLines(f, 80)
	if got[0] != "by verdict  none judged in the window yet" || got[1] != "" {
		t.Errorf("%q", got)
	}
}

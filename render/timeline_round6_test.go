package render

import (
	"testing"
	"time"

	"aipwatch/model"
)

// design §16: in a zoomed window only the tools that overlap it have a
// row: one that ended before the window starts is not drawn at its edge.
func TestTimelineWindowLeavesOutToolsBeforeIt(t *testing.T) {
	t.Parallel()
	st := NewStyles(true)
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tl := model.TurnTimeline{From: base, To: base.Add(time.Minute), Known: true, Verdict: "verified", Final: true, TokensPerByte: 0.25}
	o := TimelineOptions{Width: 80, From: base.Add(30 * time.Second), To: base.Add(time.Minute)}
	without := st.Timeline(tl, o)
	tl.Tools = []model.ToolSpan{{ID: "c1", Name: "early", Start: base.Add(time.Second), End: base.Add(5 * time.Second), Outcome: model.ToolOutcomeCompleted}}
	with := st.Timeline(tl, o)
	if len(with) != len(without) {
		t.Fatalf("a tool before the window drew a row:\n%q\nwithout it:\n%q", with, without)
	}
	o.From = base
	if whole := st.Timeline(tl, o); len(whole) <= len(without) {
		t.Fatalf("the tool is not drawn in the whole axis: %q", whole)
	}
}

package output

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/sim"
	"aipwatch/stream"
)

// On a terminal, ls --verdict says how far the judging got, over one line;
// the count ends at the rows judged.
func TestRowJudgeProgress(t *testing.T) {
	t.Parallel()
	f := startFleet(t,
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_a"}},
		sim.Member{Scenario: "chat-error", Knobs: sim.Knobs{Finished: true, ActionID: "act_b"}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 0.01, ActionID: "act_live"}},
	)
	var progress bytes.Buffer
	j := stream.NewJudge(stream.Config{BaseURL: f.URL()}, stream.JudgeOptions{})
	rj := &RowJudge{Listing: j.NewListing(0), Stderr: io.Discard, Progress: func(l safe.Str) { progress.WriteString(l.String()) }} // Progress: what ls sets on a terminal's stderr
	rows := []model.ActionRow{{ActionID: "act_a", State: "completed"}, {ActionID: "act_live", State: "running"}, {ActionID: "act_b", State: "completed"}}
	rj.JudgeRows(rows)
	rj.End()
	if rows[0].Verdict != "failed" || rows[2].Verdict != "failed" || rows[1].Verdict != "" {
		t.Fatalf("verdicts %q %q %q", rows[0].Verdict, rows[1].Verdict, rows[2].Verdict)
	}
	out := progress.String()
	if !strings.Contains(out, "\rjudging 1 of 2…") || !strings.Contains(out, "\rjudging 2 of 2…") || strings.Contains(out, "3") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("progress %q", out)
	}
}

package output

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"aipwatch/model"
)

func fitRows(now time.Time) []model.ActionRow {
	at := now.Add(-time.Minute).Format(time.RFC3339)
	f := model.NewFleet()
	f.SetList([]model.ActionStatus{
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", CapabilityID: "cap:hermes_agent:production-eu:responses_stream",
			State: "running", QueuedState: "running", UpdatedAt: at, StartedAt: at,
			Lease: &model.Lease{WorkerID: "worker-eu-west-1-a", ExpiresAt: now.Add(-time.Minute).Format(time.RFC3339)}, Retry: &model.Retry{Attempts: 2}},
		{ActionID: "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f71", CapabilityID: "cap:hermes_agent:sim:chat_stream",
			State: "dead_lettered", QueuedState: "dead_lettered", ResultStatus: "failed", UpdatedAt: at, StartedAt: at},
	})
	f.MarkJournal([]string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f"})
	return f.Rows(model.Filter{})
}

// ls on a terminal fits its width: full IDs and states, the wide cells
// cut and the least useful columns left out; piped (width 0) every cell
// is whole.
func TestListTableFitsTheTerminal(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rows := fitRows(now)
	var whole bytes.Buffer
	if err := WriteListTableWidth(&whole, rows, now, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.String(), "hermes_agent:production-eu:responses_stream") || !strings.Contains(whole.String(), "stuck?") {
		t.Fatalf("piped, a cell was cut:\n%s", whole.String())
	}
	for _, width := range []int{80, 100, 120} {
		var b bytes.Buffer
		if err := WriteListTableWidth(&b, rows, now, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
				t.Errorf("width %d: a line of %d: %q", width, n, l)
			}
		}
		for _, want := range []string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f7f", "dead_lettered", "running"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d lacks %q:\n%s", width, want, out)
			}
		}
	}
}

package output

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// A synchronous action's record has started_at = completed_at (written
// when it settles): the export's started and settled times come from the
// chunk events' occurred_at, 5.4 s apart, and stay aipd's when its record
// says the action began earlier.
func TestExportTimesFromEventTimes(t *testing.T) {
	settled := time.Date(2026, 12, 1, 10, 0, 5, 400_000_000, time.UTC)
	for _, c := range []struct {
		name, started, wantStart string
	}{
		{"sync", "2026-12-01T10:00:05.4Z", "2026-12-01T10:00:00.000Z"},
		{"async", "2026-12-01T09:59:58Z", "2026-12-01T09:59:58.000Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs := chatTurn(settled)
			var events []model.Event
			for seq := range uint64(7) {
				at := settled.Add(-5400 * time.Millisecond).Add(time.Duration(seq) * 900 * time.Millisecond)
				events = append(events, model.Event{ID: fmt.Sprintf("evt_%d", seq), Kind: "aip.stream.chunk", ActionID: "act_t",
					OccurredAt: at.Format(time.RFC3339Nano), Data: []byte(fmt.Sprintf(`{"action_id":"act_t","sequence":%d}`, seq))})
			}
			msgs = append(msgs, stream.BatchMsg{Events: events, At: settled},
				stream.StatusMsg{Final: true, Status: model.ActionStatus{ActionID: "act_t", State: model.StateCompleted,
					StartedAt: c.started, CompletedAt: "2026-12-01T10:00:05.4Z"}})
			a := drive(NewPlain(io.Discard, Options{}), msgs)
			md := string(Markdown(a, MarkdownOptions{}))
			if !strings.Contains(md, "| started | "+c.wantStart+" |") || !strings.Contains(md, "| settled | 2026-12-01T10:00:05.400Z |") {
				t.Fatalf("export times:\n%s", md)
			}
		})
	}
}

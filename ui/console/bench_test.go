package console

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// BenchmarkConsoleEventBatch is what one batch of the global log costs
// the console with a window of 100 recent rows and two live actions: the
// update and the frame (an idle console on a busy daemon pays it a few
// times a second).
func BenchmarkConsoleEventBatch(b *testing.B) {
	var recent []model.ActionStatus
	for i := range 100 {
		recent = append(recent, model.ActionStatus{ActionID: fmt.Sprintf("act_%032x", i), CapabilityID: "cap:hermes_agent:sim:chat_stream",
			State: "completed", ResultStatus: "completed", UpdatedAt: t0.Add(-time.Duration(100-i) * time.Minute).Format(time.RFC3339Nano)})
	}
	c := New(context.Background(), Options{Daemon: &fakeDaemon{list: recent}, Keys: realConsoleKeys(b), LiveKeys: realKeys(b), NoColor: true})
	defer c.Close()
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	c.Update(c.listCmd()())
	ev := func(seq int) model.Event {
		d, _ := json.Marshal(map[string]any{"action_id": "act_live_sync", "sequence": seq, "kind": "delta"})
		return model.Event{Kind: "aip.stream.chunk", ActionID: "act_live_sync", OccurredAt: t0.Format(time.RFC3339Nano), Data: d}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		c.Update(globalMsg{stream.GlobalEventsMsg{Events: []model.Event{ev(5 * i), ev(5*i + 1), ev(5*i + 2), ev(5*i + 3), ev(5*i + 4)}}})
		_ = c.Frame(0, 0)
	}
}

package output

import (
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// An export made while the action still runs says so
// (not "**following** ()"), and its tool table has durations.
func TestMidStreamExport(t *testing.T) {
	a := model.NewAction("act_mid")
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, raw := range []string{
		`{"action_id":"act_mid","sequence":0,"kind":"data","data":{"hermes_sse":{"data":{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]},"raw_data":"","terminal":false}}}`,
		`{"action_id":"act_mid","sequence":1,"kind":"data","data":{"hermes_sse":{"event":"hermes.tool.progress","data":{"tool":"terminal","toolCallId":"call_1","status":"running","label":"ls"},"raw_data":"","terminal":false}}}`,
		`{"action_id":"act_mid","sequence":2,"kind":"data","data":{"hermes_sse":{"event":"hermes.tool.progress","data":{"tool":"terminal","toolCallId":"call_1","status":"completed"},"raw_data":"","terminal":false}}}`,
		`{"action_id":"act_mid","sequence":3,"kind":"data","data":{"hermes_sse":{"event":"hermes.tool.progress","data":{"tool":"read_file","toolCallId":"call_2","status":"running","label":"x"},"raw_data":"","terminal":false}}}`,
	} {
		c, err := model.DecodeChunk([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		a.IngestChunk(c, at.Add(time.Duration(i)*time.Second))
	}
	md := string(Markdown(a, MarkdownOptions{Now: at.Add(10 * time.Second), Version: "test"}))
	for _, want := range []string{
		"| verdict | **following** (2 tool effects to confirm, exported while the action was still running) |",
		"| 1 | terminal | ls | completed | 1.0s | `call_1` |", // model.HumanDuration, as plain and the TUI
		"| 2 | read_file | x | running | 7.0s so far | `call_2` |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}
}

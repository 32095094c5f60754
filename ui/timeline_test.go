package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/stream"
)

// The timeline (v, design §16) of four turns, at 80 and 160 columns:
//
//	go test ./ui -run TestTimelineGolden -update
func timelineScenes() []scene {
	return []scene{
		{"chat_two_tools", nil, func(h *harness) {
			h.f.events = true
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.press("v")
		}, false},
		{"responses", nil, func(h *harness) {
			h.f.events = true
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("v")
		}, false},
		{"cancelled", nil, func(h *harness) {
			h.f.events = true
			h.feed(chatToolsLive(h.f)...)
			h.at(5*time.Second + 100*time.Millisecond)
			h.press("c", "2", "Z", "4", "A", "enter")
			h.at(5*time.Second + 300*time.Millisecond)
			h.feed(stream.CancelMsg{Accepted: true})
			h.feed(h.f.after(time.Second).batch(cancelledFrame(h.f)), stream.TerminalMsg{Cursor: cursorA},
				result(h.tb, model.ResultCancelled, model.OpChat, "", false, false), status(model.StateCancelled, true), stream.DoneMsg{})
			h.press("v")
		}, false},
		{"reconnect", nil, func(h *harness) {
			h.f.events = true
			f := h.f
			out := chatToolsLive(f)
			h.feed(out...)
			h.at(4*time.Second + 500*time.Millisecond)
			h.feed(stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "read: connection reset by peer"})
			h.at(5*time.Second + 600*time.Millisecond)
			h.feed(stream.ConnectedMsg{Attempt: 2, Cursor: cursorA, Resumed: true})
			f.at = h.clock.t
			h.feed(f.after(300 * time.Millisecond).batch(f.toolCompleted("read_file", "call_read_file_2")))
			h.feed(f.after(2 * time.Second).batch(f.deltas(chatText3)...))
			h.feed(f.after(250*time.Millisecond).batch(f.finish("stop", false), f.done()))
			h.feed(stream.TerminalMsg{Cursor: cursorA + "T"}, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false),
				status(model.StateCompleted, true), stream.DoneMsg{})
			h.press("v")
		}, false},
	}
}

func TestTimelineGolden(t *testing.T) {
	t.Parallel()
	for _, sc := range timelineScenes() {
		t.Run(sc.name, func(t *testing.T) {
			for _, sz := range []struct {
				name string
				w, h int
			}{{"80x24", 80, 24}, {"160x30", 160, 30}} {
				t.Run(sz.name, func(t *testing.T) {
					h := newHarness(t, sz.w, sz.h)
					sc.script(h)
					out := h.screen()
					if n := strings.Count(out, "\n") + 1; n != sz.h {
						t.Errorf("screen has %d rows, want %d", n, sz.h)
					}
					for i, line := range strings.Split(out, "\n") {
						if w := ansi.StringWidthWc(line); w > sz.w {
							t.Errorf("row %d is %d cells wide (> %d): %q", i, w, sz.w, line)
						}
					}
					golden.RequireEqual(t, []byte(out))
				})
			}
		})
	}
}

// v shows the timeline and its keys; + and - zoom around the middle, ←
// pans back (no longer following), G follows the end again, v and esc
// close it; ? lists its keys.
func TestTimelineKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	h.f.events = true
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
	h.press("v")
	if h.m.Mode() != ModeTimeline || !strings.Contains(h.screen(), "whole turn · 11s") {
		t.Fatalf("v did not open the timeline:\n%s", h.screen())
	}
	if !strings.Contains(h.screen(), "+/- zoom") {
		t.Errorf("no timeline keys on the help line:\n%s", h.screen())
	}
	h.press("+")
	if s := h.screen(); !strings.Contains(s, "×2 · 5.5s–11s") {
		t.Errorf("+ did not halve the window around its middle (following the end):\n%s", s)
	}
	h.press("+", "left")
	if s := h.screen(); !strings.Contains(s, "×4 · 7.6s–10s") {
		t.Errorf("← did not pan a quarter window back:\n%s", s)
	}
	h.press("G")
	if s := h.screen(); !strings.Contains(s, "×4 · 8.2s–11s") {
		t.Errorf("G did not follow the end:\n%s", s)
	}
	h.press("-", "-")
	if s := h.screen(); !strings.Contains(s, "whole turn") {
		t.Errorf("- - did not zoom out to the whole turn:\n%s", s)
	}
	h.press("?")
	if s := h.screen(); !strings.Contains(s, "zoom in") || !strings.Contains(s, "earlier") {
		t.Errorf("? does not list the timeline's keys:\n%s", s)
	}
	h.press("?", "esc")
	if h.m.Mode() != ModeNormal {
		t.Errorf("esc did not close the timeline: mode %v", h.m.Mode())
	}
	h.press("v", "v")
	if h.m.Mode() != ModeNormal {
		t.Errorf("v did not close the timeline: mode %v", h.m.Mode())
	}
}

// The review of a turn that settled an hour ago: v draws the turn on
// aipd's times (5.4s, as it ran), not the hour since, and the review's
// own connection, made long after, is no mark on it.
func TestTimelineOfAReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	f := h.f
	ran := t0.Add(-time.Hour)
	chunks := append([]model.StreamChunk{f.role()}, f.deltas(chatText1)...)
	chunks = append(chunks, f.toolRunning("terminal", "💻", "ls", "call_1"), f.toolCompleted("terminal", "call_1"),
		f.finish("stop", false), f.done())
	var events []model.Event
	for i, c := range chunks {
		at := ran.Add(-5400*time.Millisecond + time.Duration(i)*100*time.Millisecond)
		events = append(events, model.Event{ID: "evt_" + strconv.Itoa(int(c.Sequence)), Kind: "aip.stream.chunk", ActionID: testAction,
			OccurredAt: at.Format(time.RFC3339Nano), Data: []byte(`{"action_id":"` + testAction + `","sequence":` + strconv.Itoa(int(c.Sequence)) + `,"kind":"data"}`)})
	}
	settled := model.ActionStatus{ActionID: testAction, CapabilityID: "cap", State: model.StateCompleted,
		StartedAt: ran.Add(-5400 * time.Millisecond).Format(time.RFC3339Nano), CompletedAt: ran.Format(time.RFC3339Nano)}
	h.feed(stream.StatusMsg{Status: settled}, stream.ModeMsg{Review: true}, stream.ConnectedMsg{Attempt: 1},
		stream.ReconnectingMsg{Attempt: 2, Wait: time.Second, Cause: "x"}, stream.ConnectedMsg{Attempt: 2, Resumed: true},
		stream.BatchMsg{Chunks: chunks, Events: events, At: t0},
		stream.TerminalMsg{Cursor: cursorA}, result(t, model.ResultCompleted, model.OpChat, "", true, false),
		stream.StatusMsg{Status: settled, Final: true}, stream.DoneMsg{})
	h.press("v")
	s := h.screen()
	if !strings.Contains(s, "whole turn · 5.4s") || !strings.Contains(s, "VERIFIED 5.4s") {
		t.Errorf("the review's timeline is not the turn's 5.4s:\n%s", s)
	}
	if strings.Contains(s, "connection") || strings.Contains(s, "↯") {
		t.Errorf("the review's own reconnect is on the turn's axis:\n%s", s)
	}
	if !strings.Contains(s, "C ✓") {
		t.Errorf("no completed bar for the tool:\n%s", s)
	}
}

// While the turn runs the timeline follows it: its axis ends at now, with
// the live word, and grows as the turn goes on.
func TestTimelineFollowsALiveRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	h.f.events = true
	h.feed(chatToolsLive(h.f)...)
	h.at(6 * time.Second)
	h.press("v")
	s := h.screen()
	if !strings.Contains(s, "following 8.0s ▶") || !strings.Contains(s, "R ⟳") {
		t.Fatalf("no live end at now (8.0s from started_at), or no running bar:\n%s", s)
	}
	h.at(9 * time.Second)
	h.feed(h.f.after(5 * time.Second).batch(h.f.toolCompleted("read_file", "call_read_file_2")))
	s = h.screen()
	if !strings.Contains(s, "following 11s ▶") || strings.Contains(s, "R ⟳") {
		t.Errorf("the timeline did not follow the run:\n%s", s)
	}
}

// The token rate needs aipd's times: a turn whose chunks carry none (no
// aip.stream.chunk events read) has no rate row, but still its bars.
func TestTimelineRateNeedsTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
	h.press("v")
	s := h.screen()
	if strings.Contains(s, "tokens/s") {
		t.Errorf("a rate without aipd's times:\n%s", s)
	}
	if !strings.Contains(s, "terminal") || !strings.Contains(s, "├C") {
		t.Errorf("no bars:\n%s", s)
	}
}

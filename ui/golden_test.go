package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"aipwatch/model"
	"aipwatch/stream"
)

// Goldens of View's content, with escape sequences stripped (colour is
// checked apart, by the styles' own tests). Regenerate with
//
//	go test ./ui -run TestGolden -update

type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

type harness struct {
	tb    testing.TB
	m     *prog
	f     *fx
	clock *testClock
}

func newHarness(tb testing.TB, w, h int, mutate ...func(*Options)) *harness {
	tb.Helper()
	clk := &testClock{t: t0}
	opts := Options{
		ActionID: testAction,
		Keys:     realKeys(tb),
		Clock:    clk.now,
		Resume:   func(c string) string { return "aipwatch --cursor " + c + " " + testAction },
	}
	for _, f := range mutate {
		f(&opts)
	}
	m := newModel(context.Background(), opts)
	m.tr.SyncMarkdown = true
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &harness{tb: tb, m: m, f: newFx(tb), clock: clk}
}

// feed applies messages in order; the clock follows the batches' times.
func (h *harness) feed(msgs ...stream.Msg) *harness {
	for _, x := range msgs {
		if b, ok := x.(stream.BatchMsg); ok && b.At.After(h.clock.t) {
			h.clock.t = b.At
		}
		h.m.Update(x)
	}
	return h
}

// at sets the clock to t0+d.
func (h *harness) at(d time.Duration) *harness { h.clock.t = t0.Add(d); return h }

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "up": tea.KeyUp, "down": tea.KeyDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight}
	switch {
	case k == "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case k == "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case k == "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case special[k] != 0:
		return tea.KeyPressMsg{Code: special[k]}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

func (h *harness) press(keys ...string) *harness {
	for _, k := range keys {
		h.m.Update(keyMsg(k))
	}
	return h
}

func (h *harness) screen() string { return ansi.Strip(h.m.Render()) }

var sizes = []struct {
	name string
	w, h int
}{{"80x24", 80, 24}, {"120x40", 120, 40}}

type scene struct {
	name   string
	opts   func(*Options)
	script func(h *harness)
	marks  bool // show search highlights: ⟦match⟧, ⟪current⟫ (markHighlights)
}

func scenes() []scene {
	return []scene{
		{"chat_streaming_tools", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.at(5*time.Second + 300*time.Millisecond)
		}, false},
		{"cost_streaming", nil, func(h *harness) {
			// Tokens per second while it streams, estimated from the text
			// (Chat sends usage only in its last chunk).
			h.f.events = true
			h.feed(chatToolsLive(h.f)...)
			h.at(5*time.Second + 300*time.Millisecond)
		}, false},
		{"cost_settled", nil, func(h *harness) {
			// The totals and aipd's times once settled.
			h.f.events = true
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.at(12 * time.Second)
		}, false},
		{"chat_verified", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.at(12 * time.Second)
		}, false},
		{"responses_function_call", nil, func(h *harness) {
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.at(5 * time.Second)
		}, false},
		{"responses_live", nil, func(h *harness) {
			h.feed(responsesTools(h.tb, h.f, false)...)
			h.at(4 * time.Second)
		}, false},
		{"responses_reasoning", nil, func(h *harness) {
			r := h.f.responses()
			rs, msg := "rs_0c4e1a9b7d2f", "msg_5e2c7b0a9d4f1e6c3b8a2d7f"
			var think []model.StreamChunk
			for i := 1; i <= 14; i++ {
				think = append(think, r.reasoningText(0, rs, fmt.Sprintf("Step %d: weigh the notes file against the test log.\n", i)))
			}
			h.feed(status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
				h.f.after(300*time.Millisecond).batch(append([]model.StreamChunk{r.created(), r.reasoningAdded(0, rs)}, think...)...),
				h.f.after(time.Second).batch(r.reasoningDone(0, rs), r.msgAdded(1, msg), r.text(1, msg, "Both items are done.")),
				h.f.after(time.Second).batch(r.textDone(1, msg, "Both items are done."), r.msgDone(1, msg, "Both items are done."), r.completed()),
				stream.TerminalMsg{Cursor: cursorA}, result(h.tb, model.ResultCompleted, model.OpResponses, "", true, false), stream.DoneMsg{})
		}, false},
		{"verdict_partial", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "length", true, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
		}, false},
		{"verdict_failed", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "error", true, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
		}, false},
		{"verdict_failed_responses", nil, func(h *harness) {
			h.feed(responsesFailed(h.tb, h.f, "upstream provider returned HTTP 502 (Bad Gateway)")...)
		}, false},
		{"verdict_truncated", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultFailed, model.OpChat, "connector.hermes_agent.stream_truncated", false, true))...)
		}, false},
		{"verdict_incomplete", nil, func(h *harness) {
			out := chatToolsLive(h.f)
			out = append(out, h.f.after(time.Second).batch(upstreamClosed(h.f)),
				stream.TerminalMsg{Cursor: cursorA}, result(h.tb, model.ResultFailed, model.OpChat, "connector.hermes_agent.stream_incomplete", false, false),
				status(model.StateFailed, true), stream.DoneMsg{})
			h.feed(out...)
		}, false},
		{"verdict_cancelled", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.press("c", "2", "Z", "4", "A", "enter")
			h.feed(stream.CancelMsg{Accepted: true})
			h.feed(h.f.after(time.Second).batch(cancelledFrame(h.f)), stream.TerminalMsg{Cursor: cursorA},
				result(h.tb, model.ResultCancelled, model.OpChat, "", false, false), status(model.StateCancelled, true), stream.DoneMsg{})
		}, false},
		{"verdict_late_cancel", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.press("c", "2", "Z", "4", "A", "enter")
			h.feed(stream.CancelMsg{Accepted: true})
			rest := chatToolsDone(h.tb, newFx(h.tb), "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
			h.feed(rest...)
		}, false},
		{"verdict_pending", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.m.Close() // q: the viewer stops before the action settled
		}, false},
		{"reconnecting", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.feed(stream.ReconnectingMsg{Attempt: 2, Wait: 4 * time.Second, Cause: "read: connection reset by peer"})
			h.at(5*time.Second + 1500*time.Millisecond)
		}, false},
		{"awaiting_result", nil, func(h *harness) {
			msgs := chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
			h.feed(msgs[:len(msgs)-3]...) // up to aip.stream.terminal
		}, false},
		{"anomalies_and_notes", nil, func(h *harness) {
			f := h.f
			h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()))
			c := f.delta("first")
			h.feed(f.batch(c))
			conflict := c
			conflict.Data = []byte(strings.Replace(string(c.Data), "first", "other", 1))
			conflict.Raw = nil
			h.feed(f.batch(conflict), f.batch(f.finish("stop", false), f.done()),
				stream.TerminalMsg{Cursor: cursorA}, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false), stream.DoneMsg{})
		}, false},
		{"cancel_confirm", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.press("c")
		}, false},
		{"paused_new_lines", nil, func(h *harness) {
			h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, h.f.batch(h.f.role()))
			h.feed(h.f.after(time.Second).batch(h.f.deltas(longText(12))...))
			h.press("pgup", "up", "up")
			h.feed(h.f.after(time.Second).batch(h.f.deltas("\n\n" + longText(2))...))
		}, false},
		{"redacted", func(o *Options) { o.Redact = true }, func(h *harness) {
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("r")
		}, false},
		{"redacted_chat", func(o *Options) { o.Redact = true }, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.feed(stream.ReconnectingMsg{Attempt: 2, Wait: 4 * time.Second, Cause: "HTTP 503: secret upstream detail"})
		}, false},
		{"help", nil, func(h *harness) {
			h.feed(chatToolsLive(h.f)...)
			h.press("?")
		}, false},
		{"raw_view", nil, func(h *harness) {
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("tab", "r")
		}, false},
		{"review_plain", nil, func(h *harness) {
			msgs := chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
			msgs[1] = stream.ModeMsg{Review: true}
			h.feed(msgs...)
			h.press("p")
		}, false},
		{"no_color", func(o *Options) { o.NoColor = true }, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
		}, false},
		{"collapsed_toggle", nil, func(h *harness) {
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("home", "tab", "enter")
		}, false},
		{"search_active", nil, func(h *harness) {
			// Matches in the text, in a function call's arguments and
			// output, and in a tool label; n moved to the second.
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("home")
			h.typeQuery("test").press("enter", "n")
		}, true},
		{"search_typing", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.typeQuery("readme")
		}, true},
		{"search_tool_label", nil, func(h *harness) {
			// The current match is in the tools pane (after the transcript's,
			// on the inline tool row).
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.typeQuery("ls -la").press("enter", "n")
		}, true},
		{"search_no_match", nil, func(h *harness) {
			h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
			h.typeQuery("kubernetes").press("enter")
		}, true},
		{"search_redacted", func(o *Options) { o.Redact = true }, func(h *harness) {
			// Only the mask is searchable under --redact.
			h.feed(responsesTools(h.tb, h.f, true)...)
			h.press("home")
			h.typeQuery("redacted").press("enter")
		}, true},
		{"review_badge", nil, func(h *harness) {
			msgs := chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))
			msgs[1] = stream.ModeMsg{Review: true}
			h.feed(msgs...)
		}, false},
		{"replay_in_progress", func(o *Options) { o.Replay = true }, func(h *harness) {
			// A replay of a live recording: its mode line says live.
			h.feed(chatToolsLive(h.f)...)
			h.press("c")
		}, false},
	}
}

// typeQuery opens the query line and types q.
func (h *harness) typeQuery(q string) *harness {
	h.press("/")
	for _, r := range q {
		if r == ' ' {
			h.press("space")
			continue
		}
		h.press(string(r))
	}
	return h
}

func upstreamClosed(f *fx) model.StreamChunk {
	c := map[string]any{"action_id": f.id, "sequence": f.seq, "kind": "error",
		"data": map[string]any{"operation": "chat_stream", "reason": "upstream_stream_closed_without_terminal_event"}}
	f.seq++
	ch, err := model.DecodeChunk([]byte(mustJSON(f.tb, c)))
	if err != nil {
		f.tb.Fatal(err)
	}
	return ch
}

func cancelledFrame(f *fx) model.StreamChunk {
	return f.frame("run.cancelled", map[string]any{"event": "run.cancelled", "reason": "action cancellation requested"}, true, "done", "")
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, sc := range scenes() {
		t.Run(sc.name, func(t *testing.T) {
			for _, sz := range sizes {
				t.Run(sz.name, func(t *testing.T) {
					var mut []func(*Options)
					if sc.opts != nil {
						mut = append(mut, sc.opts)
					}
					h := newHarness(t, sz.w, sz.h, mut...)
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
					if sc.marks {
						out = markHighlights(h.m.Render())
					}
					golden.RequireEqual(t, []byte(out))
				})
			}
		})
	}
}

// prog is the program of one action as the tests drive it: the shell over
// a Single, whose state the tests read.
type prog struct {
	*Shell
	*Single
}

func newModel(ctx context.Context, opts Options) *prog {
	s := NewSingle(ctx, opts)
	return &prog{Shell: NewShell(s), Single: s}
}

func (m *prog) Init() tea.Cmd { return m.Shell.Init() }

func (m *prog) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.Shell.Update(msg)
	return m, cmd
}

func (m *prog) View() tea.View { return m.Shell.View() }

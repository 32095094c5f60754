package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
	"aipwatch/stream"
)

// isQuit reports whether cmd (or a command of its batch) quits.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch m := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range m {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

// Until aipd answers there is no full screen, and an error
// before that quits at once (main prints it on stderr with a hint).
func TestStartupFailureQuitsWithoutAFullScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	v := h.m.View()
	if v.AltScreen || !strings.Contains(v.Content, "connecting to aipd for "+testAction) {
		t.Fatalf("before attaching: alt screen %v, %q", v.AltScreen, v.Content)
	}
	h.m.Update(stream.ReconnectingMsg{Attempt: 2, Wait: 3 * time.Second, Cause: "connection refused"})
	if v := h.m.View(); v.AltScreen || !strings.Contains(v.Content, "aipd not reachable") ||
		!strings.Contains(v.Content, "(attempt 2, next try in 3s): connection refused") {
		t.Fatalf("retrying at start-up: %q", v.Content)
	}
	// At 80 columns a long cause is cut, the retry key stays.
	h.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.m.Update(stream.ReconnectingMsg{Attempt: 3, Wait: 3 * time.Second,
		Cause: "tls: failed to verify certificate: x509: certificate signed by unknown authority"})
	if v := h.m.View(); !strings.Contains(v.Content, "· ctrl+r retry") ||
		!strings.Contains(v.Content, "(attempt 3, next try in 3s): tls") || ansi.StringWidth(v.Content) > 80 {
		t.Fatalf("retrying at 80 columns: %q", v.Content)
	}
	_, cmd := h.m.Update(stream.ErrorMsg{Err: &stream.Error{Op: "status", Message: "connection refused"}})
	if !isQuit(cmd) {
		t.Fatal("an error before aipd answered did not quit")
	}
	if v := h.m.View(); v.AltScreen || v.Content != "" {
		t.Fatalf("after a start-up failure the screen is %q (alt %v), want nothing", v.Content, v.AltScreen)
	}
}

func TestErrorAfterAttachKeepsTheScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, h.f.batch(h.f.role(), h.f.delta("hello")))
	if v := h.m.View(); !v.AltScreen {
		t.Fatal("attached, but no full screen")
	}
	_, cmd := h.m.Update(stream.ErrorMsg{Err: &stream.Error{Op: "follow", Code: "auth.native_http_unauthorized", HTTPStatus: 401}})
	if isQuit(cmd) {
		t.Fatal("an error after attaching quit: the transcript must stay readable")
	}
	if !strings.Contains(h.screen(), "hello") {
		t.Fatal("transcript gone")
	}
}

// After a Responses turn settles, G (and End) reach the
// last line, and scrolling back down to the end resumes follow.
func TestBottomAfterResponsesTurnSettles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	h.feed(responsesTools(h.tb, h.f, true)...)
	m := h.m
	if !m.action.Settled() {
		t.Fatal("fixture did not settle")
	}
	body := m.layout().body
	bottom := m.tr.Len() - body
	if bottom <= 0 {
		t.Fatalf("the transcript (%d lines) fits the window (%d): no test", m.tr.Len(), body)
	}
	h.press("g")
	if m.tr.Following() || m.tr.Top() != 0 {
		t.Fatalf("g: top %d follow %v", m.tr.Top(), m.tr.Following())
	}
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "scrolled") {
		t.Errorf("rule after g on a settled action: %q", r)
	}
	h.press("G")
	if !m.tr.Following() || m.tr.Top() != bottom {
		t.Fatalf("G: top %d, want the bottom %d (follow %v)", m.tr.Top(), bottom, m.tr.Following())
	}
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "── end") {
		t.Errorf("rule at the end of a settled action: %q", r)
	}
	h.press("g")
	for i := 0; i < bottom; i++ {
		h.press("j")
	}
	if !m.tr.Following() || m.tr.Top() != bottom {
		t.Fatalf("j back to the end: top %d follow %v, want %d and following", m.tr.Top(), m.tr.Following(), bottom)
	}
	h.press("g", "end")
	if !m.tr.Following() || m.tr.Top() != bottom {
		t.Fatalf("end: top %d follow %v", m.tr.Top(), m.tr.Following())
	}
}

// Q in the raw view or the log closes it (ctrl+c still
// detaches); once settled the ? overlay no longer says "q detaches".
func TestQClosesPanelsAndSettledHelp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	for _, open := range []string{"r", "l"} {
		h.press(open)
		if !h.m.panel() {
			t.Fatalf("%s did not open its panel", open)
		}
		_, cmd := h.m.Update(keyMsg("q"))
		if isQuit(cmd) || h.m.panel() {
			t.Fatalf("q in the %s panel: quit %v, panel still open %v", open, isQuit(cmd), h.m.panel())
		}
	}
	h.press("?")
	if !strings.Contains(h.screen(), "q detaches (the action keeps running); resume with:") {
		t.Errorf("live ? overlay lacks the resume line:\n%s", h.screen())
	}
	h.press("?")
	h2 := newHarness(t, 100, 30)
	h2.feed(chatToolsDone(h2.tb, h2.f, "stop", false, result(h2.tb, "completed", "chat_stream", "", true, false))...)
	h2.press("?")
	if scr := h2.screen(); strings.Contains(scr, "detach") || strings.Contains(scr, "resume with") {
		t.Errorf("settled ? overlay still offers a detach:\n%s", scr)
	}
}

// A --replay runs its header and tool timers on the
// recording's time, not on the time since the recording was made.
func TestReplayTimesAreRecordingTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, func(o *Options) { o.Replay = true })
	h.clock.t = t0.Add(26 * time.Hour) // replayed a day later
	for _, m := range chatToolsLive(h.f) {
		h.m.Update(m)
	}
	if e := h.m.elapsed(); e <= 0 || e > time.Minute {
		t.Errorf("replay elapsed %v, want the recording's few seconds", e)
	}
	scr := h.screen()
	if strings.Contains(scr, "26h") || strings.Contains(scr, "1d") {
		t.Errorf("wall-clock time since the recording shows:\n%s", scr)
	}
	if !strings.Contains(scr, "1.1s") { // the terminal tool, as recorded
		t.Errorf("recorded tool duration missing:\n%s", scr)
	}
}

// The start line is erased (one empty frame) before the alt screen, so it
// is not left glued to the closing lines.
func TestStartLineErasedBeforeFullScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	if v := h.m.View(); v.AltScreen || v.Content == "" {
		t.Fatal("no start line")
	}
	_, cmd := h.m.Update(status("streaming", false))
	if cmd == nil {
		t.Fatal("no command to draw the frame after the erasing one")
	}
	if v := h.m.View(); v.AltScreen || v.Content != "" {
		t.Fatalf("first frame after attaching: alt %v %q, want the empty inline frame", v.AltScreen, v.Content)
	}
	if v := h.m.View(); !v.AltScreen {
		t.Fatal("then the full screen")
	}
}

// The header keeps the action ID at 40 columns.
func TestHeaderKeepsTheActionIDWhenNarrow(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 40, 12)
	h.feed(chatToolsLive(h.f)...)
	head := strings.SplitN(h.screen(), "\n", 2)[0]
	if !strings.Contains(head, "2Z4A") || !strings.Contains(head, "act_") {
		t.Errorf("header at 40 columns: %q", head)
	}
}

// Also expected by operators: a "retry now" key while reconnecting. It ends
// the backend's wait (stream.WithRetryNow) and says so.
func TestRetryNowWakesTheBackend(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	h.feed(stream.ReconnectingMsg{Attempt: 3, Wait: 8 * time.Second, Cause: "connection refused"})
	if !strings.Contains(h.screen(), "ctrl+r retry now") {
		t.Errorf("no retry-now hint while reconnecting:\n%s", h.screen())
	}
	wake := h.m.run.wake
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+r sent nothing")
	}
	cmd()
	select {
	case <-wake:
	default:
		t.Fatal("the backend's wait was not woken")
	}
	if !strings.Contains(h.m.notice, "retrying now") || !strings.Contains(h.screen(), "next try now") {
		t.Errorf("notice %q\n%s", h.m.notice, h.screen())
	}
}

// A synchronous action's record is written when it settles: its started_at
// equals its completed_at. The elapsed time is then the watched span, not 0.
func TestElapsedOfASyncRecordWrittenAtSettle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	end := t0.Add(6 * time.Second)
	h.at(6 * time.Second)
	st := status(model.StateCompleted, true)
	st.Status.StartedAt = end.Format(time.RFC3339Nano)
	st.Status.CompletedAt = end.Format(time.RFC3339Nano)
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
	h.feed(st)
	if e := h.m.elapsed(); e < 5*time.Second {
		t.Errorf("elapsed %v, want the ~6s watched", e)
	}
}

// Also expected by operators: a timestamps toggle (T) and a wrap toggle (w).
func TestTimestampsAndWrapToggles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 60, 30)
	h.feed(chatToolsLive(h.f)...)
	stamp := t0.Add(400 * time.Millisecond).Local().Format("15:04:05") // the role chunk
	if strings.Contains(h.screen(), "· "+stamp) {
		t.Fatal("timestamps shown before T")
	}
	h.press("T")
	scr := h.screen()
	if !strings.Contains(scr, "● assistant · streaming… · "+stamp) {
		t.Errorf("T: no time on the message heading (%s):\n%s", stamp, scr)
	}
	if !strings.Contains(scr, "⟶ 💻 terminal ls -la · ✓ completed 1.1s · ") {
		t.Errorf("T: no time on the inline tool:\n%s", scr)
	}
	h.press("T")
	h = newHarness(t, 32, 30)
	h.feed(chatToolsLive(h.f)...)
	wrapped := h.m.tr.Len()
	h.press("w")
	if h.m.tr.Len() >= wrapped || !strings.Contains(h.screen(), "…") {
		t.Errorf("w: %d lines (wrapped %d), want fewer, cut with …:\n%s", h.m.tr.Len(), wrapped, h.screen())
	}
	h.press("w")
	if h.m.tr.Len() != wrapped {
		t.Errorf("w again: %d lines, want %d", h.m.tr.Len(), wrapped)
	}
}

// Search starts from the view, not from the top.
func TestSearchStartsFromTheView(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	f := h.f
	text := "needle at the top\n\n" + longText(30) + "\n\nneedle further down\n\n" + longText(30)
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()), f.batch(f.deltas(text)...))
	h.press("g")
	for i := 0; i < 40; i++ {
		h.press("j")
	}
	top := h.m.tr.Top()
	h.typeQuery("needle").press("enter")
	if cur := h.m.currentMatch(); cur != 1 {
		t.Fatalf("current match %d after searching from line %d, want 1 (the one below the view's top)", cur, top)
	}
}

// At 40x12 the ? overlay is longer than the screen: it
// scrolls, and says so.
func TestHelpOverlayScrollsWhenSmall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 40, 12)
	h.feed(chatToolsLive(h.f)...)
	h.press("?")
	scr := h.screen()
	if !strings.Contains(scr, "↑↓ scroll · ? closes") || strings.Contains(scr, "detach (keeps running)") {
		t.Fatalf("small ? overlay:\n%s", scr)
	}
	top := h.m.tr.Top()
	h.press("pgdown", "pgdown", "pgdown", "pgdown")
	scr = h.screen()
	if !strings.Contains(scr, "detach (keeps running)") || h.m.tr.Top() != top {
		t.Errorf("the overlay did not scroll to its end (or the transcript moved):\n%s", scr)
	}
	if n := len(strings.Split(scr, "\n")); n > 12 {
		t.Errorf("%d rows on a 12-row screen", n)
	}
	h.press("?", "?")
	if !strings.Contains(h.screen(), "scroll up") {
		t.Error("reopening starts at the top")
	}
}

// The unknown-ID wait (aipd has no record, --appear-timeout) that ends on
// its error ends the program of one action by itself, as plain ends: no
// full screen that waits for q; Run returns the error (main prints its
// line, exit 1). The real program, with no key pressed.
func TestUnknownWaitEndsWithoutAKey(t *testing.T) {
	t.Parallel()
	unknown := &stream.Error{Op: "follow", Code: "action.unknown", Message: "no event or chunk of " + testAction + " within 3s"}
	st := status(model.StateUnknown, false)
	fb := newFake(steps(time.Millisecond, st, stream.ModeMsg{}, stream.NoRecordMsg{ActionID: testAction, AppearTimeout: 3 * time.Second},
		stream.ErrorMsg{Err: unknown}, stream.DoneMsg{}), false)
	done, out, _ := startRun(t, fb)
	select {
	case err := <-done:
		if !errors.Is(err, unknown) {
			t.Fatalf("Run returned %v, want the unknown-ID error", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the program still waits for a key after the unknown-ID wait ended:\n%q", out.String())
	}
}

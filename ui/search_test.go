package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

func chatVerified(h *harness) *harness {
	h.feed(chatToolsDone(h.tb, h.f, "stop", false, result(h.tb, model.ResultCompleted, model.OpChat, "", true, false))...)
	return h
}

func ruleOf(t *testing.T, screen string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "── following") || strings.HasPrefix(l, "── paused") ||
			strings.HasPrefix(l, "── end") || strings.HasPrefix(l, "── scrolled") {
			return l
		}
	}
	t.Fatalf("no rule line on the screen:\n%s", screen)
	return ""
}

func TestSearchCountsAndSteps(t *testing.T) {
	t.Parallel()
	h := chatVerified(newHarness(t, 100, 30))
	m := h.m
	h.typeQuery("ReAd")
	if m.mode != ModeSearch {
		t.Fatal("/ did not open the query line")
	}
	if got := m.matchTotal(); got != 7 {
		// "read", "README", "README.md" in the text, read_file README.md
		// on the inline tool row, and the tools pane's name and label.
		t.Fatalf("%d matches while typing, want 7 (case-insensitive)", got)
	}
	if !strings.Contains(h.screen(), "/ReAd  7 matches") {
		t.Errorf("the query line does not show the live count:\n%s", h.screen())
	}
	h.press("enter")
	if m.mode != ModeNormal {
		t.Fatal("enter did not close the query line")
	}
	for i, want := range []string{"1/7", "2/7", "3/7", "4/7", "5/7", "6/7", "7/7", "1/7"} {
		if i > 0 {
			h.press("n")
		}
		if r := ruleOf(t, h.screen()); !strings.Contains(r, `search “ReAd” `+want) {
			t.Errorf("after %d× n the rule line is %q, want %s", i, r, want)
		}
	}
	h.press("N")
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "7/7") {
		t.Errorf("N from the first did not wrap to the last: %q", r)
	}
	// The shifted key as a terminal sends it.
	m.Update(tea.KeyPressMsg{Code: 'n', Mod: tea.ModShift, Text: "N"})
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "6/7") {
		t.Errorf("shift+n did not go back: %q", r)
	}
	if c := m.currentMatch(); c != 5 || m.search.curTool != "call_read_file_2" || m.search.curToolOrd != 0 {
		t.Errorf("current %d (tool %q), want the sixth (the pane's read_file name)", c, m.search.curTool)
	}
	if got := markHighlights(h.m.Render()); !strings.Contains(got, "⟪read⟫_file") {
		t.Errorf("the tool's name is not highlighted:\n%s", got)
	}
	h.press("N", "N") // the fourth: the inline tool row, in the transcript
	if c := m.currentMatch(); c != 3 || m.search.curTool != "" {
		t.Errorf("current %d (tool %q), want the fourth (the inline tool row)", c, m.search.curTool)
	}
	h.press("esc")
	if !m.tr.Query().Empty() || strings.Contains(h.screen(), "search “") {
		t.Error("esc did not clear the search")
	}
	if strings.Contains(h.screen(), "n/N") {
		t.Error("n/N still offered once the search is cleared")
	}
	before := h.screen()
	h.press("n", "N") // nothing to move between: no effect, no crash
	if h.screen() != before {
		t.Error("n/N changed the screen without a search")
	}
}

func TestSearchEscWhileTypingRestores(t *testing.T) {
	t.Parallel()
	h := chatVerified(newHarness(t, 100, 30))
	h.typeQuery("tree").press("enter")
	if h.m.tr.Query().String() != "tree" {
		t.Fatal("search not set")
	}
	h.typeQuery("zzz")
	if h.m.matchTotal() != 0 {
		t.Fatal("the typed query is not searched as it is typed")
	}
	h.press("esc")
	if q := h.m.tr.Query().String(); q != "tree" || h.m.mode != ModeNormal {
		t.Errorf("esc while typing left query %q (mode %v), want the previous search back", q, h.m.mode)
	}
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "1/1") {
		t.Errorf("restored search lost its position: %q", r)
	}
	// Editing keys and an empty query.
	h.press("/", "a", "b", "c")
	h.m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if v := h.m.search.input.Value(); v != "ab" {
		t.Errorf("backspace: %q", v)
	}
	h.m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	h.press("enter")
	if !h.m.tr.Query().Empty() {
		t.Error("enter on an empty query should clear the search")
	}
}

func TestSearchKeysTypeIntoQuery(t *testing.T) {
	t.Parallel()
	// While the query line is open every printable key is text: q does
	// not quit, c does not cancel, n does not step.
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	h.press("/")
	for _, k := range []string{"q", "c", "n", "G", "e", "/", "?"} {
		h.m.Update(keyMsg(k))
	}
	if v := h.m.search.input.Value(); v != "qcnGe/?" || h.m.mode != ModeSearch {
		t.Errorf("query %q, mode %v", v, h.m.mode)
	}
	if h.m.cancelled {
		t.Error("c in the query line started a cancel")
	}
	// A pasted control sequence is searched (and shown) as its placeholder.
	h.m.Update(tea.PasteMsg{Content: "x\x1b[2Jy\nz"})
	if v := h.m.search.input.Value(); strings.ContainsAny(v, "\x1b\n") || !strings.Contains(v, "␛[2Jy z") {
		t.Errorf("pasted query %q", v)
	}
	if raw := h.m.Render(); strings.Contains(raw, "\x1b[2J") {
		t.Error("the pasted sequence reached the screen")
	}
	if v := h.m.View(); v.Cursor == nil || v.Cursor.Y != 29 {
		t.Errorf("the terminal cursor is not in the query line: %+v", v.Cursor)
	}
	h.press("esc")
	if v := h.m.View(); v.Cursor != nil {
		t.Error("the cursor stays shown after the query line closed")
	}
}

func TestSearchScrollsPausesAndResumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 80, 24)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()), f.batch(f.deltas(longText(30))...))
	m := h.m
	if !m.tr.Following() {
		t.Fatal("not following")
	}
	h.typeQuery("paragraph 2.").press("enter") // paragraph 2. (not 20.–29.)
	if m.tr.Following() {
		t.Fatal("jumping up to a match did not pause follow")
	}
	_, line, _ := m.tr.Match(0)
	if body := m.layout().body; line < m.tr.Top() || line >= m.tr.Top()+body {
		t.Fatalf("match line %d not in the window %d+%d", line, m.tr.Top(), body)
	}
	if !strings.Contains(h.screen(), "Paragraph 2.") {
		t.Errorf("the match is not on the screen:\n%s", h.screen())
	}
	// Text arriving while paused does not move the window.
	top := m.tr.Top()
	h.feed(f.batch(f.deltas("\n\nParagraph 2. again, at the end")...))
	if m.tr.Top() != top {
		t.Errorf("window moved from %d to %d", top, m.tr.Top())
	}
	if got := m.matchTotal(); got != 2 {
		t.Errorf("%d matches after more text, want 2 (the count follows the stream)", got)
	}
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "1/2") {
		t.Errorf("rule %q, want 1/2", r)
	}
	h.press("G")
	if !m.tr.Following() {
		t.Fatal("G did not resume follow")
	}
	if r := ruleOf(t, h.screen()); !strings.Contains(r, "following") || !strings.Contains(r, "1/2") {
		t.Errorf("the search should survive G: %q", r)
	}
	// A match already on the screen does not pause follow.
	h.press("n")
	if !m.tr.Following() {
		t.Error("moving to a visible match paused follow")
	}
}

func TestSearchRevealsCollapsedOutput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 40)
	r := h.f.responses()
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("line %d of the log", i))
	}
	lines[22] = "needle in the log"
	out := mustJSON(t, lines) // pretty-printed one string a line
	msg := "msg_1"
	h.feed(status("streaming", false), stream.ModeMsg{}, stream.ConnectedMsg{Attempt: 1},
		h.f.batch(r.created(), r.msgAdded(0, msg), r.text(0, msg, "Reading the log.")),
		h.f.batch(append([]model.StreamChunk{r.call(1, "terminal", "call_t", `{"command": "cat log"}`, "completed", true)},
			r.output(2, "call_t", out)...)...),
		h.f.batch(r.textDone(0, msg, "Reading the log."), r.msgDone(0, msg, "Reading the log."), r.completed()),
		stream.TerminalMsg{Cursor: cursorA}, result(t, model.ResultCompleted, model.OpResponses, "", true, false), stream.DoneMsg{})
	m := h.m
	oi := -1
	for i := 0; i < m.tr.Blocks(); i++ {
		if it := m.tr.Item(i); it != nil && it.Kind == model.ItemFunctionCall {
			oi = i
		}
	}
	if c, _ := m.tr.Collapsed(oi); !c {
		t.Fatalf("the long output should start collapsed (block %d):\n%s", oi, h.screen())
	}
	h.typeQuery("needle")
	if n := m.matchTotal(); n != 1 {
		t.Fatalf("%d matches, want the one hidden in the collapsed output", n)
	}
	h.press("enter")
	if c, _ := m.tr.Collapsed(oi); c {
		t.Error("going to the match did not expand the output")
	}
	if !strings.Contains(h.screen(), "needle in the log") {
		t.Errorf("the match is not on the screen:\n%s", h.screen())
	}
	if got := markHighlights(m.Render()); !strings.Contains(got, "⟪needle⟫ in the log") {
		t.Errorf("the current match is not highlighted:\n%s", got)
	}
	// Labels are found like every line on the screen, each on its own.
	h.press("esc")
	for _, label := range []string{"arguments", "output"} {
		h.typeQuery(label).press("enter")
		if n := m.matchTotal(); n != 1 {
			t.Errorf("“%s” found %d, want its label", label, n)
		}
		h.press("esc")
	}
}

func TestSearchPhraseAcrossWrap(t *testing.T) {
	t.Parallel()
	// A phrase wrapped over two lines is one match, highlighted on both.
	h := newHarness(t, 40, 20)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()),
		f.batch(f.deltas("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj")...))
	h.typeQuery("gggg hhhh").press("enter")
	if n := h.m.matchTotal(); n != 1 {
		t.Fatalf("%d matches, want 1", n)
	}
	got := markHighlights(h.m.Render())
	if !strings.Contains(got, "⟪gggg⟫") || !strings.Contains(got, "⟪hhhh⟫") {
		t.Errorf("the wrapped match is not highlighted on both lines:\n%s", got)
	}
}

func TestSearchRedactedFindsNoSecret(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, func(o *Options) { o.Redact = true })
	h.feed(responsesTools(t, h.f, true)...)
	for _, secret := range []string{"notes", "café", "test", "todo.txt", "go test"} {
		h.typeQuery(secret).press("enter")
		if n := h.m.matchTotal(); n != 0 {
			t.Errorf("under --redact %q was found %d times", secret, n)
		}
		if !strings.Contains(h.screen(), "no match for “"+secret+"”") {
			t.Errorf("no “no match” for %q:\n%s", secret, h.screen())
		}
		h.press("esc")
	}
}

func TestSearchCacheDiscipline(t *testing.T) {
	t.Parallel()
	// Many items; only one holds the query. Setting the query renders no
	// item again, and drawing highlights only the matching lines shown.
	h := newHarness(t, 100, 30)
	r := h.f.responses()
	chunks := []model.StreamChunk{r.created()}
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("msg_%02d", i)
		text := fmt.Sprintf("Message %d says nothing much.", i)
		if i == 3 {
			text = "Message 3 holds the needle."
		}
		chunks = append(chunks, r.msgAdded(i, id), r.text(i, id, text), r.textDone(i, id, text), r.msgDone(i, id, text))
	}
	chunks = append(chunks, r.completed())
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, h.f.batch(chunks...))
	m := h.m
	renders := m.tr.Renders()
	h.typeQuery("needle").press("enter")
	m.Render()
	if d := m.tr.Renders() - renders; d != 0 {
		t.Errorf("searching re-rendered %d items; highlights must not re-render", d)
	}
	if n := m.tr.Highlighted(); n != 1 {
		t.Errorf("%d lines restyled, want 1 (the match, in view)", n)
	}
	h.press("G")
	for range 5 {
		m.Render()
	}
	if n := m.tr.Highlighted(); n != 1 {
		t.Errorf("redrawing restyled again: %d lines", n)
	}
	h.press("esc")
	if m.tr.MatchCount() != 0 {
		t.Error("clearing kept matches")
	}
}

func TestSearchStreamingCount(t *testing.T) {
	t.Parallel()
	// The count follows text as it streams in; a match being typed into
	// the growing message is found once complete.
	h := newHarness(t, 100, 30)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()), f.batch(f.delta("one ne")))
	h.typeQuery("needle").press("enter")
	if h.m.matchTotal() != 0 {
		t.Fatal("matched a partial word")
	}
	h.feed(f.after(time.Second).batch(f.delta("edle two needle")))
	if n := h.m.matchTotal(); n != 2 {
		t.Errorf("%d matches after the stream grew, want 2", n)
	}
}

func TestSearchScrollsToolsPane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 24)
	f := h.f
	h.feed(status("streaming", false), stream.ConnectedMsg{Attempt: 1}, f.batch(f.role()), f.batch(f.delta("Working.")))
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		h.feed(f.batch(f.toolRunning("terminal", "💻", fmt.Sprintf("step-%02d", i), id)), f.batch(f.toolCompleted("terminal", id)))
	}
	if strings.Contains(paneOf(h.screen()), "step-01") {
		t.Fatal("the first tools should be out of the pane")
	}
	h.press("t")                               // hidden: the match shows it again
	h.typeQuery("step-01").press("enter", "n") // the inline row, then the pane's
	s := paneOf(h.screen())
	if !strings.Contains(s, "step-01") || !strings.Contains(s, "shown") {
		t.Errorf("the pane does not show the matching tool:\n%s", s)
	}
	if got := markHighlights(h.m.Render()); !strings.Contains(got, "⟪step-01⟫") {
		t.Errorf("label not highlighted:\n%s", got)
	}
	h.press("esc")
	if strings.Contains(paneOf(h.screen()), "step-01") {
		t.Error("clearing the search left the pane scrolled")
	}
}

// paneOf is the tools pane of a screen: its title and rows (the transcript
// shows Chat tools inline too).
func paneOf(screen string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(screen, "\n") {
		switch {
		case strings.HasPrefix(l, "── tools"):
			in = true
		case in && strings.HasPrefix(l, "──"):
			in = false
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Search covers every line on the screen: a tool's name is found on its
// inline row and in the tools pane, the name highlighted in both.
func TestSearchFindsToolNames(t *testing.T) {
	t.Parallel()
	h := chatVerified(newHarness(t, 100, 30))
	for _, name := range []string{"terminal", "read_file"} {
		h.typeQuery(name).press("enter")
		if n := h.m.matchTotal(); n != 2 {
			t.Errorf("“%s” found %d, want its inline row and its pane row", name, n)
		}
		if got := markHighlights(h.m.Render()); strings.Count(got, "⟪"+name+"⟫")+strings.Count(got, "⟦"+name+"⟧") != 2 {
			t.Errorf("“%s” is not highlighted on both rows:\n%s", name, got)
		}
		h.press("esc")
	}
}

package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// The open log draws only the timeline entries added since it last drew:
// the rows of the others are kept as they were (it drew every entry on
// every sync), and the rows are those of a log drawn from scratch, at
// each width.
func TestLogPanelDrawsOnlyNewEntries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30)
	h.feed(chatToolsLive(h.f)...)
	h.press("l")
	scratch := func() []string {
		var r logRows
		r.update(h.m.action.Timeline(), max(h.m.width, 10), h.m.opts.Redact, h.m.st.Dim.Render)
		return r.lines
	}
	if !slices.Equal(h.m.log.lines, scratch()) {
		t.Fatalf("rows\n%q\nwant\n%q", h.m.log.lines, scratch())
	}
	first := unsafe.StringData(h.m.log.lines[0])
	drawn := h.m.log.drawn
	for i := range 5 {
		h.feed(stream.ReconnectingMsg{Attempt: i + 2, Wait: time.Second, Cause: fmt.Sprintf("read: cause %d", i)},
			stream.ConnectedMsg{Attempt: i + 2, Cursor: cursorA, Resumed: true})
		h.feed(h.f.batch(h.f.delta("more ")))
	}
	if h.m.log.drawn <= drawn || unsafe.StringData(h.m.log.lines[0]) != first {
		t.Fatalf("drawn %d (was %d); the first row drawn again: %v", h.m.log.drawn, drawn, unsafe.StringData(h.m.log.lines[0]) != first)
	}
	if !slices.Equal(h.m.log.lines, scratch()) {
		t.Fatalf("rows after growing\n%q\nwant\n%q", h.m.log.lines, scratch())
	}
	if !strings.Contains(h.screen(), "cause 4") {
		t.Fatalf("the newest entry is not on screen:\n%s", h.screen())
	}
	h.m.Update(tea.WindowSizeMsg{Width: 40, Height: 30})
	if !slices.Equal(h.m.log.lines, scratch()) || h.m.log.width != 40 {
		t.Fatalf("rows at width 40\n%q\nwant\n%q", h.m.log.lines, scratch())
	}
}

// Before the timeline has an entry the log says so, and the first entry
// replaces that line.
func TestLogPanelEmptyThenFirstEntry(t *testing.T) {
	t.Parallel()
	var r logRows
	dim := func(s ...string) string { return strings.Join(s, "") }
	if !r.update(nil, 80, false, dim) || !slices.Equal(r.lines, []string{"nothing yet"}) {
		t.Fatalf("empty log %q", r.lines)
	}
	if r.update(nil, 80, false, dim) {
		t.Fatal("an empty log drawn again")
	}
	h := newHarness(t, 80, 20)
	h.feed(stream.ConnectedMsg{Attempt: 1})
	tl := h.m.action.Timeline()
	if len(tl) == 0 || !r.update(tl, 80, false, dim) || len(r.lines) != len(tl) || strings.Contains(r.lines[0], "nothing yet") {
		t.Fatalf("rows %q for %d entries", r.lines, len(tl))
	}
	if r.update(tl, 80, false, dim) {
		t.Fatal("the rows changed with no new entry: the panel would be given them again")
	}
}

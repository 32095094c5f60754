package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
)

// Single is the screen of `aipwatch ID`: one live view (Live) on the whole
// terminal, which a Shell runs. It hosts the view as a component (gives it
// the terminal's size, its keys and its own messages, reads Detached) and
// owns what only a program of one action does: until aipd answers, one
// inline line instead of the full screen, and an error then ends it at
// once so that the caller prints it on stderr with a hint (no dead full
// screen at start-up).
type Single struct {
	*Live

	startFailed bool
	// inlineShown: the start line was drawn; inlineCleared: the empty
	// frame that erases it before the alt screen was drawn.
	inlineShown, inlineCleared bool

	viewHook func(string) // tests: sees every frame's content
}

// NewSingle is the screen of the live view of opts.ActionID; ctx bounds
// its backend. Close it once its program is over.
func NewSingle(ctx context.Context, opts Options) *Single {
	return &Single{Live: newLive(ctx, opts)}
}

// redrawMsg only asks for a frame (after the one that erased the start
// line).
type redrawMsg struct{}

// Update gives the view every message but the size (SetSize, the Live's).
func (m *Single) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if _, ok := msg.(redrawMsg); !ok {
		_, cmd = m.Live.Update(msg)
	}
	if m.Failed() && !m.startFailed && (!m.Attached() || m.nothingArrived()) {
		// aipd never answered, or never knew the action and nothing of it
		// came (the unknown-ID wait of --appear-timeout ended): no full
		// screen to read, the error goes to stderr once the program is
		// gone, as plain prints it, with no key to press.
		m.startFailed = true
		return cmd
	}
	if m.Attached() && m.inlineShown && !m.inlineCleared {
		cmd = tea.Batch(cmd, tea.Tick(20*time.Millisecond, func(time.Time) tea.Msg { return redrawMsg{} }))
	}
	return cmd
}

// Done: the operator detached, or the start failed.
func (m *Single) Done() bool { return m.Detached() || m.startFailed }

// Panes is the live view, as a split view's panes are.
func (m *Single) Panes() []*Live { return []*Live{m.Live} }

// nothingArrived: aipd has no record of the action (its status read
// unknown, or none was read) and no chunk or event of it came.
func (m *Single) nothingArrived() bool {
	a := m.Action()
	return (a.Status == nil || a.Status.State == model.StateUnknown) && a.ChunkCount() == 0 && len(a.Events()) == 0
}

// Frame is the start line until aipd answers, then the live view on the
// alt screen.
func (m *Single) Frame(width, height int) Frame {
	if !m.Attached() || m.startFailed {
		return m.startFrame(width)
	}
	if m.inlineShown && !m.inlineCleared {
		// The start line was drawn on the normal screen: erase it with one
		// empty frame before the alt screen, or it would still be there,
		// glued to the closing lines, once the alt screen is gone.
		m.inlineCleared = true
		return Frame{Inline: true}
	}
	content := m.View(width, height)
	if m.viewHook != nil {
		m.viewHook(content)
	}
	// p gives the terminal's selection back (Mouse); the cursor is the
	// search query line's.
	return Frame{Content: content, Mouse: m.Mouse(), Title: m.Title(), Cursor: m.Cursor(content)}
}

// startFrame is the screen until aipd answers: one inline line (no alt
// screen, no mouse capture) that says what aipwatch is waiting for, so a
// start-up failure leaves no dead full screen behind: the program quits
// and the caller prints the error with a hint on stderr.
func (m *Single) startFrame(width int) Frame {
	if m.startFailed || width <= 0 {
		return Frame{Inline: true}
	}
	m.inlineShown = true
	return Frame{Content: m.StartLine(width), Inline: true}
}

// StartLine is the one line shown while attaching, at width: the retry
// key stays visible on a narrow terminal: its help gets shorter, then the
// cause is cut (the error line on stderr repeats it if the start fails).
func (m *Live) StartLine(width int) string {
	s, keys, short := m.startLine()
	w := render.Width(s)
	switch {
	case w+render.Width(keys) <= width:
		return s + keys
	case w+render.Width(short) <= width:
		return s + short
	}
	if room := width - render.Width(short); room >= 48 {
		return render.Truncate(s, room, "…") + short
	}
	return render.Truncate(s+short, width, "…")
}

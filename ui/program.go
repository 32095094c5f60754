package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
)

// Model is the program of `aipwatch ID`: one live view (Live) on the whole
// terminal. It hosts the view as a component (gives it the terminal's
// size, its keys and its own messages, reads Detached) and owns what only
// a program of one action does: until aipd answers, one inline line
// instead of the full screen, and an error then quits at once so that
// main prints it on stderr with a hint (no dead full screen at start-up).
type Model struct {
	*Live

	termW, termH int
	startFailed  bool
	// inlineShown: the start line was drawn; inlineCleared: the empty
	// frame that erases it before the alt screen was drawn.
	inlineShown, inlineCleared bool

	viewHook func(string) // tests: sees every frame's content
}

// newModel builds the program's model; ctx bounds the backend.
func newModel(ctx context.Context, opts Options) *Model {
	return &Model{Live: newLive(ctx, opts)}
}

// redrawMsg only asks for a frame (after the one that erased the start
// line).
type redrawMsg struct{}

// Update gives the view the terminal's size and every other message; a
// detach ends the program.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.termW, m.termH = msg.Width, msg.Height
		cmd = m.SetSize(msg.Width, msg.Height)
	case redrawMsg:
	default:
		_, cmd = m.Live.Update(msg)
	}
	if m.Detached() {
		return m, tea.Quit
	}
	if m.Failed() && !m.startFailed && (!m.Attached() || m.nothingArrived()) {
		// aipd never answered, or never knew the action and nothing of it
		// came (the unknown-ID wait of --appear-timeout ended): no full
		// screen to read, the error goes to stderr once the program is
		// gone, as plain prints it, with no key to press.
		m.startFailed = true
		return m, tea.Quit
	}
	if m.Attached() && m.inlineShown && !m.inlineCleared {
		cmd = tea.Batch(cmd, tea.Tick(20*time.Millisecond, func(time.Time) tea.Msg { return redrawMsg{} }))
	}
	return m, cmd
}

// nothingArrived: aipd has no record of the action (its status read
// unknown, or none was read) and no chunk or event of it came.
func (m *Model) nothingArrived() bool {
	a := m.Action()
	return (a.Status == nil || a.Status.State == model.StateUnknown) && a.ChunkCount() == 0 && len(a.Events()) == 0
}

// View is the start line until aipd answers, then the live view on the
// alt screen.
func (m *Model) View() tea.View {
	if !m.Attached() || m.startFailed {
		return m.startView()
	}
	if m.inlineShown && !m.inlineCleared {
		// The start line was drawn on the normal screen: erase it with one
		// empty frame before the alt screen, or it would still be there,
		// glued to the closing lines, once the alt screen is gone.
		m.inlineCleared = true
		return tea.NewView("")
	}
	content := m.Live.View(m.termW, m.termH)
	if m.viewHook != nil {
		m.viewHook(content)
	}
	v := tea.NewView(content)
	v.AltScreen = true
	if m.Mouse() {
		v.MouseMode = tea.MouseModeCellMotion // wheel scrolling; p gives the terminal's selection back
	}
	v.WindowTitle = m.Title()
	v.Cursor = m.Cursor(content) // the search query line's
	return v
}

// startView is the screen until aipd answers: one inline line (no alt
// screen, no mouse capture) that says what aipwatch is waiting for, so a
// start-up failure leaves no dead full screen behind: the program quits
// and main prints the error with a hint on stderr.
func (m *Model) startView() tea.View {
	if m.startFailed || m.termW <= 0 {
		return tea.NewView("")
	}
	m.inlineShown = true
	return tea.NewView(m.StartLine(m.termW))
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

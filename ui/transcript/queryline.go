package transcript

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"aipwatch/render"
)

// QueryLine is the one-line editor of the search query: bubbles'
// textinput edits it (backspace, delete, ←/→, word moves, home/ctrl+a,
// end/ctrl+e, ctrl+u, ctrl+k, ctrl+w, bracketed paste). What it is given
// is sanitised first, as it will be shown (a pasted control is searched
// as its placeholder). The cursor is the terminal's own (View places it;
// no virtual cursor, so nothing blinks through Update and an idle screen
// costs nothing), and View draws the line itself so that it scrolls to
// keep the cursor in view without padding.
type QueryLine struct {
	in          textinput.Model
	prompt      string
	promptStyle lipgloss.Style
}

// NewQueryLine returns an empty query line of at most limit runes.
func NewQueryLine(st *render.Styles, limit int) QueryLine {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = limit
	in.SetVirtualCursor(false)
	// ctrl+v would read the clipboard; bracketed paste is the terminal's.
	in.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	in.Focus()
	return QueryLine{in: in, prompt: "/", promptStyle: st.HelpKey}
}

// Value is the query as typed.
func (q *QueryLine) Value() string { return q.in.Value() }

// Reset empties the line.
func (q *QueryLine) Reset() { q.in.Reset() }

// oneLine is inserted text as the query shows it: one line, sanitised.
var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// Update applies a key press or a paste; it reports whether the query
// changed.
func (q *QueryLine) Update(msg tea.Msg) bool {
	switch m := msg.(type) {
	case tea.PasteMsg:
		m.Content = render.Line(oneLine.Replace(m.Content))
		msg = m
	case tea.KeyPressMsg:
		if m.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			m.Text = "" // a binding or nothing, never text
		}
		m.Text = render.Line(oneLine.Replace(m.Text))
		msg = m
	default:
		return false
	}
	before, pos := q.in.Value(), q.in.Position()
	q.in, _ = q.in.Update(msg) // no virtual cursor: no blink command
	return q.in.Value() != before || q.in.Position() != pos
}

// View draws the prompt and the query in at most w cells, scrolled so the
// cursor stays in view, and returns the cursor's column.
func (q *QueryLine) View(w int) (string, int) {
	value := []rune(q.in.Value())
	pos := min(q.in.Position(), len(value))
	before, after := string(value[:pos]), string(value[pos:])
	room := max(w-render.Width(q.prompt), 2)
	// Keep the cursor in view (one cell after before): drop runes on the
	// left while too wide.
	for render.Width(before)+1 > room && before != "" {
		_, n := utf8.DecodeRuneInString(before)
		before = before[n:]
	}
	after = render.Truncate(after, max(room-render.Width(before), 0), "")
	pw := render.Width(q.prompt)
	return q.promptStyle.Render(q.prompt) + before + after, pw + render.Width(before)
}

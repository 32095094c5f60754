package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"aipwatch/render"
)

// queryLine is the one-line editor of the search query. (bubbles'
// textinput would do, but it imports a clipboard module this build does
// not carry.) It edits runes with the usual keys — backspace, delete,
// ←/→, home/ctrl+a, end/ctrl+e, ctrl+u, ctrl+k, ctrl+w — and takes
// bracketed paste. The cursor is the terminal's own (View places it), so
// nothing blinks through Update and an idle screen costs nothing.
type queryLine struct {
	value  []rune
	pos    int
	prompt string
	limit  int

	promptStyle lipgloss.Style
}

func newQueryLine(st *render.Styles) queryLine {
	return queryLine{prompt: "/", limit: maxQuery, promptStyle: st.HelpKey}
}

func (q *queryLine) Value() string { return string(q.value) }

func (q *queryLine) Reset() { q.value, q.pos = nil, 0 }

// insert adds text at the cursor: one line, sanitised as it will be shown
// (a pasted control is searched as its placeholder).
func (q *queryLine) insert(s string) {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	rs := []rune(render.Line(s))
	if room := q.limit - len(q.value); len(rs) > room {
		rs = rs[:max(room, 0)]
	}
	if len(rs) == 0 {
		return
	}
	v := make([]rune, 0, len(q.value)+len(rs))
	v = append(v, q.value[:q.pos]...)
	v = append(v, rs...)
	v = append(v, q.value[q.pos:]...)
	q.value, q.pos = v, q.pos+len(rs)
}

// Update applies a key press or a paste; it reports whether it used msg.
func (q *queryLine) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		q.insert(msg.Content)
		return true
	case tea.KeyPressMsg:
		switch msg.String() {
		case "backspace", "ctrl+h":
			if q.pos > 0 {
				q.value = append(q.value[:q.pos-1], q.value[q.pos:]...)
				q.pos--
			}
		case "delete", "ctrl+d":
			if q.pos < len(q.value) {
				q.value = append(q.value[:q.pos], q.value[q.pos+1:]...)
			}
		case "left", "ctrl+b":
			q.pos = max(q.pos-1, 0)
		case "right", "ctrl+f":
			q.pos = min(q.pos+1, len(q.value))
		case "home", "ctrl+a":
			q.pos = 0
		case "end", "ctrl+e":
			q.pos = len(q.value)
		case "ctrl+u":
			q.value, q.pos = append([]rune(nil), q.value[q.pos:]...), 0
		case "ctrl+k":
			q.value = q.value[:q.pos]
		case "ctrl+w", "alt+backspace":
			i := q.pos
			for i > 0 && unicode.IsSpace(q.value[i-1]) {
				i--
			}
			for i > 0 && !unicode.IsSpace(q.value[i-1]) {
				i--
			}
			q.value, q.pos = append(q.value[:i], q.value[q.pos:]...), i
		default:
			if msg.Text == "" || msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
				return false
			}
			q.insert(msg.Text)
		}
		return true
	}
	return false
}

// View draws the prompt and the query in at most w cells, scrolled so the
// cursor stays in view, and returns the cursor's column.
func (q *queryLine) View(w int) (string, int) {
	before, after := string(q.value[:q.pos]), string(q.value[q.pos:])
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

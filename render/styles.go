// Package render turns the model's state into terminal text: styles from
// the 16 ANSI colours, wrapping that can grow with a stream, Glamour
// markdown for finished messages, the transcript's per-item render cache
// and line index, tool rows and the small formatting helpers the status bar
// uses. It does no I/O and knows nothing of Bubble Tea; every untrusted
// string goes through package safe before it is drawn.
package render

import (
	"image/color"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
)

// Styles are the semantic styles of the whole screen. Colours are only the
// 16 ANSI colours, so the terminal's theme decides how they look; with
// colour off, only attributes remain (bold, faint, reverse), which a
// no-colour terminal still shows or safely ignores.
type Styles struct {
	Color bool

	Header    lipgloss.Style // the action line at the top
	HeaderDim lipgloss.Style
	Rule      lipgloss.Style // separators
	Focus     lipgloss.Style // the focus marker in the gutter
	Role      lipgloss.Style // "assistant" heading
	Reasoning lipgloss.Style // reasoning text, dimmed
	Dim       lipgloss.Style
	ToolName  lipgloss.Style
	Label     lipgloss.Style // "arguments", "output"
	Notice    lipgloss.Style
	Note      lipgloss.Style // model notes: facts worth seeing
	Anomaly   lipgloss.Style
	OK        lipgloss.Style
	Running   lipgloss.Style
	Warn      lipgloss.Style
	Error     lipgloss.Style
	Prompt    lipgloss.Style // the cancel confirmation
	BadgeBase lipgloss.Style // base of the verdict badge
	HelpKey   lipgloss.Style
	HelpDesc  lipgloss.Style
	HelpSep   lipgloss.Style

	// Search matches: plain SGR rather than Lip Gloss styles, which would
	// style an underlined run cell by cell and leave its spaces unreversed.
	Match    ansi.Style // a search match
	MatchCur ansi.Style // the current search match: also bold and underlined
}

// ansi16 is one of the 16 ANSI colours, written as SGR 30–37 / 90–97 so
// the terminal's palette decides it.
func ansi16(n int) color.Color { return ansi.BasicColor(n) } //nolint:gosec

// NewStyles returns the styles, with or without colour.
func NewStyles(useColor bool) *Styles {
	s := lipgloss.NewStyle
	st := &Styles{
		Color:     useColor,
		Header:    s().Bold(true),
		HeaderDim: s().Faint(true),
		Rule:      s().Faint(true),
		Focus:     s().Bold(true),
		Role:      s().Bold(true),
		Reasoning: s().Faint(true).Italic(true),
		Dim:       s().Faint(true),
		ToolName:  s().Bold(true),
		Label:     s().Faint(true),
		Notice:    s(),
		Note:      s().Bold(true),
		Anomaly:   s().Bold(true),
		OK:        s(),
		Running:   s(),
		Warn:      s().Bold(true),
		Error:     s().Bold(true),
		Prompt:    s().Bold(true).Reverse(true),
		BadgeBase: s().Bold(true).Reverse(true),
		HelpKey:   s().Bold(true),
		HelpDesc:  s().Faint(true),
		HelpSep:   s().Faint(true),
		Match:     ansi.NewStyle().Reverse(true),
		MatchCur:  ansi.NewStyle().Bold().Underline(true).Reverse(true),
	}
	if !useColor {
		return st
	}
	st.Focus = st.Focus.Foreground(ansi16(6))
	st.Role = st.Role.Foreground(ansi16(6))
	st.ToolName = st.ToolName.Foreground(ansi16(3))
	st.Notice = st.Notice.Foreground(ansi16(4))
	st.Note = st.Note.Foreground(ansi16(3))
	st.Anomaly = st.Anomaly.Foreground(ansi16(1))
	st.OK = st.OK.Foreground(ansi16(2))
	st.Running = st.Running.Foreground(ansi16(3))
	st.Warn = st.Warn.Foreground(ansi16(3))
	st.Error = st.Error.Foreground(ansi16(1))
	st.Prompt = s().Bold(true).Foreground(ansi16(0)).Background(ansi16(3))
	st.BadgeBase = s().Bold(true).Foreground(ansi16(0))
	st.HelpKey = st.HelpKey.Foreground(ansi16(6))
	st.Match = st.Match.ForegroundColor(ansi.BasicColor(3))       // reversed: a yellow block
	st.MatchCur = st.MatchCur.ForegroundColor(ansi.BasicColor(6)) // cyan, like the focus marker
	return st
}

// BadgeColor is the ANSI colour of a verdict or live word. The word itself
// is always shown: colour only repeats it.
func BadgeColor(word string) int {
	switch word {
	case model.VerdictVerified:
		return 2 // green
	case model.VerdictPartial, model.VerdictIncomplete, model.VerdictTruncated:
		return 3 // yellow
	case model.VerdictFailed, WordError:
		return 1 // red
	case model.VerdictCancelled:
		return 5 // magenta
	case model.VerdictPending, WordReview:
		return 4 // blue
	case WordReconnecting:
		return 3
	default: // following, awaiting result, connecting, reading
		return 6 // cyan
	}
}

// Words the status bar shows besides the model's verdict words.
const (
	WordConnecting   = "connecting"
	WordReconnecting = "reconnecting"
	WordError        = "error"
	WordReview       = "review"  // a settled action reviewed, or a replay
	WordReading      = "reading" // a review or replay not settled yet: not "following", which means live
)

// Badge renders a word as the status badge: " WORD " in reverse colour, or
// "[WORD]" without colour, so it never depends on colour alone.
func (st *Styles) Badge(word string) string {
	up := upper(word)
	if !st.Color {
		return st.BadgeBase.Render("[" + up + "]")
	}
	return st.BadgeBase.Background(ansi16(BadgeColor(word))).Render(" " + up + " ")
}

// VerdictWord is a verdict as a table cell shows it: upper case, in the
// badge's colour (the word alone without colour).
func (st *Styles) VerdictWord(word string) string {
	if !st.Color {
		return upper(word)
	}
	return lipgloss.NewStyle().Foreground(ansi16(BadgeColor(word))).Render(upper(word))
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

package render

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// Markdown renders finished messages with Glamour. It keeps one renderer
// per width (creating one is cheap, but a renderer is not safe for
// concurrent use), so it is safe to call from commands running in other
// goroutines. It is only ever given finished text: a streaming message is
// wrapped plain, so a long reply is never re-rendered per delta.
type Markdown struct {
	mu      sync.Mutex
	cfg     gansi.StyleConfig
	byWidth map[int]*glamour.TermRenderer
}

// MaxMarkdown is the longest message rendered as markdown (Glamour costs
// about 3.5 ms and 0.7 MB of garbage per KB); longer ones stay plain.
const MaxMarkdown = 128 << 10

// NewMarkdown returns a renderer using the 16 ANSI colours, or the ASCII
// style when colour is off.
func NewMarkdown(useColor bool) *Markdown {
	cfg := styles.ASCIIStyleConfig
	if useColor {
		cfg = ansi16Style()
	}
	// The transcript has its own gutter: no document margin, so plain
	// (streaming) and rendered text start in the same column.
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	return &Markdown{cfg: cfg, byWidth: map[int]*glamour.TermRenderer{}}
}

// Render renders sanitised markdown to lines of at most width cells.
func (m *Markdown) Render(text string, width int) ([]string, error) {
	if width < 8 {
		width = 8
	}
	if plainProse(text, width) {
		// Glamour draws a paragraph of plain words as the word wrap does
		// (TestPlainProseAsGlamour); 20,000 short messages need not cost
		// 20,000 renders.
		return Wrap(strings.TrimRight(text, " "), width), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.byWidth[width]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(m.cfg), glamour.WithWordWrap(width))
		if err != nil {
			return nil, err
		}
		if len(m.byWidth) > 8 { // a resize storm: keep the cache small
			clear(m.byWidth)
		}
		m.byWidth[width] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if Width(l) > width {
			l = Truncate(l, width, "…")
		}
		lines[i] = l
	}
	// Trim blank lines at both ends (glamour brackets blocks with them).
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines, nil
}

// plainProse reports whether text is one paragraph of words of ASCII
// letters, digits and commas, one space apart, none wider than width:
// nothing Markdown would style or wrap differently.
func plainProse(text string, width int) bool {
	if text == "" || text[0] == ' ' {
		return false
	}
	word := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ':
			if text[i-1] == ' ' {
				return false
			}
			word = 0
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == ',':
			word++
			if word > width {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }

// ansi16Style is Glamour's dark style with every colour replaced by one of
// the 16 ANSI colours (the terminal theme applies) and no syntax
// highlighting palette of its own. Body text keeps the terminal's default
// foreground, so it reads on light and dark backgrounds alike.
func ansi16Style() gansi.StyleConfig {
	c := styles.DarkStyleConfig
	c.Document.Color = nil
	c.Heading.Color = sp("4")
	c.H1.Color, c.H1.BackgroundColor = sp("4"), nil
	c.H1.Prefix, c.H1.Suffix = "# ", ""
	c.H1.Underline = bp(true)
	c.H6.Color = sp("4")
	c.HorizontalRule.Color = sp("8")
	c.Link.Color = sp("4")
	c.LinkText.Color = sp("6")
	c.Image.Color = sp("5")
	c.ImageText.Color = sp("8")
	c.Code.Color, c.Code.BackgroundColor = sp("6"), nil
	c.Code.Prefix, c.Code.Suffix = "", ""
	c.CodeBlock.Color = sp("6")
	c.CodeBlock.Chroma = nil
	c.CodeBlock.Theme = ""
	return c
}

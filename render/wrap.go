package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/safe"
)

// Widths are measured the way Bubble Tea's cell renderer measures them by
// default (wcwidth), so a wrapped line fills exactly the cells it is given.

// Width is the number of terminal cells s takes (escape sequences excluded).
func Width(s string) int { return ansi.StringWidthWc(s) }

// Truncate cuts s to at most w cells, ending with tail when it cut.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	return ansi.TruncateWc(s, w, tail)
}

// Fit truncates s to w cells and pads it with spaces to exactly w cells.
func Fit(s string, w int) string {
	s = Truncate(s, w, "…")
	if n := Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// tabWidth is how many spaces a tab in untrusted text becomes: cells must
// be countable, and a tab's width depends on where it lands.
const tabWidth = 4

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	return strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabWidth))
}

// Clean sanitises untrusted multi-line text for drawing: controls and
// escape sequences neutralised (contract §5), tabs expanded.
func Clean(s string) string { return expandTabs(safe.Text(s)) }

// Wrap wraps already sanitised plain text (no escape sequences) to width
// cells: greedy word wrap on spaces, words longer than a line broken
// hard, newlines kept, leading spaces of a paragraph kept.
func Wrap(s string, width int) []string {
	var out []string
	wrapOffsets(s, width, func(line string, _ int) { out = append(out, line) })
	return out
}

// WrapIndent wraps sanitised text to width cells with every line prefixed
// by indent (counted in the width).
func WrapIndent(s string, width int, indent string) []string {
	w := width - Width(indent)
	if w < 1 {
		w = 1
	}
	lines := Wrap(s, w)
	for i, l := range lines {
		lines[i] = indent + l
	}
	return lines
}

// wrapOffsets is the wrapping engine. For every line it calls emit with the
// line and the byte offset in s where the line's content starts. Greedy
// wrapping is prefix-stable: appending text to s never changes a line
// before the last one, which is what lets TextLines keep them.
func wrapOffsets(s string, width int, emit func(line string, start int)) {
	if width < 1 {
		width = 1
	}
	pos := 0
	for {
		nl := strings.IndexByte(s[pos:], '\n')
		end := len(s)
		if nl >= 0 {
			end = pos + nl
		}
		wrapParagraph(s[pos:end], pos, width, emit)
		if nl < 0 {
			return
		}
		pos = end + 1
	}
}

func wrapParagraph(p string, base, width int, emit func(string, int)) {
	if p == "" {
		emit("", base)
		return
	}
	var line strings.Builder
	lineW, lineStart := 0, base
	first := true // the paragraph's first line keeps its leading spaces
	pendSpace, pendW := "", 0
	i := 0
	for i < len(p) {
		// One token: a run of spaces or a run of non-spaces.
		j := i
		isSpace := p[i] == ' '
		for j < len(p) && (p[j] == ' ') == isSpace {
			j++
		}
		tok := p[i:j]
		if isSpace {
			if first && lineW == 0 && line.Len() == 0 {
				// Leading indentation of the paragraph: keep what fits.
				tok = Truncate(tok, width, "")
				line.WriteString(tok)
				lineW = len(tok)
				first = false
			} else {
				pendSpace, pendW = tok, len(tok)
			}
			i = j
			continue
		}
		first = false
		ww := Width(tok)
		switch {
		case lineW+pendW+ww <= width:
			if lineW == 0 && line.Len() == 0 {
				lineStart = base + i
			}
			line.WriteString(pendSpace)
			line.WriteString(tok)
			lineW += pendW + ww
		case lineW == 0 && line.Len() == 0 && ww <= width:
			lineStart = base + i
			line.WriteString(tok)
			lineW = ww
		default:
			if line.Len() > 0 {
				emit(line.String(), lineStart)
				line.Reset()
				lineW = 0
			}
			// Hard-break a word longer than a line.
			for ww > width {
				head := Truncate(tok, width, "")
				if head == "" { // a wide character in a one-cell line
					_, n := utf8.DecodeRuneInString(tok)
					head = tok[:n]
				}
				emit(head, base+i)
				i += len(head)
				tok = tok[len(head):]
				ww = Width(tok)
			}
			lineStart = base + i
			line.WriteString(tok)
			lineW = ww
		}
		pendSpace, pendW = "", 0
		i = j
	}
	if line.Len() > 0 || lineW == 0 {
		emit(line.String(), lineStart)
	}
}

// TextLines wraps text that only grows (a streaming message) without
// re-wrapping what is already final: the lines before the last one are
// kept, and each update sanitises and wraps only the new text plus the
// last line. Anything else (a new width, text that is not an extension of
// the previous) starts over. Style is applied once per line, as it is
// produced.
type TextLines struct {
	width   int
	raw     string // the raw text consumed so far
	san     []byte // its sanitised form, tabs expanded
	stable  int    // offset in san where the last (unstable) line starts
	nStable int
	lines   []string
	style   func(string) string
}

// Update brings the lines up to date with text at width and returns them.
// The returned slice is owned by the TextLines and valid until the next
// call.
func (t *TextLines) Update(text string, width int, style func(string) string) []string {
	if width != t.width || !strings.HasPrefix(text, t.raw) || (style == nil) != (t.style == nil) {
		*t = TextLines{width: width, lines: t.lines[:0], style: style}
	}
	t.style = style
	if len(text) == len(t.raw) && (len(t.lines) > 0 || text == "") {
		return t.lines
	}
	tail := text[len(t.raw):]
	t.raw = text
	t.san = append(t.san, Clean(tail)...)
	region := string(t.san[t.stable:])
	t.lines = t.lines[:t.nStable]
	var last string
	lastStart, have := 0, false
	wrapOffsets(region, width, func(line string, start int) {
		if have {
			t.lines = append(t.lines, t.styled(last))
			t.nStable++
		}
		last, lastStart, have = line, start, true
	})
	t.stable += lastStart
	t.lines = append(t.lines, t.styled(last))
	return t.lines
}

func (t *TextLines) styled(s string) string {
	if t.style == nil || s == "" {
		return s
	}
	return t.style(s)
}

// Reset forgets everything.
func (t *TextLines) Reset() { *t = TextLines{} }

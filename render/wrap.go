package render

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/safe"
)

// Widths are measured the way Bubble Tea's cell renderer measures them by
// default (wcwidth), so a wrapped line fills exactly the cells it is given.

// Width is the number of terminal cells s takes (escape sequences excluded).
func Width(s string) int {
	if n, ok := plainCells(s); ok {
		return n
	}
	return ansi.StringWidthWc(s)
}

// Truncate cuts s to at most w cells, ending with tail when it cut.
func Truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if n, ok := plainCells(s); ok && n <= w {
		return s
	}
	return ansi.TruncateWc(s, w, tail)
}

// plainCells is the cells of s when s is made only of SGR sequences
// (ESC [ digits and semicolons m), printable ASCII and the one-cell runes
// of our own rows (oneCell): each such rune is a grapheme cluster of its
// own and one cell wide whichever way it is measured, so the count is
// what ansi's width and truncation find, without their grapheme
// segmenter, which costs more than the row it measures (the status bar,
// a pane's box, ASCII text: every frame). ok is false for anything else.
func plainCells(s string) (n int, ok bool) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == 0x1b:
			j := i + 1
			if j >= len(s) || s[j] != '[' {
				return 0, false
			}
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return 0, false
			}
			i = j + 1
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !oneCell(r) {
				return 0, false
			}
			n++
			i += size
		default:
			return 0, false
		}
	}
	return n, true
}

// oneCell: the punctuation, rules and box sides our rows draw (the
// separators, ranges, ellipses, rules, arrows and the focus gutter's
// bar): narrow, never joined to a neighbour.
func oneCell(r rune) bool {
	switch r {
	case '·', '–', '…', '─', '━', '│', '┃', '↓', '▌':
		return true
	}
	return false
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
// escape sequences neutralised (design §5), tabs expanded.
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
	if p[0] == ' ' {
		wrapSlow(p, base, width, emit, true) // leading indentation
		return
	}
	// Fast path, one line at a time while the line's window is printable
	// ASCII (a cell a byte): the line is the longest run of whole words
	// from i that ends within width bytes, found by looking back from
	// i+width for a word end; the same lines as wrapSlow gives.
	i := 0
	for i < len(p) { // p[i] is not a space
		end := min(i+width+1, len(p))
		if !printableASCII(p[i:end]) {
			wrapSlow(p[i:], base+i, width, emit, false)
			return
		}
		if len(p)-i <= width { // the rest fits: the last line
			e := len(p)
			for p[e-1] == ' ' {
				e--
			}
			emit(p[i:e], base+i)
			return
		}
		e := -1
		for k := i + width; k > i; k-- {
			if p[k] == ' ' && p[k-1] != ' ' {
				e = k
				break
			}
		}
		if e < 0 { // one word longer than the line: broken hard
			emit(p[i:i+width], base+i)
			i += width
			continue
		}
		emit(p[i:e], base+i)
		for e < len(p) && p[e] == ' ' {
			e++ // the spaces at a break are dropped
		}
		i = e
	}
}

// printableASCII reports whether every byte of s is printable ASCII.
func printableASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// wrapSlow is the general wrapper of one paragraph (any width of
// character); first says that p starts the paragraph (its leading spaces
// are kept).
func wrapSlow(p string, base, width int, emit func(string, int), first bool) {
	// A line is always one contiguous piece of p, p[ls:le]: the spaces
	// between its words are kept as they are, the spaces at a break are
	// dropped, and a cut (over-long indentation, a hard-broken word)
	// ends it. So lines are substrings of p: nothing is copied.
	ls, le := 0, 0 // the current line's bytes in p
	lineW := 0
	open := false // the line holds something (le > ls, or kept indentation)
	pendW := 0    // spaces waiting between the line and the next word
	i := 0
	for i < len(p) {
		// One token: a run of spaces or a run of non-spaces.
		j := i
		isSpace := p[i] == ' '
		for j < len(p) && (p[j] == ' ') == isSpace {
			j++
		}
		if isSpace {
			if first && !open {
				// Leading indentation of the paragraph: keep what fits
				// (spaces are one byte and one cell each).
				n := min(j-i, width)
				ls, le, lineW, open = i, i+n, n, n > 0
				first = false
			} else {
				pendW = j - i
			}
			i = j
			continue
		}
		first = false
		tok := p[i:j]
		ww := tokenWidth(tok)
		switch {
		case open && lineW+pendW+ww <= width:
			le = j
			lineW += pendW + ww
		case !open && ww <= width:
			ls, le, lineW, open = i, j, ww, true
		default:
			if open {
				emit(p[ls:le], base+ls)
			}
			// Hard-break a word longer than a line.
			for ww > width {
				head := truncateCells(tok, width)
				if head == "" { // a wide character in a one-cell line
					_, n := utf8.DecodeRuneInString(tok)
					head = tok[:n]
				}
				emit(head, base+i)
				i += len(head)
				tok = tok[len(head):]
				ww = tokenWidth(tok)
			}
			// What is left of it starts the next line (nothing, when a
			// wide character took the whole word).
			ls, le, lineW, open = i, j, ww, i < j
		}
		pendW = 0
		i = j
	}
	if open || lineW == 0 {
		emit(p[ls:le], base+ls)
	}
}

// tokenWidth is Width for a word without spaces, with a fast path for
// printable ASCII (one cell a byte).
func tokenWidth(s string) int {
	for k := 0; k < len(s); k++ {
		if c := s[k]; c < 0x20 || c >= 0x7f {
			return Width(s)
		}
	}
	return len(s)
}

// truncateCells is Truncate(s, w, "") with the same ASCII fast path.
func truncateCells(s string, w int) string {
	for k := 0; k < len(s) && k < w+1; k++ {
		if c := s[k]; c < 0x20 || c >= 0x7f {
			return Truncate(s, w, "")
		}
	}
	return s[:min(w, len(s))]
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
	rewrap  bool // the width changed: wrap san again from the start
}

// Update brings the lines up to date with text at width and returns them.
// The returned slice is owned by the TextLines and valid until the next
// call.
func (t *TextLines) Update(text string, width int, style func(string) string) []string {
	switch {
	case !strings.HasPrefix(text, t.raw) || (style == nil) != (t.style == nil):
		*t = TextLines{width: width, lines: t.lines[:0], style: style}
	case width != t.width:
		// A resize: the sanitised text stays, only the wrapping starts
		// over (the lines are substrings of it: no copy a line).
		t.width, t.stable, t.nStable, t.lines = width, 0, 0, t.lines[:0]
		t.rewrap = true
	}
	t.style = style
	if len(text) == len(t.raw) && !t.rewrap && (len(t.lines) > 0 || text == "") {
		return t.lines
	}
	t.rewrap = false
	tail := text[len(t.raw):]
	t.raw = text
	t.san = append(t.san, Clean(tail)...)
	// The lines are substrings of san, viewed in place: san only ever
	// grows by append, and no byte once appended is written again (a reset
	// starts a new slice), so the view is immutable like any string. A
	// resize then re-wraps without copying the text.
	var region string
	if n := len(t.san) - t.stable; n > 0 {
		region = unsafe.String(&t.san[t.stable], n)
	}
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

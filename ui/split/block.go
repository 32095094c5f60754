package split

import (
	"strconv"
	"strings"

	"aipwatch/render"
	"aipwatch/safe"
	"aipwatch/ui"
)

// block is one pane as the last frame drew it in its cell: its box, or
// its one row when shrunk. It is kept between frames by what it shows,
// so that a batch to one pane draws that pane again and no other (design
// §12: four panes cost what changed, as one does).
type block struct {
	key   blockKey
	rows  []string // the box's rows (or the shrunk row), each the cell's width, each part through safe.Row
	lines []ui.Row // the live view's rows (ui.Live.Rows), as rows[1:] box them
	drawn int      // how many rows the live view drew (the focused pane's cursor)
	side  string   // the box's side, in its border's style, through safe.Row
	// lead is the last row's lead (the pane's gutter, the same string on
	// row after row) and its width.
	lead  string
	leadW int
}

// blockKey is everything a pane's block shows: the live view's frame
// (its state, size and clock: ui.FrameKey), the cell, the focus (the
// border's style), the zoom (the title says it) and whether it is shrunk.
// The pane's number and action ID never change.
type blockKey struct {
	frame               ui.FrameKey
	w, h                int
	focus, zoom, shrunk bool
}

// block is pane i's block in cell c, drawn again only when what it shows
// changed.
func (s *Split) block(i int, c cell) *block {
	k := blockKey{frame: s.panes[i].FrameKey(), w: c.w, h: c.h, focus: i == s.focus, zoom: s.zoom, shrunk: c.shrunk}
	b := &s.blocks[i]
	if b.rows != nil && b.key == k {
		return b
	}
	s.drawn++
	if c.shrunk {
		b.rows, b.lines, b.drawn = append(b.rows[:0], s.shrunkLine(i, c.w)), b.lines[:0], 0
	} else {
		// The view's rows, not its frame: no frame joined to be cut into
		// rows again, and a row it kept is the same strings as before.
		rows := s.panes[i].Rows(max(c.w-2, 1), max(c.h-2, 1))
		b.drawn = len(rows)
		was := b.key
		s.box(b, i, c, rows, b.rows != nil && !was.shrunk && was.w == k.w && was.h == k.h && was.focus == k.focus && was.zoom == k.zoom)
	}
	// Read after drawing: a View that re-laid the pane out counted it.
	k.frame = s.panes[i].FrameKey()
	b.key = k
	return b
}

// blanks pads a box's rows (a slice of it, not a string a row).
var blanks = strings.Repeat(" ", 512)

// boxGlyphs are the lines of a pane's box.
type boxGlyphs struct{ tl, tr, bl, br, h, v string }

var (
	lightBox = boxGlyphs{"┌", "┐", "└", "┘", "─", "│"}
	heavyBox = boxGlyphs{"┏", "┓", "┗", "┛", "━", "┃"} // the focused pane's
)

// box draws pane i's box in cell c around its view's rows: its border (heavy
// and the accent colour when it has the focus, light and dim otherwise) with its number and
// ID on top, and the live view inside, each row padded to the cell's
// width. In the box of the same cell, focus and zoom (same), the border
// stays and so does each row whose line did not change: a batch changes
// a few rows of a pane (its last lines, the header's time, the meters).
func (s *Split) box(b *block, i int, c cell, rows []ui.Row, same bool) {
	iw, ih := max(c.w-2, 1), max(c.h-2, 1)
	if !same {
		style, g := s.st.Rule, lightBox
		if i == s.focus {
			// Heavy lines as well as the accent colour: with NO_COLOR (or
			// a capture) the focused pane still reads as the focused one.
			style, g = s.st.Focus, heavyBox
		}
		title := " " + strconv.Itoa(i+1) + " " + s.names.title(i, max(iw-24, 12)) + " "
		if s.zoom {
			title += "· zoomed (z: all panes) "
		}
		title = render.Truncate(title, iw, "…")
		b.rows = append(b.rows[:0], safe.Row(style.Render(g.tl+title+strings.Repeat(g.h, max(iw-render.Width(title), 0))+g.tr)))
		for range ih {
			b.rows = append(b.rows, "")
		}
		b.rows = append(b.rows, safe.Row(style.Render(g.bl+strings.Repeat(g.h, iw)+g.br)))
		b.side, b.lines = safe.Row(style.Render(g.v)), b.lines[:0]
	}
	d := 0 // how far the last row found moved up (the transcript scrolled)
	for k := range ih {
		var l ui.Row // a row below the view's last is blank
		if k < len(rows) {
			l = rows[k]
		}
		if k < len(b.lines) {
			if b.lines[k] == l {
				continue
			}
			// A row the view moved up since the last frame: its boxed row
			// is the one drawn then (a row is its line, boxed: the same
			// line, the same row). Rows k and below are not written yet.
			if j := moved(b.lines, k, d, l); j > 0 {
				d, b.lines[k], b.rows[k+1] = j, l, b.rows[k+j+1]
				continue
			}
			b.lines[k] = l
		} else {
			b.lines = append(b.lines, l)
		}
		// The view's frame is scrubbed whole (ui.Live.View); its rows are
		// not: the text is scrubbed here, before it is measured, so that
		// the box's side stays in its column, and the split's frame is
		// scrubbed whole again (layout.go).
		text := safe.Scrub(l.Text)
		if l.Lead != b.lead {
			b.lead, b.leadW = l.Lead, render.Width(l.Lead)
		}
		pad := ""
		if n := iw - b.leadW - render.Width(text); n > len(blanks) {
			pad = strings.Repeat(" ", n)
		} else if n > 0 {
			pad = blanks[:n]
		}
		// Every part of the row passed safe.Row (design §5): the side
		// when drawn, the lead and the text in the live view (ui.Row),
		// the scrub's mark and the blanks are ours.
		b.rows[k+1] = b.side + l.Lead + text + pad + b.side
	}
}

// maxMoved is how many rows up moved looks for a row (a batch scrolls a
// pane's transcript by a row or a few).
const maxMoved = 8

// moved is j > 0 such that lines[k+j] is l (the last frame's row k+j is
// now row k), trying d first, or 0.
func moved(lines []ui.Row, k, d int, l ui.Row) int {
	if d > 0 && k+d < len(lines) && lines[k+d] == l {
		return d
	}
	for j := 1; j <= maxMoved && k+j < len(lines); j++ {
		if lines[k+j] == l {
			return j
		}
	}
	return 0
}

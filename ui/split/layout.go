package split

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/render"
	"aipwatch/safe"
	"aipwatch/ui"
)

// The sizes design §12 gives: panes side by side while each keeps 60
// columns; four in 2x2 while each keeps 60 columns and 10 rows; stacked
// otherwise, and when stacked panes cannot keep 10 rows each, those
// without the focus shrink to one row, their status line (its verdict).
const (
	minCols = 60
	minRows = 10
)

// cell is a pane's place on the screen.
type cell struct {
	x, y, w, h int
	shrunk     bool // one row: the pane's status line
	hidden     bool // another pane is zoomed
}

// arrange shares a screen of w x h among n panes; the last row is the key
// line when there is more than one pane. It depends on nothing a pane
// shows: the screen re-flows only on a resize, a zoom or a focus change.
func arrange(n, w, h, focus int, zoom bool) []cell {
	cells := make([]cell, n)
	if n == 1 {
		cells[0] = cell{w: w, h: h}
		return cells
	}
	ph := max(h-1, 1) // the key line
	switch {
	case zoom:
		for i := range cells {
			cells[i].hidden = i != focus
		}
		cells[focus] = cell{w: w, h: ph}
	case n <= 3 && w >= n*minCols: // side by side
		x := 0
		for i, cw := range shares(w, n) {
			cells[i] = cell{x: x, w: cw, h: ph}
			x += cw
		}
	case n == 4 && w >= 2*minCols && ph >= 2*minRows: // 2x2
		left, top := w/2, ph/2
		cells[0] = cell{w: left, h: top}
		cells[1] = cell{x: left, w: w - left, h: top}
		cells[2] = cell{y: top, w: left, h: ph - top}
		cells[3] = cell{x: left, y: top, w: w - left, h: ph - top}
	case ph >= n*minRows: // stacked
		y := 0
		for i, ch := range shares(ph, n) {
			cells[i] = cell{y: y, w: w, h: ch}
			y += ch
		}
	default: // stacked, the others shrunk to their status line
		y := 0
		for i := range cells {
			ch := 1
			if i == focus {
				ch = max(ph-(n-1), 1)
			}
			cells[i] = cell{y: y, w: w, h: ch, shrunk: i != focus}
			y += ch
		}
	}
	return cells
}

// shares divides total into n parts, the last one taking what is left.
func shares(total, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = total / n
	}
	out[n-1] = total - total/n*(n-1)
	return out
}

// layout arranges the panes for the split view's size and gives each its
// cell (a box's inside; a shrunk pane the focused one's, so that a change
// of focus does not re-wrap it).
func (s *Split) layout() tea.Cmd {
	if s.width <= 0 || s.height <= 0 {
		return nil
	}
	s.cells = arrange(len(s.panes), s.width, s.height, s.focus, s.zoom)
	if len(s.panes) == 1 {
		return s.panes[0].SetSize(s.width, s.height)
	}
	f := s.cells[s.focus]
	var cmds []tea.Cmd
	for i, c := range s.cells {
		switch {
		case c.hidden:
		case c.shrunk:
			cmds = append(cmds, s.panes[i].SetSize(max(c.w-2, 1), max(f.h-2, 1)))
		default:
			cmds = append(cmds, s.panes[i].SetSize(max(c.w-2, 1), max(c.h-2, 1)))
		}
	}
	return tea.Batch(cmds...)
}

// View draws the panes in their cells and the key line below them; one
// pane is the live view alone. A pane whose block shows what it showed in
// the last frame is not drawn again (block.go): the frame is its cached
// rows, joined in one builder.
func (s *Split) View(width, height int) string {
	if width != s.width || height != s.height || s.cells == nil {
		s.width, s.height = width, height
		s.layout() // its Markdown jobs wait for the next Update
	}
	if width <= 0 || height <= 0 {
		return ""
	}
	if len(s.panes) == 1 {
		frame := s.panes[0].View(width, height)
		s.cursorAt, s.lastRows = [2]int{}, strings.Count(frame, "\n")+1
		return frame
	}
	var pieces [MaxPanes][]string
	size := 0
	for i, c := range s.cells {
		if c.hidden {
			continue
		}
		b := s.block(i, c)
		pieces[i] = b.rows
		for _, r := range b.rows {
			size += len(r)
		}
		if i == s.focus {
			s.lastRows, s.cursorAt = b.drawn, [2]int{c.x + 1, c.y + 1}
		}
	}
	// The last guard, as every frame's (design §5): every part of a
	// block's rows (block.go) and the key line passed safe.Row when drawn,
	// so no control but our styling reaches the frame; the token is
	// scrubbed from the whole frame, even a piece that only meets another
	// in it (a pane's row comes unscrubbed: ui.Live.Rows).
	key := s.keyLine(width)
	var b strings.Builder
	b.Grow(size + height + len(key))
	for y := range height - 1 {
		for i, c := range s.cells {
			if !c.hidden && y >= c.y && y < c.y+c.h {
				b.WriteString(pieces[i][y-c.y])
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString(key)
	return safe.Scrub(b.String())
}

// shrunkLine is pane i shrunk to one row: its number and short name, then its
// status line, which still shows its verdict.
func (s *Split) shrunkLine(i, w int) string {
	p := s.panes[i]
	head := s.st.Rule.Render("─ "+strconv.Itoa(i+1)+" ") + s.names.short[i] + " "
	return safe.Row(render.Fit(head+p.StatusLine(), w))
}

// keyLine is the one key line of the split view, through safe.Row; while
// the focused pane asks for a confirmation or a query, that pane's own
// keys.
func (s *Split) keyLine(width int) string {
	if s.Mode() != ui.ModeNormal {
		return safe.Row(render.Fit(s.Focused().HelpLine(width), width))
	}
	if s.line.width == width && s.line.text != "" {
		return s.line.text
	}
	k, sh := s.keys, s.keys.Short
	short := func(b key.Binding, h key.Help) key.Binding {
		b.SetHelp(h.Key, h.Desc)
		return b
	}
	bs := []key.Binding{k.NextPane, short(k.Zoom, sh.Zoom), short(k.Cancel, sh.CancelPane), short(k.Search, sh.Search),
		short(k.Quit, sh.DetachAll), short(k.Help, sh.More)}
	s.hm.SetWidth(0)
	s.line = keyLine{width: width, text: safe.Row(render.Fit(s.hm.ShortHelpView(bs), width))}
	return s.line.text
}

// keyLine is the key line drawn for a width.
type keyLine struct {
	width int
	text  string
}

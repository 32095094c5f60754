package ui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
)

// textPanel is the state of the text panels that replace the transcript:
// the raw chunk (r, ui/rawview.go) and the connection log (L,
// ui/logpanel.go). A Bubbles viewport holds the reading position and moves
// it with the scroll keys (the key map's Up, Down, PageUp, PageDown) and
// the mouse wheel (wheelDelta, as in the transcript).
//
// The panel draws its visible rows itself, from lines at the viewport's
// offset: viewport.View pads every row to the viewport's width with spaces
// (a lipgloss Width and Height style) and its unpadded visibleLines is not
// exported, so View would change every byte of the frame's panel rows.
// lines is the viewport's content (SetContentLines keeps the slice: no
// line holds a newline or a carriage return, render.Line and render.Wrap
// see to that), not a copy.
type textPanel struct {
	seq   uint64   // the raw view's chunk
	lines []string // the rows, one screen line each
	vp    viewport.Model
}

// newPanel is an empty panel at the top, scrolled by the keys of km.
func newPanel(km KeyMap, seq uint64) textPanel {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown}
	vp.SetHorizontalStep(0)      // the rows are wrapped to the width: nothing to scroll sideways
	vp.MouseWheelEnabled = false // scroll: the wheel moves both views alike
	return textPanel{seq: seq, vp: vp}
}

// setLines replaces the rows for a body of body rows, at the end when
// bottom is set, else at the same offset, moved up if the rows got fewer
// (SetContentLines does that).
func (p *textPanel) setLines(lines []string, width, body int, bottom bool) {
	p.lines = lines
	p.vp.SetWidth(width)
	p.vp.SetHeight(body)
	p.vp.SetContentLines(lines)
	if bottom {
		p.vp.GotoBottom()
	}
}

// atBottom: the last row is on screen in a body of body rows.
func (p *textPanel) atBottom(body int) bool {
	p.vp.SetHeight(body)
	return p.vp.AtBottom()
}

// update moves the reading position for a scroll key (scrollKey), in a
// body of body rows.
func (p *textPanel) update(msg tea.KeyPressMsg, body int) {
	p.vp.SetHeight(body)
	p.vp, _ = p.vp.Update(msg)
	p.settle()
}

// scroll moves the reading position d rows (the wheel).
func (p *textPanel) scroll(d, body int) {
	p.vp.SetHeight(body)
	if d < 0 {
		p.vp.ScrollUp(-d)
	} else {
		p.vp.ScrollDown(d)
	}
	p.settle()
}

func (p *textPanel) gotoTop(body int) {
	p.vp.SetHeight(body)
	p.vp.GotoTop()
}

func (p *textPanel) gotoBottom(body int) {
	p.vp.SetHeight(body)
	p.vp.GotoBottom()
}

// settle brings an offset left past the end (the body grew since, when
// the ? overlay closed) back to the last page: the viewport clamps only
// when it moves, and does not move down from there.
func (p *textPanel) settle() { p.vp.SetYOffset(p.vp.YOffset()) }

// scrollKey: msg is one of the keys the viewport scrolls with.
func (p *textPanel) scrollKey(msg tea.KeyPressMsg) bool {
	k := p.vp.KeyMap
	return key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown)
}

// rows are the visible rows of a body of body rows (fewer at the end).
func (p *textPanel) rows(body int) []string {
	top := min(p.vp.YOffset(), len(p.lines))
	return p.lines[top:min(top+body, len(p.lines))]
}

package transcript

import (
	"strings"

	"aipwatch/model"
)

// The reading position in the transcript. Follow keeps the bottom in
// view; any upward scroll pauses it. While paused the position is an
// anchor (block key + line within it), so text growing below, a block
// re-rendering above, or a resize never moves what is being read. The
// focus is the block enter/space, y and r act on; while it is automatic
// it is the item that changed last.
//
// body, in the methods below, is how many rows the window has (the
// caller's layout decides it).
type window struct {
	follow    bool
	top       int
	anchorKey string
	anchorOff int
	newLines  int // lines that arrived while paused

	focusKey  string
	focusAuto bool

	lineBuf []string // Visible's buffer, reused between frames

	gutter      int    // cells of the gutter marked and blank are for
	mark, blank string // the focus mark and the blank gutter, styled once
}

// Gutter is the focus mark (drawn beside the focused block's lines) and
// the blank gutter, n cells each; both are "" when n is 0.
func (t *Transcript) Gutter(n int) (mark, blank string) {
	w := &t.win
	if w.gutter != n || (n > 0 && w.mark == "") {
		w.gutter, w.mark, w.blank = n, "", strings.Repeat(" ", n)
		if n > 0 {
			w.mark = t.st.Focus.Render("▌") + strings.Repeat(" ", n-1)
		}
	}
	return w.mark, w.blank
}

// Following reports whether the window follows the end.
func (t *Transcript) Following() bool { return t.win.follow }

// Top is the first line in the window.
func (t *Transcript) Top() int { return t.win.top }

// NewLines counts the lines that arrived while following was paused.
func (t *Transcript) NewLines() int { return t.win.newLines }

// Visible is the window's lines (at most body), from Top. The slice is
// reused by the next call.
func (t *Transcript) Visible(body int) []string {
	lines := t.Lines(t.win.lineBuf[:0], t.win.top, t.win.top+body)
	t.win.lineBuf = lines[:0]
	return lines
}

// Refresh brings the transcript up to date with the model under options
// o; fromStream counts the lines that arrived while following is paused.
// The window is placed by Relayout afterwards.
func (t *Transcript) Refresh(o Options, a *model.Action, fromStream bool) {
	before := t.Len()
	t.SetOptions(o)
	t.Sync(a)
	if fromStream && !t.win.follow {
		t.win.newLines += max(t.Len()-before, 0)
	}
}

// Reflow re-renders for new options (a resize, a view mode) without
// losing the reading position: the anchor's line within its block is
// scaled to the block's new length.
func (t *Transcript) Reflow(o Options, a *model.Action) {
	var frac float64
	if i := t.Index(t.win.anchorKey); i >= 0 {
		if _, n := t.Span(i); n > 0 {
			frac = float64(t.win.anchorOff) / float64(n)
		}
	}
	t.SetOptions(o)
	t.Sync(a)
	if i := t.Index(t.win.anchorKey); i >= 0 {
		_, n := t.Span(i)
		t.win.anchorOff = int(frac*float64(n) + 0.5)
	}
}

// settled reports whether the model of the last Sync settled.
func (t *Transcript) settled() bool { return t.action != nil && t.action.Settled() }

// Relayout places the window: at the bottom while following, else at the
// anchor.
func (t *Transcript) Relayout(body int) {
	w := &t.win
	maxTop := max(t.Len()-body, 0)
	if w.follow {
		w.top = t.FollowTop(body)
	} else if i := t.Index(w.anchorKey); i >= 0 {
		start, n := t.Span(i)
		w.top = start + min(w.anchorOff, n)
	}
	w.top = min(max(w.top, 0), maxTop)
	if w.focusAuto {
		w.focusKey = t.Key(t.autoFocus())
	}
}

// FollowTop is the window while following: the bottom, unless the item
// that changed last sits above the last item (Responses text after its
// tool calls): then that item's end, with the next heading under it.
func (t *Transcript) FollowTop(body int) int {
	maxTop := max(t.Len()-body, 0)
	act := t.Active()
	if act < 0 || act >= t.LastItem() || t.settled() {
		return maxTop // once settled nothing grows: the end is the bottom
	}
	start, n := t.Span(act)
	end := start + n + 2 // the separator and the next heading
	return min(max(end-body, 0), maxTop)
}

// autoFocus is the focused block while the focus follows: the item that
// changed last.
func (t *Transcript) autoFocus() int {
	if a := t.Active(); a >= 0 {
		return a
	}
	return t.Blocks() - 1
}

// SetTop moves the window (follow must already be off) and re-anchors it.
func (t *Transcript) SetTop(top, body int) {
	w := &t.win
	maxTop := max(t.Len()-body, 0)
	w.top = min(max(top, 0), maxTop)
	if bi := t.BlockAt(w.top); bi >= 0 {
		start, _ := t.Span(bi)
		w.anchorKey, w.anchorOff = t.Key(bi), w.top-start
	}
	t.keepFocusVisible(body)
}

// Pause stops following, keeping the current window.
func (t *Transcript) Pause() {
	if t.win.follow {
		t.win.follow = false
		t.win.newLines = 0
	}
}

// ScrollBy scrolls d lines; any manual scroll pauses, and scrolling back
// to the end resumes.
func (t *Transcript) ScrollBy(d, body int) {
	w := &t.win
	if t.Len() <= body {
		return // everything is visible: nothing to scroll
	}
	if w.follow && d > 0 && w.top >= max(t.Len()-body, 0) {
		return // already at the bottom: keep following
	}
	t.Pause() // any manual scroll pauses; G/End, or scrolling back to the end, resumes
	t.SetTop(w.top+d, body)
	if d > 0 && w.top >= max(t.Len()-body, 0) && t.FollowTop(body) >= w.top {
		t.ResumeFollow(body) // back at the end, as less +F and kubectl logs -f users expect
	}
}

// ScrollTo pauses and moves the window to top.
func (t *Transcript) ScrollTo(top, body int) {
	if t.Len() <= body {
		return
	}
	t.Pause()
	t.SetTop(top, body)
}

// ResumeFollow follows the end again (G/End), the focus with it.
func (t *Transcript) ResumeFollow(body int) {
	t.win.follow, t.win.newLines, t.win.focusAuto = true, 0, true
	t.Relayout(body)
}

// FocusIndex is the focused block, or -1.
func (t *Transcript) FocusIndex() int {
	if t.Blocks() == 0 {
		return -1
	}
	if t.win.focusAuto {
		return t.autoFocus()
	}
	if i := t.Index(t.win.focusKey); i >= 0 {
		return i
	}
	return t.autoFocus()
}

// Focus makes block i the focused one (the focus stops following).
func (t *Transcript) Focus(i int) {
	t.win.focusAuto = false
	t.win.focusKey = t.Key(i)
}

// MoveFocus moves the focus d blocks, scrolling it into the window.
func (t *Transcript) MoveFocus(d, body int) {
	n := t.Blocks()
	if n == 0 {
		return
	}
	i := min(max(t.FocusIndex()+d, 0), n-1)
	t.Focus(i)
	start, ln := t.Span(i)
	switch {
	case start < t.win.top:
		t.Pause()
		t.SetTop(start, body)
	case start >= t.win.top+body:
		if !t.win.follow {
			t.SetTop(start-body+min(ln, body), body)
		}
	}
}

// keepFocusVisible moves the focus to the top visible block when scrolling
// left the focused one out of the window.
func (t *Transcript) keepFocusVisible(body int) {
	w := &t.win
	if w.follow {
		return
	}
	i := t.FocusIndex()
	start, n := t.Span(i)
	if i >= 0 && start < w.top+body && start+n > w.top {
		return
	}
	bi := t.BlockAt(w.top)
	if s, ln := t.Span(bi); bi >= 0 && s+ln <= w.top && bi+1 < t.Blocks() {
		bi++ // the top row is the separator after bi
	}
	if bi >= 0 {
		t.Focus(bi)
	}
}

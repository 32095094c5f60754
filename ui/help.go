package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"aipwatch/render"
)

// keyHelp is the key help at the bottom of the screen: the one help line,
// and the ? overlay (every binding that works here, in as many columns as
// fit) with its scroll position. It owns the Bubbles help model and what
// it keeps between frames; the live view says which keys, context and
// width, and delegates.
type keyHelp struct {
	st    *render.Styles
	hm    help.Model
	top   int // first row of the ? overlay when it scrolls
	full  helpCache
	short shortCache
}

// shortCache is the one-line help of the last frame: it depends only on
// the width and the key context, and fitting it measures the bindings
// several times, so it is kept between frames.
type shortCache struct {
	width int
	ctx   KeyContext
	line  []string
}

// helpCache is the ? overlay of the last frame, by width, key context and
// cursor (the resume command shows it).
type helpCache struct {
	width  int
	ctx    KeyContext
	cursor string
	lines  []string
}

func newKeyHelp(st *render.Styles) keyHelp {
	h := help.New()
	h.Styles = help.Styles{
		Ellipsis:       st.HelpSep,
		ShortKey:       st.HelpKey,
		ShortDesc:      st.HelpDesc,
		ShortSeparator: st.HelpSep,
		FullKey:        st.HelpKey,
		FullDesc:       st.HelpDesc,
		FullSeparator:  st.HelpSep,
	}
	return keyHelp{st: st, hm: h}
}

// shortView is bindings as one help line (the query line's keys).
func (h *keyHelp) shortView(bs []key.Binding) string { return h.hm.ShortHelpView(bs) }

// shortLine is the one help line of the keys of context ctx, fitted to
// width.
func (h *keyHelp) shortLine(keys KeyMap, ctx KeyContext, width int) []string {
	if c := &h.short; c.line != nil && c.width == width && c.ctx == ctx {
		return c.line
	}
	km := keys.For(ctx)
	hm := h.hm
	hm.SetWidth(0) // measure untruncated
	short := km.ShortHelpFit(width, func(bs []key.Binding) int { return render.Width(hm.ShortHelpView(bs)) })
	line := []string{render.Truncate(h.hm.ShortHelpView(short), width, "…")}
	h.short = shortCache{width: width, ctx: ctx, line: line}
	return line
}

// lines is the ? overlay: every binding of context ctx, in as many
// columns as fit in width, and then detach's line (what a detach prints;
// called only when the cache misses, "" for none).
func (h *keyHelp) lines(keys KeyMap, ctx KeyContext, width int, cursor string, detach func() string) []string {
	if c := &h.full; c.lines != nil && c.width == width && c.ctx == ctx && c.cursor == cursor {
		return c.lines
	}
	km := keys.For(ctx)
	var all []key.Binding
	for _, g := range km.FullHelp() {
		all = append(all, g...)
	}
	out := HelpColumns(h.hm, all, min(len(all), 4), width)
	if d := detach(); d != "" {
		out = append(out, render.Truncate(d, width, "…"))
	}
	h.full = helpCache{width: width, ctx: ctx, cursor: cursor, lines: out}
	return out
}

// HelpColumns are bindings in as many columns as fit in width (at most
// maxCols), each line cut to width: the live view's ? overlay and the
// console's.
func HelpColumns(hm help.Model, all []key.Binding, maxCols, width int) []string {
	hm.SetWidth(0) // measure untruncated: columns that do not fit are regrouped, not cut
	var lines []string
	for cols := maxCols; cols >= 1; cols-- {
		rows := (len(all) + cols - 1) / cols
		var groups [][]key.Binding
		for i := 0; i < len(all); i += rows {
			groups = append(groups, all[i:min(i+rows, len(all))])
		}
		lines = strings.Split(hm.FullHelpView(groups), "\n")
		fits := true
		for _, l := range lines {
			fits = fits && render.Width(l) <= width
		}
		if fits {
			break
		}
	}
	for i, l := range lines {
		lines[i] = render.Truncate(strings.TrimRight(l, " "), width, "…")
	}
	return lines
}

// window is the overlay's rows in room rows of width cells: all of
// lines, or when too long a window from top and a line that says so.
func (h *keyHelp) window(lines []string, room, width int) []string {
	if len(lines) <= room {
		return lines
	}
	top := min(h.top, max(len(lines)-(room-1), 0))
	end := min(top+room-1, len(lines))
	return append(lines[top:end:end], render.Truncate(h.st.Dim.Render(
		fmt.Sprintf("keys %d–%d of %d · ↑↓ scroll · ? closes", top+1, end, len(lines))), width, "…"))
}

// scroll moves the overlay's window of room rows over n lines by d rows.
func (h *keyHelp) scroll(d, n, room int) {
	h.top = min(max(h.top+d, 0), max(n-(room-1), 0))
}

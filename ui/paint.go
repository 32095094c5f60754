package ui

import (
	"strings"

	"charm.land/lipgloss/v2"

	"aipwatch/render"
)

// paint is a Lip Gloss style as the SGR that opens it and the one that
// closes it, for the short texts the fixed rows draw every frame (a
// position, a count): Lip Gloss's Render lays out a block, which costs
// more than the row it styles. The style's Render draws a probe once; a
// text that is one plain line (no control, no tab) is then written
// between the two as Render writes it, anything else goes to Render.
type paint struct {
	style       lipgloss.Style
	open, close string
	ok          bool // the probe came back as open + probe + close
}

// paintProbe is a text like those painted: digits, a space, the chrome's
// punctuation.
const paintProbe = "12–3/45 a·b"

func newPaint(s lipgloss.Style) paint {
	r := s.Render(paintProbe)
	i := strings.Index(r, paintProbe)
	if i < 0 {
		return paint{style: s}
	}
	return paint{style: s, open: r[:i], close: r[i+len(paintProbe):], ok: true}
}

// Render is the style's Render of t.
func (p paint) Render(t string) string {
	if !p.ok || t == "" || !oneLine(t) {
		return p.style.Render(t)
	}
	return p.open + t + p.close
}

// oneLine: t has no control character (C0, DEL or C1), no tab and no
// replacement character (invalid UTF-8), so Lip Gloss draws it as one
// line, unchanged.
func oneLine(t string) bool {
	for _, r := range t {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\uFFFD' {
			return false
		}
	}
	return true
}

// chrome is what the fixed rows draw on every frame in the live view's
// styles, painted once: the separator, the rule's ends and its lines. The
// status bar owns it (statusBar.chrome); the tools' rule uses it too.
type chrome struct {
	dim, line          paint          // Dim; Rule (the rule's line)
	sep                string         // " · " dim, between the segments of a row
	ruleHead, ruleTail string         // "── " and " ──" in the rule's style
	fills              map[int]string // the rule's line by its cells (at most the view's width)
}

func newChrome(st *render.Styles) *chrome {
	return &chrome{dim: newPaint(st.Dim), line: newPaint(st.Rule), sep: st.Dim.Render(" · "),
		ruleHead: st.Rule.Render("── "), ruleTail: st.Rule.Render(" ──")}
}

// rule draws "── left ────── right ──" on a row of w cells.
func (c *chrome) rule(w int, left, right string) string {
	s := c.ruleHead + left + " "
	r := ""
	if right != "" {
		r = " " + right + c.ruleTail
	}
	fill := w - render.Width(s) - render.Width(r)
	if fill < 1 {
		return render.Truncate(s+r, w, "…")
	}
	return s + c.fill(fill) + r
}

// fill is the rule's line of n cells, painted.
func (c *chrome) fill(n int) string {
	f, ok := c.fills[n]
	if !ok {
		if c.fills == nil || len(c.fills) > 512 { // widths a resize went through
			c.fills = map[int]string{}
		}
		f = c.line.Render(strings.Repeat("─", n))
		c.fills[n] = f
	}
	return f
}

package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/render"
	"aipwatch/ui/transcript"
)

// Search: / opens the query line, enter finds, esc cancels; n / N move
// between the matches (the transcript's in line order, then the tool
// labels' in the tools pane), scrolling the current one into view; esc
// clears. The transcript owns the query, its matches and highlights
// (ui/transcript/search.go); this file only drives it and adds the tools pane.

type searchState struct {
	input   transcript.QueryLine
	prev    render.Query // restored when typing is cancelled, with its current match
	prevCur int

	// The current match when it is in a tool label (the transcript keeps
	// its own otherwise).
	curTool    string
	curToolOrd int

	// Matches per tool label, for one (query, model version).
	tools     []toolHits
	toolsQ    render.Query
	toolsVer  uint64
	toolsSeen bool
}

type toolHits struct {
	id    string
	index int // in Action.Tools()
	n     int
}

// maxQuery bounds the query line.
const maxQuery = 256

// searching reports whether a search is active (not while its query is
// being typed).
func (m *Live) searching() bool { return m.mode != ModeSearch && !m.tr.Query().Empty() }

// openSearch opens the query line.
func (m *Live) openSearch() tea.Cmd {
	m.search.prev, m.search.prevCur = m.tr.Query(), m.currentMatch()
	m.mode = ModeSearch
	m.showHelp = false
	m.search.input.Reset()
	m.relayout()
	return nil
}

// onSearchKey handles a key while the query is typed.
func (m *Live) onSearchKey(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, m.keys.SearchGo):
			m.confirmSearch()
			return nil
		case key.Matches(k, m.keys.SearchCancel):
			m.closeSearchInput()
			m.setQuery(m.search.prev)
			m.gotoMatch(m.search.prevCur, false)
			return nil
		}
	}
	if m.search.input.Update(msg) {
		m.setQuery(render.NewQuery(m.search.input.Value())) // highlight as you type
	}
	return nil
}

func (m *Live) closeSearchInput() {
	m.mode = ModeNormal
	m.relayout()
}

// confirmSearch: enter. The first match from the view becomes the current one.
func (m *Live) confirmSearch() {
	m.closeSearchInput()
	q := render.NewQuery(m.search.input.Value())
	m.setQuery(q)
	if q.Empty() {
		return
	}
	if m.matchTotal() > 0 {
		// From the view, as less and vim do: the first match at or below
		// the top line on the screen, else (wrapping) the first one.
		m.gotoMatch(max(m.tr.MatchFrom(m.tr.Top()), 0), true)
	}
}

// clearSearch: esc with an active search.
func (m *Live) clearSearch() {
	m.setQuery(render.Query{})
}

func (m *Live) setQuery(q render.Query) {
	if q != m.tr.Query() {
		m.tr.SetQuery(q)
		m.search.curTool = ""
	}
}

// toolMatches are the matches in the tool labels, per tool, for the
// current query and model version.
func (m *Live) toolMatches() []toolHits {
	s := &m.search
	q := m.tr.Query()
	if s.toolsSeen && s.toolsQ == q && s.toolsVer == m.action.Version {
		return s.tools
	}
	s.tools = s.tools[:0]
	if !q.Empty() {
		for i, t := range m.action.Tools() {
			if n := render.ToolMatches(q, t, m.opts.Redact); n > 0 {
				s.tools = append(s.tools, toolHits{id: t.ID, index: i, n: n})
			}
		}
	}
	s.toolsQ, s.toolsVer, s.toolsSeen = q, m.action.Version, true
	return s.tools
}

// matchTotal counts every match: the transcript's and the tool labels'.
func (m *Live) matchTotal() int {
	n := m.tr.MatchCount()
	for _, h := range m.toolMatches() {
		n += h.n
	}
	return n
}

// currentMatch is the index of the current match, or -1.
func (m *Live) currentMatch() int {
	if c := m.tr.Current(); c >= 0 {
		return c
	}
	if m.search.curTool == "" {
		return -1
	}
	k := m.tr.MatchCount()
	for _, h := range m.toolMatches() {
		if h.id == m.search.curTool {
			if m.search.curToolOrd < h.n {
				return k + m.search.curToolOrd
			}
			return -1
		}
		k += h.n
	}
	return -1
}

// stepMatch: n (+1) and N (-1), wrapping around.
func (m *Live) stepMatch(d int) {
	total := m.matchTotal()
	if total == 0 {
		m.setNotice("no match for “"+render.Truncate(m.tr.Query().String(), 40, "…")+"”", false)
		return
	}
	cur := m.currentMatch()
	var k int
	switch {
	case cur >= 0:
		k = ((cur+d)%total + total) % total
	case d > 0:
		k = max(m.tr.MatchFrom(m.tr.Top()), 0)
	default:
		k = total - 1
	}
	m.gotoMatch(k, true)
}

// gotoMatch makes match k current and, with scroll, brings it into view:
// a transcript match by scrolling (which pauses follow unless it is
// already on the screen) and expanding a collapsed item that hides it, a
// tool label's by showing the tools pane at its row.
func (m *Live) gotoMatch(k int, scroll bool) {
	if k < 0 {
		return
	}
	if k < m.tr.MatchCount() {
		m.search.curTool = ""
		m.tr.SetCurrent(k)
		if !scroll {
			return
		}
		bi, _, _ := m.tr.Match(k)
		if m.tr.Reveal(bi) {
			m.relayout()
		}
		_, line, _ := m.tr.Match(k)
		m.tr.Focus(bi)
		body := m.layout().body
		if top := m.tr.Top(); line < top || line >= top+body {
			m.pause()
			m.setTop(line - body/3)
		}
		m.relayout()
		return
	}
	m.tr.SetCurrent(-1)
	j := k - m.tr.MatchCount()
	for _, h := range m.toolMatches() {
		if j >= h.n {
			j -= h.n
			continue
		}
		m.search.curTool, m.search.curToolOrd = h.id, j
		if !scroll {
			return
		}
		m.showTools = true // toolOffset scrolls the pane to it
		m.relayout()
		return
	}
}

// toolOffset is how many rows above the last the tools pane shows (it has
// rows rows): 0, unless the current match is in a tool above them.
func (m *Live) toolOffset(rows int) int {
	if m.search.curTool == "" || m.tr.Query().Empty() {
		return 0
	}
	tools := m.action.Tools()
	for i, t := range tools {
		if t.ID == m.search.curTool && i < len(tools)-rows {
			return len(tools) - rows - i
		}
	}
	return 0
}

// searchStatus is the search's part of the rule line: “query” 3/17, or
// no match.
func (m *Live) searchStatus() string {
	st := m.st
	q := m.tr.Query()
	shown := "“" + render.Truncate(q.String(), 24, "…") + "”"
	total := m.matchTotal()
	if total == 0 {
		return st.Warn.Render("no match for " + shown)
	}
	pos := render.Plural(total, "match", "matches")
	if c := m.currentMatch(); c >= 0 {
		pos = fmt.Sprintf("%d/%d", c+1, total)
	}
	return st.Dim.Render("search "+shown+" ") + st.Header.Render(pos)
}

// searchLine is the query line at the bottom while it is typed, and the
// cursor's column in it.
func (m *Live) searchLine() (string, int) {
	st := m.st
	s, x := m.search.input.View(max(m.width/2, 12))
	if q := m.tr.Query(); !q.Empty() {
		if n := m.matchTotal(); n > 0 {
			s += "  " + st.Dim.Render(render.Plural(n, "match", "matches"))
		} else {
			s += "  " + st.Warn.Render("no match")
		}
	}
	km := m.keys.For(m.keyContext())
	s += "  " + m.help.shortView(km.ShortHelp())
	return render.Truncate(s, m.width, "…"), min(x, m.width-1)
}

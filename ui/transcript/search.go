package transcript

import (
	"bytes"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/render"
)

// Search: a case-insensitive substring of the text as it is drawn (after
// sanitising, wrapping, markdown and --redact's mask), so what is found is
// what the operator sees and a masked secret is never found.
//
// Cache discipline: a block's searchable text (its haystack) is built from
// its cached lines once per cache key and only while a query is active;
// counting a new query scans the haystacks, it renders nothing. Only the
// lines that hold a match are restyled, lazily, when they are drawn, and
// kept per (cache key, query, current match). The query itself, folding
// and highlighting are stateless and live in render/search.go.

// haystack is a block's searchable text: every line as drawn (escape
// sequences stripped, leading indentation left out), consecutive content
// lines joined by one space so a phrase wrapped over two lines is still
// found; a line that is not content (a heading, a label, a placeholder, an
// inline tool row) is found on its own: newlines, which no query holds,
// part it from its neighbours.
//
// A streaming item changes only its last lines (TextLines keeps the others
// as they were), so a new haystack reuses the old one up to the first line
// that changed, and keeps the matches that end before it: a batch costs
// the new text, not the whole message.
type haystack struct {
	ck    cacheKey
	ents  []hayEnt
	text  []byte
	fold  []byte
	idx   []int32 // fold offset → text offset; nil when they are the same
	lines []hayLine
	q     render.Query
	ms    []match
}

// hayEnt is one line search looked at: alone is a line that is not
// content. at is where its separator and text start in haystack.text.
type hayEnt struct {
	line  int
	src   string
	alone bool
	at    int
}

type hayLine struct {
	line  int // line index in the block (head, then the full body)
	start int // byte offset of its text in haystack.text
	text  string
	trim  int // cells of indentation left out
}

// match is one match in a block: one span per line it covers.
type match struct {
	line  int // first line
	end   int // byte offset of its end in haystack.text
	spans []lineSpan
}

type lineSpan struct {
	line, from, to int
}

// searchLines calls fn for every line of the block that search looks at,
// with its index in head+full body; alone marks a line that is not
// content (an item's heading, labels, placeholders and tool rows).
func (b *block) searchLines(fn func(i int, line string, alone bool)) {
	switch b.kind {
	case bMore:
		return
	case bItem:
		for i, l := range b.head {
			fn(i, l, true)
		}
		body := b.body
		if b.collapsed {
			body = b.full
		}
		for j, l := range body {
			fn(len(b.head)+j, l, j < len(b.chrome) && b.chrome[j])
		}
		return
	}
	for i, l := range b.head {
		fn(i, l, false)
	}
}

// haystack builds the block's haystack for its current lines and finds q
// in it, reusing prev (the block's previous haystack, which it consumes)
// as far as the lines are the same.
func (b *block) haystack(prev *haystack, q render.Query) *haystack {
	// The lines the same as last time keep their entries (prev's slice is
	// reused in place); the first that differs and all after it are new.
	var ents []hayEnt
	keep, cut, same := 0, 0, true
	diverge := func() {
		same = false
		if prev == nil {
			return
		}
		cut = len(prev.text)
		if keep < len(prev.ents) {
			cut = prev.ents[keep].at
		}
		ents = prev.ents[:keep]
	}
	b.searchLines(func(i int, l string, alone bool) {
		if same {
			if e := prev.entAt(keep); e != nil && e.line == i && e.src == l && e.alone == alone {
				keep++
				return
			}
			diverge()
		}
		ents = append(ents, hayEnt{line: i, src: l, alone: alone})
	})
	if same {
		diverge()
	}
	h := &haystack{ck: b.ck}
	if keep > 0 {
		h.text = prev.text[:cut] // prev is dropped: its buffers are reused
		n := len(prev.lines)
		for n > 0 && prev.lines[n-1].start >= cut {
			n--
		}
		h.lines = prev.lines[:n]
	}
	// What the last line was: none, content (the next content line
	// joins it with a space) or alone (a newline parts it).
	const none, content, alone = 0, 1, 2
	last := none
	if keep > 0 {
		last = content
		if ents[keep-1].alone {
			last = alone
		}
	}
	for k := keep; k < len(ents); k++ {
		e := &ents[k]
		e.at = len(h.text)
		p := ansi.Strip(e.src)
		t := strings.TrimLeft(p, " ")
		switch {
		case last == content && !e.alone:
			h.text = append(h.text, ' ')
		case last != none:
			h.text = append(h.text, '\n')
		}
		h.lines = append(h.lines, hayLine{line: e.line, start: len(h.text), text: t, trim: len(p) - len(t)})
		h.text = append(h.text, t...)
		last = content
		if e.alone {
			last = alone
		}
	}
	h.ents = ents
	// Fold only the new text when the old fold kept byte offsets.
	reuse := keep > 0 && prev.idx == nil
	if reuse {
		f, idx := render.Fold(string(h.text[cut:]))
		if idx == nil {
			h.fold = append(prev.fold[:cut], f...)
		} else {
			reuse = false
		}
	}
	if !reuse {
		f, idx := render.Fold(string(h.text))
		h.fold, h.idx = []byte(f), idx
	}
	// Matches that end before the first changed line stay; the scan goes
	// on from the last of them (non-overlapping matches found from the
	// left depend only on the text up to their end).
	from := 0
	h.q = q
	if reuse && prev.q == q {
		n := 0
		for n < len(prev.ms) && prev.ms[n].end <= cut {
			n++
		}
		if n > 0 {
			h.ms, from = prev.ms[:n], prev.ms[n-1].end
		}
	}
	h.ms = h.find(q, from, h.ms)
	return h
}

// rematch finds a new query in the same text.
func (h *haystack) rematch(q render.Query) {
	h.q = q
	h.ms = h.find(q, 0, h.ms[:0:0])
}

// find appends the matches of q from fold offset from to out.
func (h *haystack) find(q render.Query, from int, out []match) []match {
	if q.Empty() {
		return out
	}
	needle := []byte(q.Folded())
	li := 0
	for pos := from; pos <= len(h.fold)-len(needle); {
		i := bytes.Index(h.fold[pos:], needle)
		if i < 0 {
			break
		}
		fs, fe := pos+i, pos+i+len(needle)
		pos = fe
		s, e := fs, fe
		if h.idx != nil {
			s, e = int(h.idx[fs]), int(h.idx[fe])
		}
		for li < len(h.lines) && h.lines[li].start+len(h.lines[li].text) <= s {
			li++ // the line ends before the match
		}
		m := match{end: e}
		for k := li; k < len(h.lines); k++ {
			hl := h.lines[k]
			if hl.start >= e {
				break
			}
			a, z := max(s, hl.start)-hl.start, min(e, hl.start+len(hl.text))-hl.start
			if z <= a {
				continue // the joining space
			}
			m.spans = append(m.spans, lineSpan{line: hl.line,
				from: hl.trim + render.Width(hl.text[:a]), to: hl.trim + render.Width(hl.text[:z])})
		}
		if len(m.spans) == 0 {
			continue
		}
		m.line = m.spans[0].line
		out = append(out, m)
	}
	return out
}

// SetQuery sets (or, with an empty query, clears) the search. Clearing
// drops every haystack and highlight.
func (t *Transcript) SetQuery(q render.Query) {
	if q == t.query {
		return
	}
	t.query = q
	t.cur = curMatch{}
	for _, b := range t.blocks {
		t.searchBlock(b)
	}
	t.recount(0)
}

// Query is the active search.
func (t *Transcript) Query() render.Query { return t.query }

// searchBlock brings a block's matches up to date with its lines and the
// query.
func (t *Transcript) searchBlock(b *block) {
	switch {
	case t.query.Empty():
		b.hay, b.matches, b.hl = nil, nil, nil
		return
	case b.hay == nil || b.hay.ck != b.ck:
		b.hay = b.haystack(b.hay, t.query)
	case b.hay.q != t.query:
		b.hay.rematch(t.query)
	default:
		return
	}
	b.matches, b.hl = b.hay.ms, nil
}

// recount brings the match index up to date from block from on.
func (t *Transcript) recount(from int) {
	if cap(t.matchOff) < len(t.blocks)+1 {
		o := make([]int, len(t.blocks)+1, 2*len(t.blocks)+1)
		copy(o, t.matchOff)
		t.matchOff = o
	}
	t.matchOff = t.matchOff[:len(t.blocks)+1]
	from = min(max(from, 0), len(t.blocks))
	n := 0
	if from > 0 {
		n = t.matchOff[from-1] + len(t.blocks[from-1].matches)
	}
	for i := from; i < len(t.blocks); i++ {
		t.matchOff[i] = n
		n += len(t.blocks[i].matches)
	}
	t.matchOff[len(t.blocks)] = n
}

// MatchCount is the number of matches of the query in the transcript
// (hidden lines of collapsed items included).
func (t *Transcript) MatchCount() int {
	if t.query.Empty() || len(t.matchOff) == 0 {
		return 0
	}
	return t.matchOff[len(t.matchOff)-1]
}

// curMatch is the current match: its block and its ordinal there.
type curMatch struct {
	key string
	ord int
	set bool
}

// Match locates match k (0 ≤ k < MatchCount): its block and the line of
// the transcript it starts on (the block's line when it is collapsed).
func (t *Transcript) Match(k int) (blockIdx, line int, ok bool) {
	bi, ord, ok := t.matchBlock(k)
	if !ok {
		return 0, 0, false
	}
	b := t.blocks[bi]
	l := b.matches[ord].line
	if b.collapsed {
		l = 0
	}
	return bi, t.offsets[bi] + l, true
}

func (t *Transcript) matchBlock(k int) (int, int, bool) {
	if k < 0 || k >= t.MatchCount() {
		return 0, 0, false
	}
	// The last block whose first match is at or before k.
	lo, hi := 0, len(t.blocks)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.matchOff[mid] <= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for lo < len(t.blocks) && t.matchOff[lo+1] <= k {
		lo++
	}
	return lo, k - t.matchOff[lo], true
}

// SetCurrent makes match k the current one (drawn apart); k < 0 clears.
func (t *Transcript) SetCurrent(k int) {
	bi, ord, ok := t.matchBlock(k)
	if !ok {
		t.cur = curMatch{}
		return
	}
	t.cur = curMatch{key: t.blocks[bi].key, ord: ord, set: true}
}

// Current is the index of the current match, or -1. It follows the match
// when matches before it come and go.
func (t *Transcript) Current() int {
	if !t.cur.set {
		return -1
	}
	b := t.byKey[t.cur.key]
	if b == nil || t.cur.ord >= len(b.matches) || b.pos >= len(t.blocks) || t.blocks[b.pos] != b {
		return -1
	}
	return t.matchOff[b.pos] + t.cur.ord
}

// MatchFrom is the first match at or after transcript line (wrapping to
// the first), or -1 when there is none.
func (t *Transcript) MatchFrom(line int) int {
	n := t.MatchCount()
	for k := 0; k < n; k++ {
		if _, l, _ := t.Match(k); l >= line {
			return k
		}
	}
	if n > 0 {
		return 0
	}
	return -1
}

// highlighted is line j of block b with its matches restyled, or the line
// itself when it holds none.
func (t *Transcript) highlighted(b *block, j int, line string) string {
	if len(b.matches) == 0 || (b.collapsed && j >= len(b.head)) {
		return line
	}
	cur := -1
	if t.cur.set && t.cur.key == b.key {
		cur = t.cur.ord
	}
	if b.hl == nil || b.hlCur != cur {
		b.hl, b.hlCur = map[int]string{}, cur
		b.hlSpans = map[int][]render.Span{}
		for k, m := range b.matches {
			for _, s := range m.spans {
				b.hlSpans[s.line] = append(b.hlSpans[s.line], render.Span{From: s.from, To: s.to, Cur: k == cur})
			}
		}
	}
	spans := b.hlSpans[j]
	if len(spans) == 0 {
		return line
	}
	if s, ok := b.hl[j]; ok {
		return s
	}
	s := t.st.Highlight(line, spans)
	b.hl[j] = s
	t.highlights++
	return s
}

// Renders counts the blocks rendered so far (cache misses), and
// Highlighted the lines restyled for search: for tests of the cache
// discipline.
func (t *Transcript) Renders() int { return t.renders }

// Highlighted counts the lines restyled for search (see Renders).
func (t *Transcript) Highlighted() int { return t.highlights }

// Reveal expands block i when it is collapsed (a match inside it is about
// to be shown), and reports whether it changed.
func (t *Transcript) Reveal(i int) bool {
	if i < 0 || i >= len(t.blocks) || !t.blocks[i].collapsed {
		return false
	}
	return t.Toggle(i)
}

// entAt is entry k of a previous haystack, nil when there is none.
func (h *haystack) entAt(k int) *hayEnt {
	if h == nil || k >= len(h.ents) {
		return nil
	}
	return &h.ents[k]
}

package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"aipwatch/safe"
)

// Search: a case-insensitive substring of the text as it is drawn (after
// sanitising, wrapping, markdown and --redact's mask), so what is found is
// what the operator sees and a masked secret is never found.
//
// This file holds the stateless part: the query, folding, finding in one
// line, and restyling a line's matches. The transcript's search state (its
// haystacks, matches and the current match) is in ui/transcript.

// Query is one search.
type Query struct {
	text string // as typed, one sanitised line
	fold string // lower-cased
}

// NewQuery makes a query of s (sanitised to one line). A query of nothing
// but spaces is empty: it would only find the gaps between words.
func NewQuery(s string) Query {
	s = safe.Line(s)
	if strings.TrimSpace(s) == "" {
		return Query{}
	}
	f, _ := Fold(s)
	return Query{text: s, fold: f}
}

// String is the query as typed (sanitised).
func (q Query) String() string { return q.text }

// Folded is the query lower-cased (Fold), as a haystack is searched.
func (q Query) Folded() string { return q.fold }

// Empty reports whether there is nothing to search for.
func (q Query) Empty() bool { return q.fold == "" }

// Fold lower-cases s rune by rune. When that changes the byte length (a
// few runes fold to a shorter or longer encoding), idx maps every byte
// offset of the result (and its end) to the offset in s it came from;
// idx is nil when offsets are the same.
func Fold(s string) (string, []int32) {
	same := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) != n {
			same = false
			break
		}
		i += n
	}
	if same {
		return strings.ToLower(s), nil
	}
	var b strings.Builder
	b.Grow(len(s))
	idx := make([]int32, 0, len(s)+1)
	for i, r := range s {
		l := unicode.ToLower(r)
		n := utf8.RuneLen(l)
		if n < 0 { // RuneError from invalid UTF-8: keep the byte
			b.WriteByte(s[i])
			idx = append(idx, int32(i))
			continue
		}
		b.WriteRune(l)
		for k := 0; k < n; k++ {
			idx = append(idx, int32(i))
		}
	}
	idx = append(idx, int32(len(s)))
	return b.String(), idx
}

// find returns the byte ranges of the non-overlapping matches of q in the
// folded text, mapped back to the original through idx.
func (q Query) find(folded string, idx []int32) [][2]int {
	if q.Empty() {
		return nil
	}
	var out [][2]int
	for pos := 0; pos <= len(folded)-len(q.fold); {
		i := strings.Index(folded[pos:], q.fold)
		if i < 0 {
			break
		}
		s, e := pos+i, pos+i+len(q.fold)
		if idx != nil {
			out = append(out, [2]int{int(idx[s]), int(idx[e])})
		} else {
			out = append(out, [2]int{s, e})
		}
		pos = e
	}
	return out
}

// Count is the number of matches of q in one line of text as drawn.
func (q Query) Count(s string) int {
	if q.Empty() {
		return 0
	}
	f, idx := Fold(s)
	return len(q.find(f, idx))
}

// Cells returns the cell ranges [from, to) of the matches of q in one line
// of plain text (no escape sequences).
func (q Query) Cells(s string) [][2]int {
	if q.Empty() {
		return nil
	}
	f, idx := Fold(s)
	m := q.find(f, idx)
	out := make([][2]int, len(m))
	for i, r := range m {
		out[i] = [2]int{Width(s[:r[0]]), Width(s[:r[1]])}
	}
	return out
}

// Span is a highlighted cell range of one line; Cur marks the current
// match.
type Span struct {
	From, To int
	Cur      bool
}

// Highlight restyles the cell ranges of a styled line (ranges in order,
// not overlapping): each range is drawn in match (cur for the current
// match) over the line's own styling, which resumes after it.
func (st *Styles) Highlight(line string, spans []Span) string {
	if len(spans) == 0 {
		return line
	}
	plain := ansi.Strip(line)
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.To <= s.From || s.From < last {
			continue
		}
		if s.From > last {
			b.WriteString(cutWc(line, last, s.From))
		}
		style := st.Match
		if s.Cur {
			style = st.MatchCur
		}
		b.WriteString(style.Styled(cutWc(plain, s.From, s.To)))
		last = s.To
	}
	b.WriteString(ansi.TruncateLeftWc(line, last, ""))
	return b.String()
}

// cutWc is the cells [left, right) of s with its escape sequences kept
// (ansi.CutWc truncates on the left with the wrong function).
func cutWc(s string, left, right int) string {
	if right <= left {
		return ""
	}
	return ansi.TruncateLeftWc(ansi.TruncateWc(s, right, ""), left, "")
}

// LabelSpans are the cell ranges of q's matches within a label drawn in w
// cells (the part cut off is not drawn; its matches are counted by Count).
func LabelSpans(q Query, label string, w int, cur int) []Span {
	var out []Span
	for k, c := range q.Cells(label) {
		if c[0] >= w {
			break
		}
		out = append(out, Span{From: c[0], To: min(c[1], w), Cur: k == cur})
	}
	return out
}

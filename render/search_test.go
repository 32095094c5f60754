package render

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/model"
)

func TestQueryFoldAndFind(t *testing.T) {
	cases := []struct {
		q, s string
		want int
	}{
		{"readme", "README.md and readme and ReadMe", 3},
		{"aa", "aaaa", 2}, // non-overlapping
		{"café", "CAFÉ café Café", 3},
		{"k", "\u212a", 1},          // KELVIN SIGN folds to k (3 bytes → 1)
		{"istanbul", "İSTANBUL", 1}, // İ (2 bytes) folds to i (1 byte)
		{"straße", "STRASSE", 0},    // no full case folding: a substring match as shown
		{"␛[2j", "x␛[2Jy", 1},       // a control is searched as its placeholder
		{"x\x1b[2J", "x␛[2Jy", 1},
		{" ", "a b", 0}, // only spaces: no search
	}
	for _, c := range cases {
		if got := NewQuery(c.q).Count(c.s); got != c.want {
			t.Errorf("%q in %q: %d matches, want %d", c.q, c.s, got, c.want)
		}
	}
	// Cell ranges past wide characters.
	if got := NewQuery("b").Cells("☕中b"); len(got) != 1 || got[0] != [2]int{4, 5} {
		t.Errorf("cells %v, want [[4 5]]", got)
	}
	if got := NewQuery("k").Cells("x\u212ay"); len(got) != 1 || got[0] != [2]int{1, 2} {
		t.Errorf("cells across a shrinking fold %v", got)
	}
}

// TestFoldMapProperty: a match always maps back to text that folds to the
// query.
func TestFoldMapProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("aAbB \u212aKkİi̇ßé中☕")), 0, 60, -1).Draw(t, "s")
		qr := rapid.StringOfN(rapid.SampledFrom([]rune("abkié")), 1, 3, -1).Draw(t, "q")
		q := NewQuery(qr)
		f, idx := fold(s)
		for _, r := range q.find(f, idx) {
			if r[0] < 0 || r[1] > len(s) || r[0] >= r[1] {
				t.Fatalf("range %v out of %q", r, s)
			}
			if g, _ := fold(s[r[0]:r[1]]); g != q.fold {
				t.Fatalf("%q[%d:%d] = %q folds to %q, not %q", s, r[0], r[1], s[r[0]:r[1]], g, q.fold)
			}
		}
	})
}

func TestHighlightKeepsStyling(t *testing.T) {
	st := NewStyles(true)
	line := "ab" + st.Reasoning.Render("cdefgh") + "ij"
	got := st.Highlight(line, []Span{{From: 3, To: 5}, {From: 7, To: 9, Cur: true}})
	if ansi.Strip(got) != "abcdefghij" {
		t.Fatalf("text changed: %q", ansi.Strip(got))
	}
	if !strings.Contains(got, st.Match.Styled("de")) || !strings.Contains(got, st.MatchCur.Styled("hi")) {
		t.Errorf("highlights missing: %q", got)
	}
	// The line's own style resumes after the match: "fg" is still faint.
	after := got[strings.Index(got, st.Match.Styled("de"))+len(st.Match.Styled("de")):]
	faint := regexp.MustCompile(`\x1b\[(?:[0-9]+;)*2(?:;[0-9]+)*m`)
	if i := strings.Index(after, "fg"); i < 0 || !faint.MatchString(after[:i]) {
		t.Errorf("the reasoning style did not resume after the match: %q", after)
	}
	if w := ansi.StringWidthWc(got); w != 10 {
		t.Errorf("width %d", w)
	}
}

func searchChat(text string) *Transcript {
	c := newChat()
	c.role()
	c.delta(text)
	tr := NewTranscript(NewStyles(true), nil)
	tr.SetOptions(Options{Width: 20})
	tr.Sync(c.a)
	return tr
}

func TestTranscriptSearch(t *testing.T) {
	tr := searchChat("alpha beta gamma delta epsilon zeta eta theta iota kappa")
	tr.SetQuery(NewQuery("ETA"))
	// "beta", "zeta", "eta", "theta"
	if n := tr.MatchCount(); n != 4 {
		t.Fatalf("%d matches, want 4", n)
	}
	tr.SetCurrent(2)
	if tr.Current() != 2 {
		t.Errorf("current %d", tr.Current())
	}
	_, line, ok := tr.Match(2)
	if !ok || !strings.Contains(ansi.Strip(tr.Line(line)), "eta") {
		t.Errorf("match 2 on line %d: %q", line, tr.Line(line))
	}
	// A phrase over a wrap is found and spans both lines.
	tr.SetQuery(NewQuery("gamma delta epsilon"))
	if n := tr.MatchCount(); n != 1 {
		t.Fatalf("wrapped phrase: %d matches", n)
	}
	hl := 0
	for i := 0; i < tr.Len(); i++ {
		if strings.Contains(tr.Line(i), "\x1b[7") {
			hl++
		}
	}
	if hl < 2 {
		t.Errorf("the wrapped phrase is highlighted on %d lines", hl)
	}
	// The heading is not content.
	tr.SetQuery(NewQuery("assistant"))
	if n := tr.MatchCount(); n != 0 {
		t.Errorf("the heading was searched: %d", n)
	}
	tr.SetQuery(Query{})
	for _, b := range tr.blocks {
		if b.hay != nil || b.matches != nil {
			t.Error("clearing the query kept a haystack")
		}
	}
}

func TestSearchFollowsTheStream(t *testing.T) {
	c := newChat()
	c.role()
	tr := NewTranscript(NewStyles(false), nil)
	tr.SetOptions(Options{Width: 30})
	tr.SetQuery(NewQuery("word7"))
	for i := range 100 {
		c.delta(fmt.Sprintf("word%d ", i))
		tr.Sync(c.a)
	}
	// word7, word70 … word79
	if n := tr.MatchCount(); n != 11 {
		t.Errorf("%d matches, want 11", n)
	}
}

func TestToolRowsSearch(t *testing.T) {
	st := NewStyles(true)
	var tools []*model.Tool
	for i := range 6 {
		tools = append(tools, &model.Tool{ID: fmt.Sprint(i), Name: "terminal", Label: fmt.Sprintf("cat file%d.txt", i), Status: model.ToolCompleted})
	}
	q := NewQuery("FILE1")
	rows := st.ToolRows(tools, ToolOptions{Width: 80, Query: q, CurID: "1", Offset: 4}, 2)
	if len(rows) != 2 || !strings.Contains(ansi.Strip(rows[0]), "file0") || !strings.Contains(ansi.Strip(rows[1]), "file1") {
		t.Fatalf("offset window: %q", rows)
	}
	if !strings.Contains(rows[1], st.MatchCur.Styled("file1")) {
		t.Errorf("current label match not highlighted: %q", rows[1])
	}
	if got := st.ToolRows(tools, ToolOptions{Width: 80, Offset: 99}, 2); !strings.Contains(ansi.Strip(got[0]), "file0") {
		t.Errorf("an offset past the start is clamped: %q", got)
	}
	// A match cut off by the label's width is not drawn past it.
	long := []*model.Tool{{ID: "x", Name: "t", Label: strings.Repeat("a", 70) + "needle", Status: model.ToolCompleted}}
	r := st.ToolRows(long, ToolOptions{Width: 60, Query: NewQuery("needle")}, 1)
	if ansi.StringWidthWc(r[0]) > 60 || strings.Contains(r[0], "\x1b[7") {
		t.Errorf("hidden match drawn: %q", r[0])
	}
	if q.Count(ToolLabel(long[0], false)) != 0 || NewQuery("needle").Count(ToolLabel(long[0], false)) != 1 {
		t.Error("ToolLabel count")
	}
}

// TestIncrementalSearchEqualsFresh: matches kept up to date batch by batch
// while a message streams are exactly those of searching the final
// transcript afresh, whatever the text, the split and the query.
func TestIncrementalSearchEqualsFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab ab\n  aB \u212aK中☕")), 0, 300, -1).Draw(t, "text")
		q := NewQuery(rapid.SampledFrom([]string{"a", "ab", "b a", "k", "ab ab", "中"}).Draw(t, "q"))
		width := rapid.IntRange(3, 20).Draw(t, "width")
		c := newChat()
		c.role()
		tr := NewTranscript(NewStyles(false), nil)
		tr.SetOptions(Options{Width: width})
		tr.SetQuery(q)
		for i := 0; i < len(text); {
			n := rapid.IntRange(1, 15).Draw(t, "n")
			j := min(i+n, len(text))
			for j < len(text) && !isRuneStart(text[j]) {
				j++
			}
			c.delta(text[i:j])
			tr.Sync(c.a)
			i = j
		}
		fresh := NewTranscript(NewStyles(false), nil)
		fresh.SetOptions(Options{Width: width})
		fresh.Sync(c.a)
		fresh.SetQuery(q)
		if tr.MatchCount() != fresh.MatchCount() {
			t.Fatalf("%d matches streaming, %d afresh", tr.MatchCount(), fresh.MatchCount())
		}
		for i, b := range tr.blocks {
			if fmt.Sprint(b.matches) != fmt.Sprint(fresh.blocks[i].matches) {
				t.Fatalf("block %d: %v streaming, %v afresh", i, b.matches, fresh.blocks[i].matches)
			}
		}
	})
}

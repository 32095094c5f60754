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
		f, idx := Fold(s)
		for _, r := range q.find(f, idx) {
			if r[0] < 0 || r[1] > len(s) || r[0] >= r[1] {
				t.Fatalf("range %v out of %q", r, s)
			}
			if g, _ := Fold(s[r[0]:r[1]]); g != q.fold {
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

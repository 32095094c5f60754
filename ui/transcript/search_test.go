package transcript

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"pgregory.net/rapid"

	"aipwatch/render"
)

func searchChat(text string) *Transcript {
	c := newChat()
	c.role()
	c.delta(text)
	tr := New(render.NewStyles(true), nil)
	tr.SetOptions(Options{Width: 20})
	tr.Sync(c.a)
	return tr
}

func TestTranscriptSearch(t *testing.T) {
	tr := searchChat("alpha beta gamma delta epsilon zeta eta theta iota kappa")
	tr.SetQuery(render.NewQuery("ETA"))
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
	tr.SetQuery(render.NewQuery("gamma delta epsilon"))
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
	// The heading is searched on its own: a phrase does not run from it
	// into the text.
	tr.SetQuery(render.NewQuery("assistant"))
	if n := tr.MatchCount(); n != 1 {
		t.Errorf("the heading was not searched: %d", n)
	}
	tr.SetQuery(render.Query{})
	for _, b := range tr.blocks {
		if b.hay != nil || b.matches != nil {
			t.Error("clearing the query kept a haystack")
		}
	}
}

func TestSearchFollowsTheStream(t *testing.T) {
	c := newChat()
	c.role()
	tr := New(render.NewStyles(false), nil)
	tr.SetOptions(Options{Width: 30})
	tr.SetQuery(render.NewQuery("word7"))
	for i := range 100 {
		c.delta(fmt.Sprintf("word%d ", i))
		tr.Sync(c.a)
	}
	// word7, word70 … word79
	if n := tr.MatchCount(); n != 11 {
		t.Errorf("%d matches, want 11", n)
	}
}

// TestIncrementalSearchEqualsFresh: matches kept up to date batch by batch
// while a message streams are exactly those of searching the final
// transcript afresh, whatever the text, the split and the query.
func TestIncrementalSearchEqualsFresh(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringOfN(rapid.SampledFrom([]rune("ab ab\n  aB \u212aK中☕")), 0, 300, -1).Draw(t, "text")
		q := render.NewQuery(rapid.SampledFrom([]string{"a", "ab", "b a", "k", "ab ab", "中"}).Draw(t, "q"))
		width := rapid.IntRange(3, 20).Draw(t, "width")
		c := newChat()
		c.role()
		tr := New(render.NewStyles(false), nil)
		tr.SetOptions(Options{Width: width})
		tr.SetQuery(q)
		tr.Sync(c.a)
		for i := 0; i < len(text); {
			n := rapid.IntRange(1, 15).Draw(t, "n")
			j := min(i+n, len(text))
			for j < len(text) && !utf8.RuneStart(text[j]) {
				j++
			}
			c.delta(text[i:j])
			tr.Sync(c.a)
			i = j
		}
		fresh := New(render.NewStyles(false), nil)
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

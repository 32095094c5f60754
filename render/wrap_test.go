package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// TestWrapMatchesReference: the substring wrapper emits exactly the lines
// and offsets of the builder-based one it replaced (kept here as the
// reference).
func TestWrapMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alpha := rapid.SampledFrom([]string{"ab cd   efghijklmno ☕é中x", "ab cd   efghijklmnopqrstuvw x", "a b"}).Draw(t, "alphabet")
		p := rapid.StringOfN(rapid.SampledFrom([]rune(alpha)), 0, 200, -1).Draw(t, "p")
		width := rapid.IntRange(1, 30).Draw(t, "width")
		type ln struct {
			s     string
			start int
		}
		var got, want []ln
		wrapParagraph(p, 7, width, func(s string, st int) { got = append(got, ln{s, st}) })
		wrapParagraphRef(p, 7, width, func(s string, st int) { want = append(want, ln{s, st}) })
		if len(got) != len(want) {
			t.Fatalf("width %d %q:\n got %v\nwant %v", width, p, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("width %d %q line %d: got %v want %v", width, p, i, got[i], want[i])
			}
		}
	})
}

func wrapParagraphRef(p string, base, width int, emit func(string, int)) {
	if p == "" {
		emit("", base)
		return
	}
	var line strings.Builder
	lineW, lineStart := 0, base
	first := true // the paragraph's first line keeps its leading spaces
	pendSpace, pendW := "", 0
	i := 0
	for i < len(p) {
		// One token: a run of spaces or a run of non-spaces.
		j := i
		isSpace := p[i] == ' '
		for j < len(p) && (p[j] == ' ') == isSpace {
			j++
		}
		tok := p[i:j]
		if isSpace {
			if first && lineW == 0 && line.Len() == 0 {
				// Leading indentation of the paragraph: keep what fits.
				tok = Truncate(tok, width, "")
				line.WriteString(tok)
				lineW = len(tok)
				first = false
			} else {
				pendSpace, pendW = tok, len(tok)
			}
			i = j
			continue
		}
		first = false
		ww := Width(tok)
		switch {
		case lineW+pendW+ww <= width:
			if lineW == 0 && line.Len() == 0 {
				lineStart = base + i
			}
			line.WriteString(pendSpace)
			line.WriteString(tok)
			lineW += pendW + ww
		case lineW == 0 && line.Len() == 0 && ww <= width:
			lineStart = base + i
			line.WriteString(tok)
			lineW = ww
		default:
			if line.Len() > 0 {
				emit(line.String(), lineStart)
				line.Reset()
			}
			// Hard-break a word longer than a line.
			for ww > width {
				head := Truncate(tok, width, "")
				if head == "" { // a wide character in a one-cell line
					_, n := utf8.DecodeRuneInString(tok)
					head = tok[:n]
				}
				emit(head, base+i)
				i += len(head)
				tok = tok[len(head):]
				ww = Width(tok)
			}
			lineStart = base + i
			line.WriteString(tok)
			lineW = ww
		}
		pendSpace, pendW = "", 0
		i = j
	}
	if line.Len() > 0 || lineW == 0 {
		emit(line.String(), lineStart)
	}
}

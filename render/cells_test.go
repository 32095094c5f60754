package render

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Width and Truncate count a plain row themselves (plainCells: SGR,
// printable ASCII, the rows' own one-cell runes) and give what ansi's
// measuring gives, which they call for anything else: random rows of
// those pieces and of others (wide, combining, ambiguous, controls,
// other escapes, invalid bytes), at every width.
func TestPlainCellsAgreeWithAnsi(t *testing.T) {
	plain := []string{"a", "tok ", "12", " ", "~", "\x1b[2m", "\x1b[m", "\x1b[1;30;46m", "·", "–", "…", "─", "━", "│", "┃", "↓", "▌"}
	other := []string{"é", "e\u0301", "中", "😀", "\u200d", "\ufe0f", "\t", "\n", "\x1b]0;x\x07", "\x1b[2", "\x1b[?25l", "\xff", "─\u0301", "🇫🇷", "\r\n"}
	for _, r := range []string{"·", "–", "…", "─", "━", "│", "┃", "↓", "▌"} {
		if ansi.StringWidth(r) != 1 || ansi.StringWidthWc(r) != 1 {
			t.Fatalf("%q is not one cell: %d, %d", r, ansi.StringWidth(r), ansi.StringWidthWc(r))
		}
	}
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(16); k >= 0; k-- {
			if rng.Intn(6) == 0 {
				b.WriteString(other[rng.Intn(len(other))])
			} else {
				b.WriteString(plain[rng.Intn(len(plain))])
			}
		}
		s := b.String()
		if got, want := Width(s), ansi.StringWidthWc(s); got != want {
			t.Fatalf("Width(%q) = %d, ansi %d", s, got, want)
		}
		for _, w := range []int{1, 3, 8, 20, 80} {
			if got, want := Truncate(s, w, "…"), ansi.TruncateWc(s, w, "…"); got != want {
				t.Fatalf("Truncate(%q, %d) = %q, ansi %q", s, w, got, want)
			}
		}
	}
}

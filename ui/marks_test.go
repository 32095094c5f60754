package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// markHighlights makes search highlights visible in a golden: the screen
// with escape sequences stripped, a match drawn as ⟦text⟧ and the current
// match as ⟪text⟫. Highlights are the only reversed text in colour mode
// (the badge and the prompt use a background there); the current match is
// also underlined.
func markHighlights(s string) string {
	var b strings.Builder
	rev, under := false, false
	state := func() int {
		switch {
		case rev && under:
			return 2
		case rev:
			return 1
		}
		return 0
	}
	open := []string{"", "⟦", "⟪"}
	closing := []string{"", "⟧", "⟫"}
	cur := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				ps := strings.Split(s[i+2:j], ";")
				for k := 0; k < len(ps); k++ {
					p := ps[k]
					if c := strings.IndexByte(p, ':'); c >= 0 {
						p = p[:c]
					}
					n, _ := strconv.Atoi(p)
					switch n {
					case 0:
						rev, under = false, false
					case 7:
						rev = true
					case 27:
						rev = false
					case 4:
						under = true
					case 24:
						under = false
					case 38, 48, 58:
						if k+1 < len(ps) && ps[k+1] == "5" {
							k += 2
						} else if k+1 < len(ps) && ps[k+1] == "2" {
							k += 4
						}
					}
				}
				if st := state(); st != cur {
					b.WriteString(closing[cur])
					b.WriteString(open[st])
					cur = st
				}
			}
			i = j + 1
			continue
		}
		if s[i] == '\n' && cur != 0 {
			b.WriteString(closing[cur])
			b.WriteByte('\n')
			b.WriteString(open[cur])
			i++
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	b.WriteString(closing[cur])
	// Lip Gloss styles an underlined run cell by cell: one current match.
	return strings.ReplaceAll(ansi.Strip(b.String()), "⟫⟪", "")
}

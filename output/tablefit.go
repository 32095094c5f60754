package output

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// A table fitted to the terminal (design §7: ls prints a table for
// people): the ID and the state stay whole; first the wide cells are cut
// (a long capability, a stuck lease's explanation), then the empty
// columns are left out, then the capability is cut to a stub, then the
// columns that say least are left out.

// listColumn is how a column of the ls table gives way: cut is the width
// it is cut to first (0 = never), drop its turn to be left out (0 =
// never; lower goes first), stub the width it is cut to last.
type listColumn struct {
	cut, drop, stub int
	// short is a cell's shorter wording, tried before any cut.
	short func(string) string
}

// listColumns are ACTION, CAPABILITY, STATE, RESULT, STARTED, UPDATED,
// LEASE, TRIES, JOURNAL.
var listColumns = []listColumn{{}, {cut: 24, stub: 10, short: endpointOp}, {}, {drop: 5}, {drop: 1}, {drop: 6}, {cut: 20, drop: 4}, {drop: 2}, {drop: 3}}

// endpointOp is a capability without its connector: ENDPOINT:OPERATION,
// as the console shows it.
func endpointOp(c string) string {
	if _, rest, ok := strings.Cut(c, ":"); ok && strings.Contains(rest, ":") {
		return rest
	}
	return c
}

// listGap is the space between two columns (the tabwriter's padding).
const listGap = 2

// fitTable cuts the cells of rows (the header first) and picks the
// columns to print so that the table is at most width cells wide; width
// <= 0 keeps every column whole. It returns the columns kept, in order.
func fitTable(rows [][]string, cols []listColumn, width int) []int {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	keep := make([]bool, n)
	w := make([]int, n)
	for i := range keep {
		keep[i] = true
	}
	empty := make([]bool, n) // no cell but "-" below the header
	for i := range empty {
		empty[i] = true
	}
	for k, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], utf8.RuneCountInString(c))
			if k > 0 && c != "-" {
				empty[i] = false
			}
		}
	}
	total := func() int {
		t := 0
		for i := range n {
			if keep[i] {
				t += w[i] + listGap
			}
		}
		return t - listGap
	}
	if width > 0 {
		for i, c := range cols { // shorter words
			if c.short != nil && total() > width {
				w[i] = 0
				for k, r := range rows {
					if k > 0 {
						r[i] = c.short(r[i])
					}
					w[i] = max(w[i], utf8.RuneCountInString(r[i]))
				}
			}
		}
		for i, c := range cols { // the wide cells
			if c.cut > 0 && total() > width {
				w[i] = min(w[i], c.cut)
			}
		}
		drop := func(all bool) { // least first
			for turn := 1; turn <= n && total() > width; turn++ {
				for i, c := range cols {
					if c.drop == turn && (all || empty[i]) && total() > width {
						keep[i] = false
					}
				}
			}
		}
		drop(false) // the empty columns
		for i, c := range cols {
			if c.stub > 0 && keep[i] && total() > width {
				w[i] = max(c.stub, w[i]-(total()-width))
			}
		}
		drop(true)
	}
	var kept []int
	for i := range n {
		if keep[i] {
			kept = append(kept, i)
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if utf8.RuneCountInString(c) > w[i] {
				r[i] = ansi.Truncate(c, w[i], "…")
			}
		}
	}
	return kept
}

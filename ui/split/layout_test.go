package split

import (
	"fmt"
	"testing"
)

// The sizes of design §12, written as the contract says them: side by
// side while each pane keeps 60 columns; four in 2x2 while each keeps 60
// columns and 10 rows; stacked otherwise, the panes without the focus
// shrunk to one row when stacked ones could not keep 10 rows.
func TestArrange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		n, w, h int
		focus   int
		zoom    bool
		want    string // each pane: x,y wxh, s when shrunk, - when hidden
	}{
		{"one pane is the whole screen", 1, 100, 40, 0, false, "0,0 100x40"},
		{"two at 200 columns: side by side", 2, 200, 50, 0, false, "0,0 100x49 | 100,0 100x49"},
		{"two at 119 columns: stacked", 2, 119, 50, 0, false, "0,0 119x24 | 0,24 119x25"},
		{"two at 120 columns: side by side", 2, 120, 40, 1, false, "0,0 60x39 | 60,0 60x39"},
		{"two at 100x40: stacked", 2, 100, 40, 0, false, "0,0 100x19 | 0,19 100x20"},
		{"three at 180: side by side", 3, 180, 40, 0, false, "0,0 60x39 | 60,0 60x39 | 120,0 60x39"},
		{"four at 240x60: 2x2", 4, 240, 60, 0, false, "0,0 120x29 | 120,0 120x29 | 0,29 120x30 | 120,29 120x30"},
		{"four at 119 columns: stacked", 4, 119, 60, 0, false, "0,0 119x14 | 0,14 119x14 | 0,28 119x14 | 0,42 119x17"},
		{"four 2x2 needs 10 rows each", 4, 200, 20, 2, false, "0,0 200x1 s | 0,1 200x1 s | 0,2 200x16 | 0,18 200x1 s"},
		{"four at 100x30: the others shrunk", 4, 100, 30, 1, false, "0,0 100x1 s | 0,1 100x26 | 0,27 100x1 s | 0,28 100x1 s"},
		{"zoom: the focused pane alone", 3, 200, 50, 1, true, "- | 0,0 200x49 | -"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			for i, c := range arrange(tc.n, tc.w, tc.h, tc.focus, tc.zoom) {
				if i > 0 {
					got += " | "
				}
				switch {
				case c.hidden:
					got += "-"
				case c.shrunk:
					got += fmtCell(c) + " s"
				default:
					got += fmtCell(c)
				}
			}
			if got != tc.want {
				t.Errorf("arrange(%d, %dx%d, focus %d, zoom %v) = %s, want %s", tc.n, tc.w, tc.h, tc.focus, tc.zoom, got, tc.want)
			}
		})
	}
}

func fmtCell(c cell) string { return fmt.Sprintf("%d,%d %dx%d", c.x, c.y, c.w, c.h) }

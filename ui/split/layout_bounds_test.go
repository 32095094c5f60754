package split

import "testing"

// Each size of design §12 at its edge, as the contract states it (60
// columns, 10 rows a pane; the last row is the key line): the layout at the
// bound and one cell short of it.
func TestArrangeAtTheBounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		n, w, h int
		want    string // side, grid, stacked or shrunk
	}{
		{"three at 180 columns", 3, 180, 40, "side"},
		{"three at 179 columns", 3, 179, 40, "stacked"},
		{"four at 120 columns, 10 rows a pane", 4, 120, 21, "grid"},
		{"four at 119 columns", 4, 119, 41, "stacked"},
		{"four at 120 columns, 9 rows a pane", 4, 120, 20, "shrunk"},
		{"four, 10 rows each stacked", 4, 100, 41, "stacked"},
		{"four, 9 rows each stacked", 4, 100, 40, "shrunk"},
		{"two, 10 rows each stacked", 2, 100, 21, "stacked"},
		{"two, 9 rows each stacked", 2, 100, 20, "shrunk"},
	}
	for _, tc := range cases {
		cells := arrange(tc.n, tc.w, tc.h, 0, false)
		got := "stacked"
		switch {
		case cells[1].shrunk:
			got = "shrunk"
		case tc.n == 4 && cells[1].x > 0 && cells[2].y > 0:
			got = "grid"
		case cells[1].x > 0:
			got = "side"
		}
		if got != tc.want {
			t.Errorf("%s: %d panes at %dx%d are %s, want %s", tc.name, tc.n, tc.w, tc.h, got, tc.want)
		}
	}
}

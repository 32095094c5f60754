package ui

import (
	"strings"
	"testing"

	"aipwatch/safe"
)

// Rows is View's frame in rows (a host's contract, design §12): in every
// scene of the goldens, at each size, the rows joined by newlines and
// scrubbed are the frame View draws, there are as many as the screen's
// rows, and each part of each row is as safe.Row leaves it.
func TestRowsAreTheFrame(t *testing.T) {
	t.Parallel()
	for _, sc := range scenes() {
		t.Run(sc.name, func(t *testing.T) {
			for _, sz := range sizes {
				var mut []func(*Options)
				if sc.opts != nil {
					mut = append(mut, sc.opts)
				}
				h := newHarness(t, sz.w, sz.h, mut...)
				sc.script(h)
				frame := h.m.Live.View(sz.w, sz.h)
				rows := h.m.Rows(sz.w, sz.h)
				if len(rows) != sz.h {
					t.Errorf("%s: %d rows, want %d", sz.name, len(rows), sz.h)
				}
				parts := make([]string, len(rows))
				for i, r := range rows {
					for _, p := range []string{r.Lead, r.Text} {
						if safe.Row(p) != p {
							t.Errorf("%s: row %d has a part safe.Row changes: %q", sz.name, i, p)
						}
					}
					parts[i] = r.Lead + r.Text
				}
				if got := safe.Scrub(strings.Join(parts, "\n")); got != frame {
					t.Errorf("%s: the rows joined are not View's frame:\n%s\n--- View:\n%s", sz.name, got, frame)
				}
			}
		})
	}
	// Too small for a frame: one row that says so.
	h := newHarness(t, 20, 5)
	if rows := h.m.Rows(20, 5); len(rows) != 1 || rows[0].Lead != "" || rows[0].Text != h.m.Live.View(20, 5) {
		t.Errorf("too small: rows %q, frame %q", rows, h.m.Live.View(20, 5))
	}
}

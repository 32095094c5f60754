package console

import (
	"slices"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/ui/split"
)

// Marks (design §12): space marks the selected row, at most four (a split
// view's panes), and unmarks a marked one; enter then opens the marked
// rows in a split view, in the order they were marked, instead of the
// selected row alone. A mark is kept by row key (context and ID), so a
// poll that reorders the list keeps it on its action.

// toggleMark is space on the selected row.
func (c *Console) toggleMark() {
	i := c.table.Cursor()
	if i < 0 || i >= len(c.rows) || c.rows[i].ActionID == "" || c.rows[i].Unreachable != "" {
		return
	}
	k := c.rows[i].Key()
	switch at := slices.Index(c.marks, k); {
	case at >= 0:
		c.marks = slices.Delete(c.marks, at, at+1)
	case len(c.marks) >= split.MaxPanes:
		c.note = "four rows are marked already: a split view has four panes at most (space on a marked row unmarks it)"
		return
	default:
		c.marks = append(c.marks, k)
	}
	c.refresh()
}

// marked reports whether row r is marked.
func (c *Console) marked(r *model.ActionRow) bool { return slices.Contains(c.marks, r.Key()) }

// toOpen are the rows that open shows: the marked ones still listed, for
// enter; else the selected row (c and R act on it alone).
func (c *Console) toOpen(what ask) []model.ActionRow {
	var rows []model.ActionRow
	if what == askNothing {
		for _, k := range c.marks {
			if r, ok := c.fleet.RowByKey(k); ok {
				rows = append(rows, r)
			}
		}
	}
	if len(rows) > 0 {
		return rows
	}
	if i := c.table.Cursor(); i >= 0 && i < len(c.rows) && c.rows[i].ActionID != "" {
		return []model.ActionRow{c.rows[i]}
	}
	return nil
}

// marksTitle is the title's word on the marks ("" for none).
func (c *Console) marksTitle() string {
	if len(c.marks) == 0 {
		return ""
	}
	return " · " + render.Plural(len(c.marks), "row", "rows") + " marked (enter: split view)"
}

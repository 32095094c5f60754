package console

import (
	"time"

	"aipwatch/model"
)

// orderHold is how long the list keeps its order after a key: live
// actions update on every poll and would change places under an
// operator's key sequence (g j c), so a cancel or follow would land on
// another action than the one read on screen. Rows that change are
// redrawn in place; new ones are added below until the hold ends.
const orderHold = 5 * time.Second

// listView is what the rows were last drawn for: a change of it is the
// operator's (a filter), and the rows are sorted afresh.
type listView struct {
	query    string
	stateIdx int
	ctxIdx   int
	orderIdx int
}

// holding reports whether the list keeps its order: a key was pressed
// in the list within orderHold.
func (c *Console) holding() bool {
	return !c.lastKey.IsZero() && c.clock().Sub(c.lastKey) < orderHold
}

// arrange orders the rows to draw: sorted (rows as model.Fleet.Rows gives
// them), or, while the order is held and the view is the same, the order
// last drawn with newcomers below.
func (c *Console) arrange(sorted []model.ActionRow) []model.ActionRow {
	sorted = c.ordered(sorted) // o: by another column (sortkey.go)
	view := listView{c.filter.Value(), c.stateIdx, c.ctxIdx, c.orderIdx}
	if !c.holding() || view != c.drawnView || len(c.drawn) == 0 {
		c.drawnView = view
		c.drawn = c.drawn[:0]
		for i := range sorted {
			c.drawn = append(c.drawn, sorted[i].Key())
		}
		return sorted
	}
	// By row key: one action ID may stand on two daemons' rows.
	byKey := make(map[string]int, len(sorted))
	for i := range sorted {
		byKey[sorted[i].Key()] = i
	}
	out := make([]model.ActionRow, 0, len(sorted))
	used := make([]bool, len(sorted))
	for _, k := range c.drawn {
		if i, ok := byKey[k]; ok && !used[i] {
			out = append(out, sorted[i])
			used[i] = true
		}
	}
	for i := range sorted {
		if !used[i] {
			out = append(out, sorted[i])
		}
	}
	c.drawn = c.drawn[:0]
	for i := range out {
		c.drawn = append(c.drawn, out[i].Key())
	}
	return out
}

// listedIDs are the IDs of every action the console lists, for the
// cancel's confirmation (Options.Neighbours).
func (c *Console) listedIDs() []string {
	rows := c.fleet.Rows(model.Filter{})
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ActionID
	}
	return ids
}

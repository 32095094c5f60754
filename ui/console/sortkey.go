package console

import (
	"cmp"
	"slices"

	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/safe"
)

// The console's o and y (issue 46 item 16, as kubectl's --sort-by and
// k9s's copy): the list ordered by another column, the selected row's ID
// copied to the terminal's clipboard; and the selected row without colour.

// listOrders are the orders o steps through: the fleet's own (newest
// update first) then by another column, each stable on the fleet's order.
var listOrders = []struct {
	name string
	cmp  func(a, b *model.ActionRow) int // nil: the fleet's order
}{
	{"updated", nil},
	{"started", func(a, b *model.ActionRow) int { return b.StartedAt.Compare(a.StartedAt) }}, // newest first
	{"state", func(a, b *model.ActionRow) int { return cmp.Compare(a.State, b.State) }},
	{"capability", func(a, b *model.ActionRow) int { return cmp.Compare(a.CapabilityID, b.CapabilityID) }},
}

// ordered is rows in the list's order.
func (c *Console) ordered(rows []model.ActionRow) []model.ActionRow {
	if by := listOrders[c.orderIdx].cmp; by != nil {
		slices.SortStableFunc(rows, func(a, b model.ActionRow) int { return by(&a, &b) })
	}
	return rows
}

// nextOrder orders the list by the next column, at once (not held).
func (c *Console) nextOrder() {
	c.orderIdx = (c.orderIdx + 1) % len(listOrders)
	c.note = "ordered by " + listOrders[c.orderIdx].name + " (o: by " + listOrders[(c.orderIdx+1)%len(listOrders)].name + ")"
	c.refresh()
}

// copyID copies the selected row's action ID (OSC 52, as the live view's y
// copies an item).
func (c *Console) copyID() tea.Cmd {
	id := c.selectedID()
	switch {
	case id == "":
		c.note = "no action selected to copy"
		return nil
	case !safe.IDWord(id):
		// What is pasted may land on a shell's line: only the characters
		// AIP's IDs use, as completion offers.
		c.note = "not copied: the ID holds characters no AIP ID uses"
		return nil
	}
	c.note = "copied " + render.Line(id) + " (OSC 52)"
	return tea.SetClipboard(id)
}

// tableStyles are the list's: without colour, the selected row is drawn
// reversed, or it would be only bold, as the header is.
func tableStyles(noColor bool) table.Styles {
	s := table.DefaultStyles()
	if noColor {
		s.Selected = s.Selected.Reverse(true)
	}
	return s
}

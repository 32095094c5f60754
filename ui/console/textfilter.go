package console

import (
	"strings"

	"charm.land/bubbles/v2/table"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/model"
	"aipwatch/render"
)

// The text filter (/): a row stays when what the table shows of it holds
// the text, whatever the case: its cells as drawn (the verdict FAILED, the
// state, the capability's short form, the lease, the J mark), and the
// whole of the fields a cell may cut (the action ID, the capability ID, the
// context). What the operator reads is what the filter finds.

// textQuery is the filter's text as it is matched: lower case, trimmed.
func textQuery(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// rowMatches reports whether q (textQuery's) is in r's cells as drawn
// (row) or in its whole ID, capability ID or context.
func rowMatches(r *model.ActionRow, row table.Row, q string) bool {
	for _, cell := range row {
		if strings.Contains(strings.ToLower(ansi.Strip(cell)), q) {
			return true
		}
	}
	for _, f := range [...]string{r.ActionID, r.CapabilityID, r.Context} {
		if f != "" && strings.Contains(strings.ToLower(render.Line(f)), q) {
			return true
		}
	}
	return false
}

// maxFilterTitle bounds the text filter's width in the header.
const maxFilterTitle = 30

// filterTitle is the header's word on the filters: the state or verdict
// filter (1-5), and the text filter when one is typed ("all" only when
// nothing filters).
func (c *Console) filterTitle() string {
	name := stateFilters[c.stateIdx].name
	text := ansi.Truncate(render.Line(strings.TrimSpace(c.filter.Value())), maxFilterTitle, "…")
	switch {
	case text == "":
		return name
	case c.stateIdx == 0:
		return "/" + text
	}
	return name + " + /" + text
}

package console

import (
	"strings"

	"aipwatch/model"
	"aipwatch/render"
)

// noCancel is why c on the selected row offers no cancel prompt ("" = it
// does, the live view's), the answer first (an 80-column line cuts the
// end). A row the list shows settled: a cancel would
// only come too late; its verdict is named when judged, since its AIP
// state alone (completed) can be a FAILED turn. A row known only from this
// machine's journal: aipd does not list it, so nothing says it is live.
func (c *Console) noCancel() string {
	i := c.table.Cursor()
	if i < 0 || i >= len(c.rows) {
		return ""
	}
	r := &c.rows[i]
	id, state := render.Line(r.ActionID), render.Line(r.State)
	switch {
	case r.JournalOnly():
		return "no cancel here: " + id + " is only in this machine's journal (aipd does not list it), its state unknown; enter reads it, and c there cancels it if it is live"
	case !model.TerminalState(r.State):
		return ""
	}
	if w, ok := c.verdict.words[r.Key()]; ok {
		// Upper case, as the VERDICT column shows it.
		return "nothing to cancel: " + id + " has settled (" + strings.ToUpper(render.Line(w)) + ", AIP state " + state + ")"
	}
	return "nothing to cancel: " + id + " has settled (AIP state " + state + ", verdict not judged yet)"
}

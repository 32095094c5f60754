package console

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"aipwatch/render"
	"aipwatch/ui"
)

// The console's ? overlay: every binding of the list, as the live view's
// ? shows its own (ui/help.go), in as many columns as fit.

// consoleBindings are the list's bindings in the overlay's order.
func consoleBindings(k ui.ConsoleKeyMap, contexts bool) []key.Binding {
	// Keys only so that the help shows it (a binding without is off).
	sel := key.NewBinding(key.WithKeys("up", "down"), key.WithHelp(k.Select.Key, k.Select.Desc))
	all := []key.Binding{sel, k.Open, k.Back, k.Cancel, k.Reconcile, k.Notify, k.Filter, k.States, k.Pulse, k.Figures, k.Refresh}
	if contexts { // a console across contexts only
		all = append(all, k.Context)
	}
	return append(all, k.Help, k.Quit)
}

// helpLines is the overlay at width: the bindings in up to two columns,
// then a line on the live view's keys.
func (c *Console) helpLines(width int) []string {
	st := c.st
	hm := help.New()
	hm.Styles = help.Styles{Ellipsis: st.HelpSep, ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep}
	lines := ui.HelpColumns(hm, consoleBindings(c.keys, len(c.opts.Contexts) > 0), 2, width)
	return append(lines, "", render.Truncate(st.Dim.Render("In the live view opened with enter, its own keys apply (? there lists them); esc comes back here."), width, "…"))
}

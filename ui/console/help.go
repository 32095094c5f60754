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
	all := []key.Binding{sel, k.Open, k.Mark, k.Back, k.Cancel, k.Reconcile, k.Notify, k.Filter, k.States, k.Sort, k.Copy, k.Pulse, k.Figures, k.Refresh}
	if contexts { // a console across contexts only
		all = append(all, k.Context)
	}
	return append(all, k.Help, k.Quit)
}

// helpLines is the overlay at width: the bindings in up to two columns,
// then a line on the live view's keys.
func (c *Console) helpLines(width int) []string {
	lines := ui.HelpColumns(c.helpModel(), consoleBindings(c.keys, len(c.contexts) > 0), 2, width)
	return append(lines, "", render.Truncate(c.st.Dim.Render("In the live view opened with enter, its own keys apply (? there lists them); esc comes back here."), width, "…"))
}

func (c *Console) helpModel() help.Model {
	st := c.st
	hm := help.New()
	hm.Styles = help.Styles{Ellipsis: st.HelpSep, ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep}
	return hm
}

// shortLine is the one help line of the last frame: it depends only on
// the width (fitting it measures the line several times).
type shortLine struct {
	width int
	line  string
}

// shortHelp is the one help line at width: the least important keys are
// left out first, so that ? and q always stay (cut, the end of the line
// lost them at 80 columns).
func (c *Console) shortHelp(width int) string {
	if c.shortLine.line != "" && c.shortLine.width == width {
		return c.shortLine.line
	}
	k, s := c.keys, c.keys.Short
	var out []key.Binding
	var prio []int
	add := func(b key.Binding, h key.Help, p int) {
		b.SetHelp(h.Key, h.Desc)
		out, prio = append(out, b), append(prio, p)
	}
	// Keys only so that the line shows it (a binding without is off).
	add(key.NewBinding(key.WithKeys("up", "down")), s.Select, 8)
	add(k.Open, s.Open, 9)
	add(k.Cancel, s.Cancel, 7)
	add(k.Reconcile, s.Reconcile, 5)
	add(k.Notify, s.Notify, 4)
	add(k.Filter, s.Filter, 6)
	add(k.States, s.States, 3)
	add(k.Pulse, s.Pulse, 1)
	add(k.Figures, s.Figures, 2)
	if len(c.contexts) > 0 { // a console across contexts only
		add(k.Context, s.Context, 7)
	}
	add(k.Help, s.Help, 10)
	add(k.Quit, s.Quit, 10)
	hm := c.helpModel()
	fit := ui.FitHelp(out, prio, width, func(bs []key.Binding) int { return render.Width(hm.ShortHelpView(bs)) })
	c.shortLine = shortLine{width: width, line: render.Truncate(hm.ShortHelpView(fit), width, "…")}
	return c.shortLine.line
}

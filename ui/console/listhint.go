package console

import "aipwatch/render"

// listHint is what follows the list's error while nothing was ever
// listed (Options.ListHint): a console that never reached its daemon
// says what to check and how to see one without it (--demo=console).
func (c *Console) listHint() string {
	if c.opts.ListHint == "" || c.fleet.Len() > 0 {
		return ""
	}
	return " · " + render.Line(c.opts.ListHint)
}

package console

import "aipwatch/render"

// listHint is what follows the list's error while nothing was ever
// listed (Options.ListHint): a console that never reached its daemon
// says what to check and how to see one without it (--demo=console).
// Across contexts, where each daemon's error is its own row, it follows
// noneAnswered's line.
func (c *Console) listHint() string {
	if c.opts.ListHint == "" || (c.fleet.Len() > 0 && !c.noneAnswered()) {
		return ""
	}
	return " · " + render.Line(c.opts.ListHint)
}

// noneAnswered reports whether the console across contexts has had no
// daemon answer at all: every context's read failed, none ever listed.
func (c *Console) noneAnswered() bool {
	if len(c.parts) == 0 {
		return false
	}
	for _, p := range c.parts {
		if !p.multi || p.answered || p.failed == "" {
			return false
		}
	}
	return true
}

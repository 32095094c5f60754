package ui

import "aipwatch/stream"

// The console across the config file's contexts (design §9): one list of
// every daemon's live and recent actions with a CONTEXT column; the
// Context key narrows it to one context, then the next, then all again;
// enter follows an action on its own daemon, with its own credentials
// (ConsoleOptions.FollowIn and ReconcileIn). A daemon that cannot be read
// is one row of its own, with its error (stream.Multi), and the others go
// on.

// context is the context the list is narrowed to ("" = every context).
func (c *Console) context() string {
	if c.ctxIdx <= 0 || c.ctxIdx > len(c.opts.Contexts) {
		return ""
	}
	return c.opts.Contexts[c.ctxIdx-1]
}

// nextContext narrows the list to the next context, or back to all.
func (c *Console) nextContext() {
	if len(c.opts.Contexts) == 0 {
		return
	}
	c.ctxIdx = (c.ctxIdx + 1) % (len(c.opts.Contexts) + 1)
	c.refresh()
}

// idColumn is the table's ACTION column: after CONTEXT when there is one.
func (c *Console) idColumn() int {
	if len(c.opts.Contexts) > 0 {
		return 1
	}
	return 0
}

// inContext is how an action of context name is followed and reconciled.
func (c *Console) inContext(name string) (func(string) stream.Runner, ReconcileFunc) {
	if c.opts.FollowIn == nil {
		return nil, nil
	}
	follow := func(id string) stream.Runner { return c.opts.FollowIn(name, id) }
	var rec ReconcileFunc
	if c.opts.ReconcileIn != nil {
		rec = c.opts.ReconcileIn(name)
	}
	return follow, rec
}

// contextTitle is the title's word on the contexts ("" for one daemon).
func (c *Console) contextTitle() string {
	switch {
	case len(c.opts.Contexts) == 0:
		return ""
	case c.context() == "":
		return " · every context (x: one)"
	}
	return " · context " + c.context() + " (x: next)"
}

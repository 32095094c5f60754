package console

import (
	"aipwatch/stream"
	"aipwatch/ui"
)

// The console across the config file's contexts (design §9): one list of
// every daemon's live and recent actions with a CONTEXT column; the
// Context key narrows it to one context, then the next, then all again;
// enter follows an action on its own daemon, with its own credentials
// (ConsoleOptions.FollowIn and ReconcileIn). A daemon that cannot be read
// is one row of its own, with its error (stream.Multi), and the others go
// on.

// oneOfSeveral makes one daemon the case of one context, named "" (its
// rows' Context): Follow, Reconcile and Judge become FollowIn, ReconcileIn
// and JudgeIn, so the console has one way to follow, reconcile and judge a
// row, whatever the daemons.
func oneOfSeveral(o Options) Options {
	if follow := o.Follow; o.FollowIn == nil && follow != nil {
		o.FollowIn = func(_, id string) stream.Runner { return follow(id) }
	}
	if rec := o.Reconcile; o.ReconcileIn == nil && rec != nil {
		o.ReconcileIn = func(string) ui.ReconcileFunc { return rec }
	}
	if j := o.Judge; o.JudgeIn == nil && j != nil {
		o.JudgeIn = func(string) Judge { return j }
	}
	if j := o.Journal; o.JournalIn == nil && j != nil {
		o.JournalIn = func(string) []string { return j() }
	}
	return o
}

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
func (c *Console) inContext(name string) (func(string) stream.Runner, ui.ReconcileFunc) {
	if c.opts.FollowIn == nil {
		return nil, nil
	}
	follow := func(id string) stream.Runner { return c.opts.FollowIn(name, id) }
	var rec ui.ReconcileFunc
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

package console

import (
	"aipwatch/stream"
	"aipwatch/ui"
)

// The console across the config file's contexts (design §9): one list of
// every daemon's live and recent actions with a CONTEXT column; the
// Context key narrows it to one context, then the next, then all again;
// enter follows an action on its own daemon, with its own credentials
// (its Source, or Options.FollowIn and ReconcileIn). A daemon that cannot
// be read is one row of its own, with its error (stream.Multi), and the
// others go on.

// Source is one daemon of the console (Options.Sources):
// its context's name and its poller, or why it cannot be read (its row
// says it: stream.MultiSource), and how an action of it is followed,
// judged, reconciled and marked, with the daemon's own credentials. A
// daemon that cannot be read has none of them.
type Source struct {
	stream.MultiSource
	Follow func(actionID string) stream.Runner
	Judge  Judge
	// Reconcile makes the live view's R for the daemon's actions, when a
	// view of one opens (nil = no R).
	Reconcile func() ui.ReconcileFunc
	// Journal lists the action IDs this machine's submission journal
	// submitted to the daemon.
	Journal func() []string
}

// across makes Options.Sources the console's daemons: one stream.Multi
// polled in their order, a context each, and each row followed, judged,
// reconciled and marked by its own context's Source. One Source with no
// name is the console of one daemon: no context, its R made once, here.
func across(o Options) Options {
	switch {
	case len(o.Sources) == 0:
		return o
	case len(o.Sources) == 1 && o.Sources[0].Name == "":
		s := o.Sources[0]
		o.Daemon = s.Poller
		o.Follow = s.Follow
		o.Judge = s.Judge
		o.Journal = s.Journal
		if s.Reconcile != nil {
			o.Reconcile = s.Reconcile()
		}
		return o
	}
	multi := &stream.Multi{}
	byName := make(map[string]Source, len(o.Sources))
	o.Contexts = make([]string, 0, len(o.Sources))
	for _, s := range o.Sources {
		multi.Sources = append(multi.Sources, s.MultiSource)
		o.Contexts = append(o.Contexts, s.Name)
		byName[s.Name] = s
	}
	o.Daemon = multi
	o.FollowIn = func(name, id string) stream.Runner {
		if s := byName[name]; s.Follow != nil {
			return s.Follow(id)
		}
		return nil
	}
	o.ReconcileIn = func(name string) ui.ReconcileFunc {
		if s := byName[name]; s.Reconcile != nil {
			return s.Reconcile()
		}
		return nil
	}
	o.JudgeIn = func(name string) Judge { return byName[name].Judge }
	o.JournalIn = func(name string) []string {
		if s := byName[name]; s.Journal != nil {
			return s.Journal()
		}
		return nil
	}
	return o
}

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

package console

import (
	"cmp"
	"context"
	"errors"

	"aipwatch/stream"
	"aipwatch/ui"
)

// The console across the config file's contexts (design §9): one list of
// every daemon's live and recent actions with a CONTEXT column; the
// Context key narrows it to one context, then the next, then all again;
// enter follows an action on its own daemon, with its own credentials
// (its Source). A daemon that cannot be read is one row of its own, with
// its error (stream.Multi), and the others go on.

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

// daemonsOf makes the console's daemons of o, once (New): the Daemon it
// polls and follows the global log of, the contexts' names (none for one
// daemon: no CONTEXT column), and each context's Source by name, which
// follows, judges, reconciles and marks its rows. Several Sources are one
// stream.Multi polled in their order, each row acted on by its own
// context's Source. One daemon is the case of one context, named "" (its
// rows' Context): Options' Daemon, Follow, Judge, Journal and Reconcile,
// or one Source with no name, its R made once, here; one that cannot be
// read (its Err) is a Daemon whose every read says why.
func daemonsOf(o Options) (Daemon, []string, map[string]Source) {
	switch {
	case len(o.Sources) == 0:
		one := Source{Follow: o.Follow, Judge: o.Judge, Journal: o.Journal}
		if rec := o.Reconcile; rec != nil {
			one.Reconcile = func() ui.ReconcileFunc { return rec }
		}
		return o.Daemon, nil, map[string]Source{"": one}
	case len(o.Sources) == 1 && o.Sources[0].Name == "":
		one := o.Sources[0]
		if one.Reconcile != nil {
			rec := one.Reconcile()
			one.Reconcile = func() ui.ReconcileFunc { return rec }
		}
		if one.Err != nil || one.Poller == nil {
			return unread{cmp.Or(one.Err, errNoPoller)}, nil, map[string]Source{"": one}
		}
		return one.Poller, nil, map[string]Source{"": one}
	}
	multi := &stream.Multi{}
	names := make([]string, 0, len(o.Sources))
	byName := make(map[string]Source, len(o.Sources))
	for _, s := range o.Sources {
		multi.Sources = append(multi.Sources, s.MultiSource)
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	return multi, names, byName
}

// unread is the one daemon when it cannot be read: every read says why,
// on the status line, as a failed read of a daemon does.
type unread struct{ err error }

// errNoPoller is a Source with neither a poller nor an error.
var errNoPoller = errors.New("list: no daemon to read")

func (u unread) Poll(context.Context) (stream.Window, error) { return stream.Window{}, u.err }

func (u unread) ListAt(context.Context, stream.ListQuery, int, int) (stream.ListPage, error) {
	return stream.ListPage{}, u.err
}

func (u unread) FollowGlobal(context.Context, stream.GlobalOptions, stream.Sink) error { return u.err }

// context is the context the list is narrowed to ("" = every context).
func (c *Console) context() string {
	if c.ctxIdx <= 0 || c.ctxIdx > len(c.contexts) {
		return ""
	}
	return c.contexts[c.ctxIdx-1]
}

// nextContext narrows the list to the next context, or back to all.
func (c *Console) nextContext() {
	if len(c.contexts) == 0 {
		return
	}
	c.ctxIdx = (c.ctxIdx + 1) % (len(c.contexts) + 1)
	c.refresh()
}

// idColumn is the table's ACTION column: after CONTEXT when there is one.
func (c *Console) idColumn() int {
	if len(c.contexts) > 0 {
		return 1
	}
	return 0
}

// inContext is how an action of context name is followed and reconciled:
// by its own daemon's Source (its R made when a view opens).
func (c *Console) inContext(name string) (func(string) stream.Runner, ui.ReconcileFunc) {
	s := c.sources[name]
	if s.Follow == nil || s.Reconcile == nil {
		return s.Follow, nil
	}
	return s.Follow, s.Reconcile()
}

// contextTitle is the title's word on the contexts ("" for one daemon).
func (c *Console) contextTitle() string {
	switch {
	case len(c.contexts) == 0:
		return ""
	case c.context() == "":
		return " · every context (x: one)"
	}
	return " · context " + c.context() + " (x: next)"
}

package console

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/render"
	"aipwatch/stream"
)

// The console's polls (design §7, §9): one poll loop a daemon. A console
// across contexts polls each context's daemon on its own (stream.Multi's
// Parts), so that one that accepts and never answers delays no other's
// rows, at start or later: each loop reads, waits a period after its
// answer, and reads again. A read out for longer than staleAfter marks
// its context stale (its rows say so, and the status line names it in
// place of the global log's "live") until it answers; one that failed
// stays stale, its last rows kept, with its error as its own row.

// parted is a Daemon of several daemons polled each on its own
// (*stream.Multi).
type parted interface {
	Parts() []stream.MultiPart
}

// part is one poll loop: one daemon's.
type part struct {
	name  string // its context ("" for the one daemon)
	multi bool   // one of several: its failures are its row, never the console's
	poll  func(ctx context.Context) (stream.Window, error)
	probe func(ctx context.Context, id, cursor string) (stream.Probe, error) // nil: cannot (blindlog.go)
	log   logWatch                                                           // its global log (blindlog.go)

	polling  bool      // a read is out
	gen      int       // counts the reads sent: a stale check names the read it was set for
	sent     time.Time // when the read out was sent
	overdue  bool      // the read out has taken longer than staleAfter
	failed   string    // the last read's error ("" when it answered)
	answered bool      // a read has answered once
	notes    []string  // the faults of the list's paging the last answer met
	end      int       // where its last answer found the list's end
}

// stale reports whether the part's rows may be out of date: its read is
// overdue, or the last one failed.
func (p *part) stale() bool { return p.overdue || p.failed != "" }

// newParts are the poll loops of d: one a daemon of a Multi, else one.
func newParts(d Daemon) []*part {
	if pd, ok := d.(parted); ok {
		var out []*part
		for _, mp := range pd.Parts() {
			out = append(out, &part{name: mp.Name, multi: true, poll: mp.Poll, probe: mp.Probe, log: newLogWatch()})
		}
		if len(out) > 0 {
			return out
		}
	}
	p := &part{poll: d.Poll, log: newLogWatch()}
	if pr, ok := d.(prober); ok {
		p.probe = pr.Probe
	}
	return []*part{p}
}

// pollTimeout bounds one daemon's read when the Daemon sets none of its
// own (a Multi bounds each of its parts: stream.Multi.Timeout).
const pollTimeout = 30 * time.Second

// staleAfter is how long a read may be out before its rows are marked
// stale: two periods (a daemon that answers reads well within one).
func (c *Console) staleAfter() time.Duration { return 2 * c.opts.PollEvery }

// Console poll messages.
type (
	// pollMsg: part's period is over, read again.
	pollMsg struct{ part int }
	// staleMsg: the read gen of part was sent staleAfter ago.
	staleMsg struct{ part, gen int }
)

// listCmd reads every daemon's list now, each whose read is not out
// already (one command for one daemon).
func (c *Console) listCmd() tea.Cmd { return c.pollAll(false) }

func (c *Console) pollAll(manual bool) tea.Cmd {
	var cmds []tea.Cmd
	for i := range c.parts {
		if cmd := c.pollCmd(i, manual); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	switch len(cmds) {
	case 0:
		return nil
	case 1:
		return cmds[0]
	}
	return tea.Batch(cmds...)
}

// watchedPolls is pollAll with each read's stale check: what Init and
// ctrl+r send (a test that runs listCmd itself sets no timer).
func (c *Console) watchedPolls(manual bool) tea.Cmd {
	cmds := []tea.Cmd{c.pollAll(manual)}
	for i, p := range c.parts {
		if p.polling {
			cmds = append(cmds, c.staleCheck(i))
		}
	}
	return tea.Batch(cmds...)
}

// pollCmd reads part i's list once; one read a part at a time.
func (c *Console) pollCmd(i int, manual bool) tea.Cmd {
	p := c.parts[i]
	if p.polling {
		return nil
	}
	p.polling, p.overdue = true, false
	p.gen++
	p.sent = c.clock()
	poll, ctx, multi := p.poll, c.ctx, p.multi
	journal := c.sources[p.name].Journal
	return func() tea.Msg {
		var w stream.Window
		var err error
		if multi { // a Multi bounds each of its parts
			w, err = poll(ctx)
		} else {
			w, err = stream.PollWithin(ctx, pollTimeout, poll)
		}
		msg := listMsg{part: i, w: w, err: err, manual: manual}
		if err == nil && journal != nil {
			msg.journal = journal()
		}
		return msg
	}
}

// staleCheck comes back staleAfter from now naming part i's read out.
func (c *Console) staleCheck(i int) tea.Cmd {
	gen := c.parts[i].gen
	return c.after(c.staleAfter(), func(time.Time) tea.Msg { return staleMsg{part: i, gen: gen} })
}

// onPollDue reads part i again, with its stale check; if its read is
// still out (ctrl+r's), it tries again a period later.
func (c *Console) onPollDue(i int) tea.Cmd {
	if i < 0 || i >= len(c.parts) {
		return nil
	}
	if cmd := c.pollCmd(i, false); cmd != nil {
		return tea.Batch(cmd, c.staleCheck(i))
	}
	return c.nextPoll(i)
}

// nextPoll comes back a period from now to read part i again.
func (c *Console) nextPoll(i int) tea.Cmd {
	return tea.Tick(c.opts.PollEvery, func(time.Time) tea.Msg { return pollMsg{part: i} })
}

// onStale marks part i stale when the read the check was set for is still
// out; a daemon that never answered gets its row saying so.
func (c *Console) onStale(m staleMsg) {
	if m.part < 0 || m.part >= len(c.parts) {
		return
	}
	p := c.parts[m.part]
	if !p.polling || p.gen != m.gen {
		return
	}
	p.overdue = true
	if p.multi && !c.fleet.Holds(p.name) {
		c.fleet.MarkUnreachable(p.name, "no answer yet", c.clock())
	}
	c.refresh()
}

// staleContexts are the contexts whose rows are stale, in order (""
// for the one daemon).
func (c *Console) staleContexts() []*part {
	var out []*part
	for _, p := range c.parts {
		if p.stale() {
			out = append(out, p)
		}
	}
	return out
}

// isStale reports whether the rows of context name are stale.
func (c *Console) isStale(name string) bool {
	p := c.partOf(name)
	return p != nil && p.stale()
}

// staleLine is the status line's word on the stale contexts ("" when
// none): which, and since when, in place of the global log's "live".
func (c *Console) staleLine() string {
	stale := c.staleContexts()
	if len(stale) == 0 {
		return ""
	}
	now := c.clock()
	var b strings.Builder
	b.WriteString("stale: ")
	for i, p := range stale {
		if i > 0 {
			b.WriteString("; ")
		}
		name := render.Line(p.name)
		if name == "" {
			name = "the daemon"
		}
		b.WriteString(name)
		switch {
		case p.overdue:
			b.WriteString(" (no answer for " + now.Sub(p.sent).Round(time.Second).String() + ")")
		default:
			b.WriteString(" (" + render.Line(p.failed) + ")")
		}
	}
	b.WriteString(": its rows may be out of date")
	return b.String()
}

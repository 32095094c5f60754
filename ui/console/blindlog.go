package console

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
)

// A global log blind to the actions the list shows (design §7, protocol
// §2.2): a token scoped to a tenant reads a log without any chunk, result,
// cancel or worker event of a Hermes action (they carry no tenant), so the
// live rows, their settling and the pulse's chunks would show nothing. The
// console notices it, says so in its header, and follows its live rows by
// bounded per-action reads instead (stream.Client.Probe: a status and one
// page of the action's log after the last probe's cursor).
//
// The rule, per daemon, sound and bounded: the daemon's global log is live
// and has carried no event of those kinds at all (a log that carries any is
// not blind: the tenant filter hides them all), and either
//   - an action the console saw live settled (the list shows it completed,
//     failed or cancelled) and, a poll later with the log live, the log has
//     still said nothing of any action: every settlement publishes a result
//     or cancel event, and joining the log reads the window before its
//     head, which holds a settlement just missed; or
//   - probes a poll apart read chunks of a live action that the log never
//     carried.
// Probes cost at most maxProbes actions a poll a daemon (two requests
// each), the least recently read first: while the log is blind or refused,
// every live row of that daemon; otherwise only this machine's own
// submissions the list lacks (j!, such as a streaming one while it runs),
// whose progress no list shows. An action whose probes find nothing is read
// again later and later, up to probeIdle apart.

// maxProbes bounds the actions probed a poll, a daemon (design §7: a few).
const maxProbes = 4

// probeIdle bounds how long an action whose probes found nothing (no
// record, no chunk, or an error) is left before the next (probeWait).
const probeIdle = time.Minute

// The kinds whose absence makes a log blind.
var blindKinds = map[string]bool{"aip.stream.chunk": true, "aip.action.result": true, "aip.action.cancelled": true,
	"aip.action.worker_result": true, "aip.action.async_result": true}

// logWatch is one daemon's global log as the console judges it.
type logWatch struct {
	live    bool // the follow is live
	denied  bool // the token may not read it
	carries bool // it carried an event of blindKinds once live
	blind   bool
	why     string // what showed it blind

	polls       int            // polls answered
	seenLive    map[string]int // row keys seen live (listed in a live state)
	settledPoll map[string]int // ... and the poll they were first seen settled at
	chunkProbes int            // probes that read chunks the log never carried

	probes  map[string]*probe // by row key
	probing int               // probes out
}

type probe struct {
	cursor  string
	at      time.Time // when the last probe was sent
	empties int       // probes in a row that found nothing: the next waits longer (probeWait)
	out     bool
}

// probeWait is how long after its last probe an action is probed again:
// at once while probes find something, then a poll period doubling with
// each that found nothing, up to probeIdle.
func (c *Console) probeWait(pr *probe) time.Duration {
	if pr.empties == 0 {
		return 0
	}
	return min(probeIdle, c.opts.PollEvery<<min(pr.empties, 10))
}

func newLogWatch() logWatch {
	return logWatch{seenLive: map[string]int{}, settledPoll: map[string]int{}, probes: map[string]*probe{}}
}

// probedMsg is a probe come back.
type probedMsg struct {
	part int
	key  string
	p    stream.Probe
	err  error
}

// prober is a Daemon (or a Multi's part) that probes one action
// (*stream.Poller, stream.MultiPart).
type prober interface {
	Probe(ctx context.Context, id, cursor string) (stream.Probe, error)
}

// partOf is the poll loop of context name.
func (c *Console) partOf(name string) *part {
	for _, p := range c.parts {
		if p.name == name {
			return p
		}
	}
	return nil
}

// onLink takes a change of a daemon's global-log link.
func (c *Console) onLink(m stream.GlobalLinkMsg) {
	p := c.partOf(m.Context)
	if p == nil {
		return
	}
	switch {
	case m.Denied:
		p.log.denied = true
	case m.Live:
		p.log.live = true // its join window (handed over first) counts
	case !m.Live:
		p.log.live = false // reconnecting: what it missed meanwhile proves nothing
	}
}

// onLogEvents notes what a daemon's global log carries.
func (c *Console) onLogEvents(evs []model.Event) {
	for i := range evs {
		if !blindKinds[evs[i].Kind] {
			continue
		}
		if p := c.partOf(evs[i].Context); p != nil && !p.log.carries {
			p.log.carries, p.log.blind, p.log.why = true, false, ""
		}
	}
}

// watchLog is the rule's step at each poll p answered: the rows seen live,
// those seen settling, and the log's silence a poll later.
func (c *Console) watchLog(p *part) {
	w := &p.log
	w.polls++
	if w.carries || w.blind {
		return
	}
	held := map[string]bool{}
	for _, r := range c.fleet.Rows(model.Filter{Context: p.name}) {
		k := r.Key()
		held[k] = true
		switch {
		case !r.Listed:
		case !r.Settled():
			if _, ok := w.seenLive[k]; !ok {
				w.seenLive[k] = w.polls
			}
		case r.State == model.StateCompleted || r.State == model.StateFailed || r.State == model.StateCancelled:
			if _, live := w.seenLive[k]; !live {
				continue
			}
			at, ok := w.settledPoll[k]
			if !ok {
				w.settledPoll[k] = w.polls
			} else if w.live && w.polls > at {
				w.blind = true
				w.why = render.Line(r.ActionID) + " settled and the log said nothing of it"
			}
		}
	}
	for k := range w.seenLive {
		if !held[k] {
			delete(w.seenLive, k)
			delete(w.settledPoll, k)
		}
	}
}

// probeCmds sends the probes due on part i, at most maxProbes out.
func (c *Console) probeCmds(i int) tea.Cmd {
	p := c.parts[i]
	if p.probe == nil {
		return nil
	}
	w := &p.log
	every := w.blind || w.denied
	now := c.clock()
	type cand struct {
		r  model.ActionRow
		at time.Time
	}
	var due []cand
	held := map[string]bool{}
	for _, r := range c.fleet.Rows(model.Filter{Context: p.name}) {
		k := r.Key()
		held[k] = true
		// Every live row while the log is blind or refused; otherwise this
		// machine's own the list lacks, unless the log carries events and
		// shows it streaming.
		own := r.Journal && !r.Listed && !(w.carries && r.LiveSync)
		if r.ActionID == "" || r.Settled() || !(every || own) {
			continue
		}
		pr := w.probes[k]
		if pr == nil {
			pr = &probe{}
			w.probes[k] = pr
		}
		if pr.out || now.Before(pr.at.Add(c.probeWait(pr))) {
			continue
		}
		due = append(due, cand{r, pr.at})
	}
	for k, pr := range w.probes {
		if !held[k] && !pr.out {
			delete(w.probes, k)
		}
	}
	// The least recently read first.
	slices.SortStableFunc(due, func(a, b cand) int { return a.at.Compare(b.at) })
	var cmds []tea.Cmd
	for _, d := range due {
		if w.probing >= maxProbes {
			break
		}
		k := d.r.Key()
		pr := w.probes[k]
		pr.out, pr.at = true, now
		w.probing++
		pf, ctx, id, cursor := p.probe, c.ctx, d.r.ActionID, pr.cursor
		cmds = append(cmds, func() tea.Msg {
			rctx, cancel := context.WithTimeout(ctx, pollTimeout)
			defer cancel()
			res, err := pf(rctx, id, cursor)
			return probedMsg{part: i, key: k, p: res, err: err}
		})
	}
	return tea.Batch(cmds...)
}

// onProbed takes a probe: what it read goes by the global log's route
// (the fleet's rows, the pulse); chunks the live log never carried show
// it blind.
func (c *Console) onProbed(m probedMsg) {
	if m.part < 0 || m.part >= len(c.parts) {
		return
	}
	p := c.parts[m.part]
	w := &p.log
	w.probing = max(0, w.probing-1)
	pr := w.probes[m.key]
	if pr == nil {
		pr = &probe{}
		w.probes[m.key] = pr
	}
	pr.out = false
	if m.err != nil {
		pr.empties++
		return
	}
	pr.cursor = m.p.Cursor
	if m.p.Chunks == 0 && m.p.Status.State == model.StateUnknown {
		pr.empties++ // no record, nothing streamed yet
	} else {
		pr.empties = 0
	}
	evs := m.p.Events
	for i := range evs {
		evs[i].Context = p.name
	}
	if len(evs) > 0 {
		c.fleet.AddEvents(evs)
		c.pulse.AddEvents(evs, c.clock())
	}
	if m.p.Chunks > 0 && w.live && !w.carries && !w.blind {
		if w.chunkProbes++; w.chunkProbes >= 2 {
			w.blind = true
			w.why = "it carried none of the chunks " + render.Line(m.p.ID) + "'s own log holds"
		}
	}
	c.refresh()
}

// blindTitle is the header's word on the blind logs ("" when none).
func (c *Console) blindTitle() string {
	var names []string
	for _, p := range c.parts {
		if p.log.blind {
			names = append(names, p.name)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(c.parts) == 1:
		return " · global log without chunk/result events (tenant-scoped token?): live rows read per action"
	}
	s := " · "
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += render.Line(n)
	}
	return s + ": global log without chunk/result events (tenant-scoped token?): live rows read per action"
}

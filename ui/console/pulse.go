package console

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/render"
	"aipwatch/stream"
)

// The pulse (design §13) and --notify-on, fed by what the console already
// reads: the global log's events (onGlobal), the rows of each poll
// (onList) and the judgements (onJudged). Neither reads anything of its
// own, but --notify-on judges each action it saw settle while it watched,
// a review each, within the judge's bounds (four at once, cached), as the
// rows drawn are.

// notifyDueMsg: the window of a burst of settles has ended (output.NotifyOn).
type notifyDueMsg struct{}

// watch is what --notify-on keeps between polls: the rows seen live, the
// rows held at the last poll, and those that settled since, to be judged.
type watch struct {
	polled   bool            // a poll was taken: a settled row new after it settled while watched
	live     map[string]bool // seen not settled, by row key
	known    map[string]bool // held at the last poll
	settling map[string]bool // settled while watched, not judged yet
}

func newWatch() watch {
	return watch{live: map[string]bool{}, known: map[string]bool{}, settling: map[string]bool{}}
}

// pulseList gives the pulse every settled row held after a poll (not
// judged yet, or judged: Settle keeps a judgement), and, with
// --notify-on, marks the rows that settled since the last poll.
func (c *Console) pulseList() {
	now := c.clock()
	rows := c.fleet.Rows(model.Filter{})
	known := make(map[string]bool, len(rows))
	for i := range rows {
		r := &rows[i]
		if r.ActionID == "" {
			continue // a daemon not read
		}
		k := r.Key()
		known[k] = true
		if !r.Settled() {
			if r.State != "" { // a journal row of no known state (j!) was not seen live
				c.watch.live[k] = true
			}
			continue
		}
		c.pulse.Settle(k, model.Judged{CapabilityID: r.CapabilityID, SettledAt: r.UpdatedAt}, now)
		// Settled while watched: seen live, or new in the list's tail after
		// the first poll (an older page scrolled to is history, not news).
		if c.notifyOn != nil && (c.watch.live[k] || c.watch.polled && !c.watch.known[k] && !r.Older) {
			c.watch.settling[k] = true
		}
		delete(c.watch.live, k)
	}
	for k := range c.watch.live {
		if !known[k] {
			delete(c.watch.live, k)
		}
	}
	for k := range c.watch.settling {
		if !known[k] {
			delete(c.watch.settling, k)
		}
	}
	c.watch.known, c.watch.polled = known, true
}

// judgeSettling asks for the verdicts of the rows --notify-on saw settle,
// while fewer than maxJudging judgements are out.
func (c *Console) judgeSettling() tea.Cmd {
	if len(c.watch.settling) == 0 || !c.judging() || c.split != nil {
		return nil
	}
	var cmds []tea.Cmd
	for k := range c.watch.settling {
		if len(c.verdict.judging) >= maxJudging {
			break
		}
		if c.verdict.judging[k] || c.verdict.later[k] {
			continue
		}
		r, ok := c.fleet.RowByKey(k)
		if !ok {
			delete(c.watch.settling, k)
			continue
		}
		j, ctx, id := c.judgeOf(r.Context), c.ctx, r.ActionID
		if j == nil {
			delete(c.watch.settling, k)
			continue
		}
		c.verdict.judging[k] = true
		cmds = append(cmds, func() tea.Msg { return judgedMsg{k, j.Judge(ctx, id)} })
	}
	return tea.Batch(cmds...)
}

// pulseJudged gives the pulse a judgement, and --notify-on its verdict
// when the row settled while watched; the first of a burst asks to come
// back when its window ends.
func (c *Console) pulseJudged(key string, j stream.Judgement) tea.Cmd {
	r, ok := c.fleet.RowByKey(key)
	if !ok || j.Live {
		return nil
	}
	now := c.clock()
	c.pulse.Settle(key, j.Judged(&r), now)
	if !c.watch.settling[key] {
		return nil
	}
	delete(c.watch.settling, key)
	due, start := c.notifyOn.Settled(key, j.Word, output.NotifyTextOf(r.ActionID, j.Verdict), now)
	if !start {
		return nil
	}
	return c.after(max(0, due.Sub(now)), func(time.Time) tea.Msg { return notifyDueMsg{} })
}

// onNotifyDue sends the burst's one notification (the bell and the OSCs,
// wrapped for a multiplexer; output.NotifyOnBytes) between frames.
func (c *Console) onNotifyDue() tea.Cmd {
	text, ok := c.notifyOn.Due(c.clock())
	if !ok || c.opts.NotifyOnBytes == nil {
		return nil
	}
	c.note = c.hintOnce("notified: " + render.Line(text))
	return tea.Raw(c.opts.NotifyOnBytes(text))
}

// hintOnce is note, or once the first time a notification goes out, what
// to do for the multiplexer to let it through (Options.NotifyHint).
func (c *Console) hintOnce(note string) string {
	if c.opts.NotifyHint == "" || c.hinted {
		return note
	}
	c.hinted = true
	return c.opts.NotifyHint
}

// pulseLines are the pulse's lines now (ui/pulse: kept until what they
// show changes).
func (c *Console) pulseLines() []string {
	if c.width <= 0 {
		return nil
	}
	return c.pulse.Lines(c.st, c.width, c.height, c.clock())
}

package console

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
	"aipwatch/stream"
)

// The console's VERDICT column (design §7, "The verdict, not the AIP
// status"): a settled row shows its verdict, judged the first time the row
// is on screen; until then its AIP status, dimmed. A Chat turn whose AIP
// result is completed but whose provider failed reads FAILED there.
//
// What it costs: a judgement is a review of the action (stream.Judge: its
// whole log, its result), so only the rows the table draws are judged,
// never the whole list: the rows around the selection, at most twice the
// table's height (the table itself renders that window), at most
// maxJudging at once; a judgement is kept by action ID (a settled action
// does not change), in the judge's bounded cache and here for the rows
// drawn. Scrolling through a long history judges what it shows.

// Judge is what the console needs of a judge; *stream.Judge is one.
type Judge interface {
	Judge(ctx context.Context, id string) stream.Judgement
	Review(ctx context.Context, id string) (*model.Action, stream.Judgement)
}

// maxJudging bounds the judgements the console has asked for at once
// (design §7: four); the rows that wait are asked for as these come back.
const maxJudging = 4

// unknownRetry is how long an unreadable judgement (stream.VerdictUnknown:
// the daemon did not answer, or refused the read) stands before the row is
// judged again: a settled action does not change, but a daemon that failed
// a read may answer the next one, and a row that stayed "unknown" for the
// whole session would hide a verdict the operator asked for. Once a minute
// a row keeps a permanently unreadable action from costing a read a poll.
const unknownRetry = time.Minute

// maxVerdictsKept bounds the console's own table of verdicts (the judge
// caches them too): beyond it, those of rows no longer held are dropped.
const maxVerdictsKept = 4096

// judgedMsg is a judgement come back.
type judgedMsg struct {
	key string // the row's (model.ActionRow.Key)
	j   stream.Judgement
}

// notifiedMsg is a pending notification's action read once it settled:
// its bytes, ready to send.
type notifiedMsg struct {
	key   string // the row's (model.ActionRow.Key)
	id    string
	bytes string
	j     stream.Judgement
}

// verdicts is the console's verdict state.
type verdicts struct {
	words   map[string]string // judged: the verdict word (stream.VerdictUnknown when unreadable)
	judging map[string]bool   // asked for, not back yet
	notify  map[string]bool   // n armed: notify when the action settles (design §10)
	// later: listed settled but read live (the list ran ahead of the
	// action's record): asked for again after the next poll, not at once.
	later map[string]bool
	// retry: rows judged unknown (unreadable), by when they are asked for
	// again (unknownRetry).
	retry map[string]time.Time
	// cells are the styled cells drawn, by what they show: a refresh
	// draws every row's cell, and a style's Render allocates each time.
	cells map[cellKey]string
}

type cellKey struct {
	judged bool
	word   string
}

// maxCellsKept bounds cells: the words are few (verdicts, AIP states),
// unless a daemon makes up more.
const maxCellsKept = 64

func newVerdicts() verdicts {
	return verdicts{words: map[string]string{}, judging: map[string]bool{}, notify: map[string]bool{}, later: map[string]bool{}, retry: map[string]time.Time{}, cells: map[cellKey]string{}}
}

// verdictCell is the VERDICT cell of r: the verdict, upper case; the AIP
// status dimmed until judged; a live row's pending notification.
func (c *Console) verdictCell(r *model.ActionRow) string {
	if !r.Settled() {
		if c.verdict.notify[r.Key()] {
			return c.st.Warn.Render("notify")
		}
		return ""
	}
	k := cellKey{word: orWord(r.ResultStatus, r.State)}
	if w, ok := c.verdict.words[r.Key()]; ok {
		k = cellKey{judged: true, word: w}
	}
	if s, ok := c.verdict.cells[k]; ok {
		return s
	}
	s := c.st.Dim.Render(render.Line(k.word))
	if k.judged {
		s = c.st.VerdictWord(render.Line(k.word))
	}
	if len(c.verdict.cells) < maxCellsKept {
		c.verdict.cells[k] = s
	}
	return s
}

func orWord(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// judging: the console reads verdicts (a judge of one of its daemons).
func (c *Console) judging() bool {
	for _, s := range c.sources {
		if s.Judge != nil {
			return true
		}
	}
	return false
}

// judgeOf is the judge of a row of context name: its own daemon's.
func (c *Console) judgeOf(name string) Judge { return c.sources[name].Judge }

// judgeVisible asks for the verdicts of the settled rows the table draws
// that have none yet, while fewer than maxJudging are out.
func (c *Console) judgeVisible() tea.Cmd {
	if !c.judging() || c.split != nil || len(c.rows) == 0 {
		return nil
	}
	h := max(1, c.table.Height())
	cur := c.table.Cursor()
	var cmds []tea.Cmd
	for i := max(0, cur-h); i < min(len(c.rows), cur+h) && len(c.verdict.judging) < maxJudging; i++ {
		r := &c.rows[i]
		id, key := r.ActionID, r.Key()
		if !r.Settled() || c.verdict.judging[key] || c.verdict.later[key] {
			continue
		}
		if _, ok := c.verdict.words[key]; ok {
			continue
		}
		j, ctx := c.judgeOf(r.Context), c.ctx
		if j == nil {
			continue
		}
		c.verdict.judging[key] = true
		cmds = append(cmds, func() tea.Msg { return judgedMsg{key, j.Judge(ctx, id)} })
	}
	return tea.Batch(cmds...)
}

// onJudged takes a judgement: the row shows it.
func (c *Console) onJudged(m judgedMsg) {
	delete(c.verdict.judging, m.key)
	if m.j.Live {
		c.verdict.later[m.key] = true // listed settled, read live: after the next poll
		return
	}
	if len(c.verdict.words) >= maxVerdictsKept {
		c.pruneVerdicts()
	}
	c.verdict.words[m.key] = m.j.Word
	if m.j.Word == stream.VerdictUnknown {
		c.verdict.retry[m.key] = c.clock().Add(unknownRetry)
	}
	c.refresh()
}

// retryUnknown forgets the unreadable judgements whose time has come, so
// the rows are judged again once drawn (after a poll: never more often).
func (c *Console) retryUnknown() {
	now := c.clock()
	for key, at := range c.verdict.retry {
		if !now.Before(at) {
			delete(c.verdict.retry, key)
			if c.verdict.words[key] == stream.VerdictUnknown {
				delete(c.verdict.words, key)
			}
		}
	}
}

// pruneVerdicts drops the verdicts of rows the fleet no longer holds.
func (c *Console) pruneVerdicts() {
	held := map[string]bool{}
	for _, r := range c.fleet.Rows(model.Filter{}) {
		held[r.Key()] = true
	}
	for id := range c.verdict.words {
		if !held[id] {
			delete(c.verdict.words, id)
		}
	}
}

// verdictFilter keeps, for a filter by verdict (4 failed, 5 not
// verified), the settled rows judged one of its verdicts, and those not
// judged yet (they are judged as they are drawn, and leave then if their
// verdict is another).
func (c *Console) verdictFilter(rows []model.ActionRow) []model.ActionRow {
	keep := stateFilters[c.stateIdx].verdict
	if keep == nil {
		return rows
	}
	out := rows[:0]
	for _, r := range rows {
		if w, judged := c.verdict.words[r.Key()]; !judged || keep(w) {
			out = append(out, r)
		}
	}
	return out
}

// toggleNotify is n on a row: notify when that action settles, or no
// longer. A settled row has nothing to wait for.
func (c *Console) toggleNotify() {
	if c.opts.Notification == nil || !c.judging() {
		c.note = "no notification here: the console's output is no terminal, or it reads no verdicts"
		return
	}
	i := c.table.Cursor()
	if i < 0 || i >= len(c.rows) {
		return
	}
	r := &c.rows[i]
	id := render.Line(r.ActionID)
	switch {
	case r.Settled():
		c.note = id + " has settled: nothing to wait for"
	case c.verdict.notify[r.Key()]:
		delete(c.verdict.notify, r.Key())
		c.note = "no notification when " + id + " settles"
	default:
		c.verdict.notify[r.Key()] = true
		c.note = "will ring and notify when " + id + " settles (n: not)"
	}
	c.refresh()
}

// notifySettled reads each action with a pending notification that the
// list now shows settled, for its verdict line; the bytes go out when the
// read is back (onNotified), between frames.
func (c *Console) notifySettled() tea.Cmd {
	if len(c.verdict.notify) == 0 || !c.judging() {
		return nil
	}
	var cmds []tea.Cmd
	for key := range c.verdict.notify {
		r, ok := c.fleet.RowByKey(key)
		if !ok || !r.Settled() {
			continue
		}
		id := r.ActionID
		j, ctx, note := c.judgeOf(r.Context), c.ctx, c.opts.Notification
		if as := c.opts.NotificationAs; as != nil && r.Context != "" {
			name := r.Context + "/" + id // the row's context names it too
			note = func(a *model.Action) string { return as(name, a) }
		}
		if j == nil {
			continue
		}
		delete(c.verdict.notify, key)
		cmds = append(cmds, func() tea.Msg {
			a, jg := j.Review(ctx, id)
			if a == nil {
				a = model.NewAction(id) // unreadable: the notification says so much
			}
			return notifiedMsg{key: key, id: id, bytes: note(a), j: jg}
		})
	}
	return tea.Batch(cmds...)
}

// onNotified sends a notification's bytes and shows its verdict.
func (c *Console) onNotified(m notifiedMsg) tea.Cmd {
	if !m.j.Live {
		c.verdict.words[m.key] = m.j.Word
	}
	c.note = "notified: " + render.Line(m.id) + " settled"
	c.refresh()
	return tea.Raw(m.bytes)
}

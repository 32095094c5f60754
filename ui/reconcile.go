package ui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/render"
)

// ReconcileFunc is the R key (design §8). Called in Update, it must be
// pure: it looks at the settled model and returns what it would read (for
// the confirmation, e.g. "response_get of resp_…") and the read itself, a
// closure that holds no part of the model and runs in a command. A nil
// read means there is nothing to reconcile (what then says why). The read
// returns one line: the stored status and what it means.
type ReconcileFunc func(a *model.Action) (what string, read func(ctx context.Context) string)

// reconcileState is the R key's state.
type reconcileState struct {
	pending bool // the confirmation is shown
	what    string
	read    func(ctx context.Context) string
	busy    bool   // the read is in flight
	line    string // the last read's outcome, shown beside the verdict
}

// reconciledMsg: the read returned.
type reconciledMsg struct{ line string }

// askReconcile is R in the normal mode.
func (m *Live) askReconcile() tea.Cmd {
	switch {
	case m.opts.Reconcile == nil || m.opts.Replay:
		m.setNotice("reconcile needs a live aipd (not a replay): aipwatch reconcile ACTION_ID", false)
	case !m.action.Settled():
		m.setNotice("reconcile reads the stored state once the action has settled", false)
	case !m.runDone():
		// Settled but not read whole: asked now, R would miss what the log
		// still holds (its response.id); the confirmation follows the read.
		m.reconcileOnSettle = true
		m.setNotice("reconcile: reading the action first, then the confirmation", true)
	case m.rec.busy:
		m.setNotice("the reconcile read is in flight", false)
	default:
		what, read := m.opts.Reconcile(m.action)
		if read == nil {
			m.setNotice(what, false)
			return nil
		}
		m.rec = reconcileState{pending: true, what: what, read: read, line: m.rec.line}
		m.mode = ModeConfirm
		m.relayout()
	}
	return nil
}

// AskReconcileOnceSettled is R as soon as the action has settled and has
// been read: now, if it has (the console's R on a row: the same
// confirmation as the live view's R).
func (m *Live) AskReconcileOnceSettled() tea.Cmd {
	m.changed()
	if m.reconcileReady() && m.mode == ModeNormal {
		return m.askReconcile()
	}
	m.reconcileOnSettle = true
	return nil
}

// reconcileReady: the action has settled and its run is over, so the
// model holds all that R plans from. A review reads the status first (a
// cancelled, expired or dead-lettered action is settled by it alone) and
// the log after: planned in between, R found no response.id that the
// header showed a moment later.
func (m *Live) reconcileReady() bool { return m.action.Settled() && m.runDone() }

// onReconcileConfirm is y / n while the R confirmation is shown.
func (m *Live) onReconcileConfirm(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case msg.String() == "y":
		m.mode, m.rec.pending, m.rec.busy = ModeNormal, false, true
		m.setNotice("reconcile: reading the stored state ("+render.Line(m.rec.what)+")", true)
		m.relayout()
		read, ctx := m.rec.read, m.run.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		return m.tag(func() tea.Msg { return reconciledMsg{line: read(ctx)} })
	case key.Matches(msg, k.No):
		m.mode, m.rec.pending = ModeNormal, false
		m.setNotice("not reconciled: nothing was submitted", true)
		m.relayout()
	}
	return nil
}

func (m *Live) onReconciled(msg reconciledMsg) {
	m.rec.busy, m.rec.line = false, msg.line
	m.action.Log(model.Happening{At: m.clock(), Kind: model.HapReconcile, Detail: msg.line})
	m.setNotice(msg.line, true)
}

// reconcilePrompt is R's confirmation, longest first (promptLines keeps
// the longest that fits): the key to press always stays in it.
func (m *Live) reconcilePrompt() []string {
	what := render.Line(m.rec.what)
	return []string{
		fmt.Sprintf("Reconcile: submit one read-only AIP action (%s) to read the stored state? "+
			"It creates a new action on aipd; the verdict does not change. y submits it, n or esc submits nothing.", what),
		fmt.Sprintf("Reconcile: submit one read-only action (%s)? It creates a new action on aipd. y / n", what),
		"Submit one read-only reconcile action? y / n",
	}
}

// ReconcileLine is the last reconcile read's outcome ("" = none), for the
// closing lines.
func (m *Live) ReconcileLine() string { return m.rec.line }

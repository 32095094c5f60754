package ui

import tea "charm.land/bubbletea/v2"

// Tell me when it settles (design §10): with --notify, or once n asked
// for it, the terminal is sent Options.Notification (the bell and a
// desktop notification of the verdict line) when the action settles,
// once. The bytes go out as a command (tea.Raw), between frames, never
// from Update itself.

// notifyCmd is the notification once the action has settled and one was
// asked for; nil otherwise. It disarms: one notification an action.
func (m *Live) notifyCmd() tea.Cmd {
	if !m.notifyArmed || m.opts.Notification == nil || !m.action.Settled() {
		return nil
	}
	m.notifyArmed = false
	if m.opts.NotifyHint != "" {
		m.setNotice(m.opts.NotifyHint, true)
	} else {
		m.setNotice("notified: the action settled", true)
	}
	return tea.Raw(m.opts.Notification(m.action))
}

// toggleNotify is n: ask for the notification, or no longer. With no
// terminal to notify, or nothing left to wait for, n is off (the help
// leaves it out, KeyMap.For) and does nothing.
func (m *Live) toggleNotify() {
	if m.opts.Notification == nil || m.action.Settled() || m.stopped() {
		return
	}
	m.notifyArmed = !m.notifyArmed
	if m.notifyArmed {
		m.setNotice("will ring and notify when the action settles (n: not)", true)
	} else {
		m.setNotice("no notification when it settles", true)
	}
}

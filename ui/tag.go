package ui

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// A live view is a component that several hosts run, more than one at once
// (the split view, the console that opens and closes them): each of its
// commands tags the message it makes with the view's ID, where the command
// is made (tag), so a host routes a message to the view it belongs to by
// its ID alone, and a message of a view closed meanwhile reaches no other
// view. The ID never changes once the view is made: a command's goroutine
// reads nothing a later Update writes.

// ViewID names one live view for the program's whole run: no two views
// made by one process share one.
type ViewID uint64

var lastViewID atomic.Uint64

func newViewID() ViewID { return ViewID(lastViewID.Add(1)) }

// ViewMsg is a message of a live view's command, for that view only. Its
// host gives it to the view whose ID it names (Live.Update), and drops it
// when that view is gone. One of a Gather's ID carries several views'
// messages, each a ViewMsg of its own (Gather.Parts).
type ViewMsg struct {
	ID  ViewID
	msg tea.Msg
}

// ID is the view's identity, the one its messages carry.
func (m *Live) ID() ViewID { return m.id }

// tag wraps one command of the view, whose message is the view's own (never
// a batch, never the runtime's: those pass untagged), so that the message
// comes back as a ViewMsg naming the view.
func (m *Live) tag(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	id := m.id
	return func() tea.Msg {
		msg := cmd()
		if msg == nil {
			return nil
		}
		return ViewMsg{ID: id, msg: msg}
	}
}

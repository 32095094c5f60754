package ui

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// guard wraps the program model so that a bug in Update or View ends the
// program through its normal exit: the terminal is restored and Run
// returns an internal error, which main reports on one line with the
// resume command. Bubble Tea's own panic handler would print the panic
// value (untrusted text could be in it) and a full stack instead.
type guard struct {
	m        tea.Model // the program shell (shell.go) of a screen
	panicked *atomic.Bool
	quit     func()
}

func (g guard) Init() tea.Cmd { return g.m.Init() }

func (g guard) Update(msg tea.Msg) (res tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.panicked.Store(true)
			res, cmd = g, tea.Quit
		}
	}()
	_, cmd = g.m.Update(msg)
	return g, cmd
}

func (g guard) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			g.panicked.Store(true)
			v = tea.NewView("")
			if g.quit != nil {
				go g.quit() // View cannot return a command; Quit only sends a message
			}
		}
	}()
	if g.panicked.Load() {
		return tea.NewView("")
	}
	return g.m.View()
}

// errInternal is what Run returns after a caught panic.
var errInternal = &stream.Error{Op: "internal", Message: "internal error in the viewer (the action keeps running)"}

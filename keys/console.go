package keys

import "charm.land/bubbles/v2/key"

// ConsoleKeyMap is the operator console's list (contract §7). In the live
// view opened from it, the live view's own keys apply, and Back returns to
// the list.
type ConsoleKeyMap struct {
	Open, Back, Filter, States, Refresh, Cancel, Reconcile, Quit key.Binding
}

// NewConsoleKeyMap returns the console's bindings with their help texts.
func NewConsoleKeyMap() ConsoleKeyMap {
	return ConsoleKeyMap{
		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "follow the action")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the list (detach, never cancel)")),
		Filter:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by ID, capability or state")),
		States:    key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", "all, live, settled, failed")),
		Refresh:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read the list now")),
		Cancel:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel (the live view's confirmation)")),
		Reconcile: key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reconcile")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
	}
}

package model

import "time"

// Happening is one entry of the connection timeline: connected, reconnecting,
// resumed, the terminal frame, the result, a cancel. Exports and the TUI
// show it; it never decides anything.
type Happening struct {
	At   time.Time
	What string
}

// Log appends to the timeline.
func (a *Action) Log(at time.Time, what string) {
	a.timeline = append(a.timeline, Happening{At: at, What: what})
	a.Version++
}

// Timeline returns the connection timeline in order.
func (a *Action) Timeline() []Happening { return a.timeline }

package ui

import "time"

// FrameKey is everything a live view's frame depends on: its state as of
// its last change (every Update, resize and host call that changes it
// counts one), its size, and the clock in the steps its screen shows time
// in. Two frames drawn under one key differ at most in the time they
// show, by less than a step (clockStep), so a host that draws several
// views (the split view's panes, design §12) keeps a view's block and
// draws it again only when the key changed.
type FrameKey struct {
	version       uint64
	width, height int
	step          time.Duration // 0: nothing on the screen moves with the clock
	tick          int64         // the clock in steps
}

// FrameKey is the key of the frame View would draw now, at the view's
// size.
func (m *Live) FrameKey() FrameKey {
	k := FrameKey{version: m.version, width: m.width, height: m.height, step: m.clockStep()}
	if k.step > 0 {
		k.tick = m.clock().UnixNano() / int64(k.step)
	}
	return k
}

// changed counts a change of what the view shows (FrameKey): every method
// that changes its state calls it.
func (m *Live) changed() { m.version++ }

// clockStep is the step in which the screen follows the clock, the
// tick's (tickEvery: tenths of a second while a spinner turns, else
// seconds: the elapsed time, the last byte's age, countdowns); 0 once
// nothing moves with it (idle: the tick has stopped too). What a frame
// shows of the time lags the clock by less than a step, as it does
// between two ticks in the view of one action.
func (m *Live) clockStep() time.Duration {
	if m.idle() {
		return 0
	}
	return m.tickEvery()
}

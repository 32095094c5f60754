package model

import "time"

// ConnPhase is where the run's connection to aipd is.
type ConnPhase int

const (
	ConnConnecting   ConnPhase = iota // nothing connected yet
	ConnLive                          // a follow connection is open
	ConnReconnecting                  // it was lost: the next try is Wait after Since
	ConnDraining                      // the terminal frame arrived: draining, then the result (read from Action.TerminalFrameSeen)
	ConnOver                          // the run is over (done, or an error)
)

// Connection is the state of the run's connection to aipd: its phase,
// attempts, resumes, the last sign of life, how it ended. stream.Apply
// sets it in the same switch that logs the timeline, so a consumer (the
// TUI's status bar) reads it here instead of switching on the stream's
// messages a second time. It never decides the verdict. Its times are the
// ones Apply passes: a message's own, or the consumer's clock for a live
// message (the model reads no clock).
type Connection struct {
	Phase   ConnPhase
	Attempt int           // the open connection's attempt, or the next one's (1 is the first)
	Wait    time.Duration // Reconnecting: the wait before the next try, from Since
	Cause   string        // Reconnecting: why the connection was lost (untrusted, one line after sanitising)
	Since   time.Time     // when the connection opened (Live) or was lost (Reconnecting)
	Resumes int           // connections that resumed after a loss or from a cursor
	// FirstData and LastData: when the first data (a batch or a sign of
	// life) arrived, and the latest; a replay's are the recording's times.
	FirstData, LastData time.Time
	// LastLive: the latest sign of life, data or a connection opening, on
	// the consumer's clock (a replay's too).
	LastLive time.Time
	Review   bool  // the action had settled when aipwatch attached: a review, no live follow
	Answered bool  // aipd answered: a status read, the mode, a connection, data, the terminal frame or the result
	Err      error // why following stopped (nil: it did not fail)
	Done     bool  // the run is over: nothing follows
}

// Connection returns the connection's state. Once the terminal frame
// came (TerminalFrameSeen, its one record) a run that is not over is
// draining, then reading the result.
func (a *Action) Connection() Connection {
	c := a.conn
	if a.TerminalFrameSeen && c.Phase != ConnOver {
		c.Phase = ConnDraining
	}
	return c
}

// ConnAnswered records that aipd answered.
func (a *Action) ConnAnswered() { a.conn.Answered = true }

// ConnReview records how the action is read: a review of a settled
// action, or a live follow. It is the first thing a run says, so it also
// starts the run: a failure of a run before it no longer stands (a replay
// of a recording that a resumed run appended to holds both runs, and the
// later one goes on where the failed one stopped).
func (a *Action) ConnReview(review bool) {
	c := &a.conn
	c.Review = review
	if c.Err != nil {
		c.Err = nil
		c.Phase = ConnConnecting
	}
}

// ConnOpened records a follow connection opened at at: attempt, resumed
// (from a cursor). One opened after a loss, or resumed, counts as a
// resume, and it says so: the one rule for the count and the timeline.
func (a *Action) ConnOpened(attempt int, resumed bool, at time.Time) (resume bool) {
	c := &a.conn
	resume = c.Phase == ConnReconnecting || resumed
	if resume {
		c.Resumes++
	}
	c.Phase, c.Attempt, c.Since, c.LastLive = ConnLive, attempt, at, at
	return resume
}

// ConnLost records the connection lost at at: attempt is tried after wait.
func (a *Action) ConnLost(attempt int, wait time.Duration, cause string, at time.Time) {
	c := &a.conn
	c.Phase, c.Attempt, c.Wait, c.Cause, c.Since = ConnReconnecting, attempt, wait, cause, at
}

// ConnRetryNow records that the next try was asked for now: no wait is
// left (the operator's retry key).
func (a *Action) ConnRetryNow() { a.conn.Wait = 0 }

// ConnData records data or a sign of life: at is the message's own time
// (a replay's are the recording's), arrived the consumer's clock when it
// was applied. LastLive follows arrived, as a connection's opening does:
// it is read against the consumer's clock ("last byte N ago"), and a
// replay's recorded times made that age grow while chunks streamed in.
func (a *Action) ConnData(at, arrived time.Time) {
	c := &a.conn
	if c.FirstData.IsZero() {
		c.FirstData = at
	}
	if at.After(c.LastData) {
		c.LastData = at
	}
	if arrived.After(c.LastLive) {
		c.LastLive = arrived
	}
}

// ConnFailed records that following cannot go on, because of err.
func (a *Action) ConnFailed(err error) { a.conn.Phase, a.conn.Err = ConnOver, err }

// ConnDone records that the run is over.
func (a *Action) ConnDone() { a.conn.Phase, a.conn.Done = ConnOver, true }

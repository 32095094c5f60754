package model

import (
	"testing"
	"time"
)

// The connection's setters: a resume is counted after a loss or from a
// cursor; data keeps the first and the latest time; opening a connection
// is a sign of life at its own time; the retry key ends the wait.
func TestConnectionState(t *testing.T) {
	a := NewAction("act_1")
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if a.ConnOpened(1, false, t0) {
		t.Fatal("the first connection is no resume")
	}
	a.ConnData(t0.Add(2*time.Second), t0.Add(2*time.Second))
	a.ConnData(t0.Add(time.Second), t0.Add(time.Second)) // late: not the latest
	c := a.Connection()
	if c.Phase != ConnLive || c.Resumes != 0 || !c.FirstData.Equal(t0.Add(2*time.Second)) || !c.LastData.Equal(t0.Add(2*time.Second)) ||
		!c.LastLive.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("live: %+v", c)
	}
	a.ConnLost(2, 5*time.Second, "reset", t0.Add(3*time.Second))
	a.ConnRetryNow()
	if c := a.Connection(); c.Phase != ConnReconnecting || c.Wait != 0 || c.Attempt != 2 || c.Cause != "reset" {
		t.Fatalf("retry now: %+v", c)
	}
	if !a.ConnOpened(2, false, t0.Add(4*time.Second)) { // after the loss
		t.Fatal("a connection after a loss is a resume")
	}
	if !a.ConnOpened(3, true, t0.Add(time.Second)) { // resumed from a cursor: counted, and its time is the last sign of life
		t.Fatal("a connection from a cursor is a resume")
	}
	if c := a.Connection(); c.Resumes != 2 || c.Attempt != 3 || !c.LastLive.Equal(t0.Add(time.Second)) {
		t.Fatalf("resumes: %+v", c)
	}
	a.MarkTerminalFrame()
	if c := a.Connection(); c.Phase != ConnDraining {
		t.Fatalf("drain: %+v", c)
	}
	v := a.Version
	a.ConnDone()
	if c := a.Connection(); c.Phase != ConnOver || !c.Done || c.Err != nil || a.Version != v {
		t.Fatalf("done: %+v (version %d, was %d: the connection draws no transcript)", c, a.Version, v)
	}
}

// The terminal frame is stored once (TerminalFrameSeen): the phase, the
// connection's draining and the live verdict all read it, so they cannot
// disagree, however it was set; a stop wins over it, an end of the run
// too.
func TestTerminalFrameIsOneFact(t *testing.T) {
	a := NewAction("act_t")
	a.ConnOpened(1, false, t0)
	a.TerminalFrameSeen = true // as a record or a replay might restore it
	if a.Phase() != PhaseAwaitingResult || a.Connection().Phase != ConnDraining || a.Verdict().Word != LiveAwaitingResult {
		t.Fatalf("phase %v, connection %v, verdict %q", a.Phase(), a.Connection().Phase, a.Verdict().Word)
	}
	a.ConnDone()
	if a.Connection().Phase != ConnOver {
		t.Fatalf("a run that is over is not draining: %v", a.Connection().Phase)
	}
	a.Stop()
	if a.Phase() != PhaseStopped || a.Verdict().Word != VerdictPending {
		t.Fatalf("after a stop: phase %v, verdict %q", a.Phase(), a.Verdict().Word)
	}
}

package stream

import (
	"fmt"
	"time"

	"aipwatch/model"
)

// Apply folds one message into the model. It is the single route from the
// wire to the domain state, shared by the TUI, plain, jsonl and replays
// (output.Feed applies a batch through ApplyBatch); it reports whether the
// model changed.
func Apply(a *model.Action, m Msg) bool {
	switch m := m.(type) {
	case BatchMsg:
		return ApplyBatch(a, m, nil)
	case CursorMsg:
		a.SetCursor(m.Cursor)
	case TerminalMsg:
		a.SetCursor(m.Cursor)
		a.MarkTerminalFrame()
		a.Log(stamp(m.At), "stream terminal frame")
	case ResultMsg:
		a.SetResult(m.Result)
		a.Log(stamp(m.At), "result "+m.Result.Status)
	case StatusMsg:
		a.SetStatus(m.Status)
	case CancelMsg:
		if m.Accepted {
			a.CancelAccepted()
			a.Log(stamp(m.At), "cancel accepted")
		} else if m.Err != nil {
			a.CancelFailed(m.Err.Error())
			a.Log(stamp(m.At), "cancel failed: "+m.Err.Error())
		}
	case ModeMsg:
		if m.Review {
			a.Log(stamp(m.At), "review of a settled action")
		}
	case ConnectedMsg:
		if m.Resumed {
			a.Log(stamp(m.At), fmt.Sprintf("resumed (attempt %d) from %s", m.Attempt, m.Cursor))
		} else {
			a.Log(stamp(m.At), "connected")
		}
	case ReconnectingMsg:
		a.Log(stamp(m.At), fmt.Sprintf("reconnecting %d in %s: %s", m.Attempt, m.Wait.Round(time.Millisecond), m.Cause))
	case RestartMsg:
		a.Log(stamp(m.At), "cursor refused ("+m.Code+"): following again from the beginning")
	case NoRecordMsg:
		a.Log(stamp(m.At), NoRecordLine(m))
	case CursorFreeMsg:
		a.Log(stamp(m.At), CursorFreeLine(m))
	case ResultWaitMsg:
		a.Log(stamp(m.At), ResultWaitLine(m))
	case UnsettledMsg:
		a.MarkUnsettled(m.Reason)
		a.Log(stamp(m.At), "unsettled: "+m.Reason)
	case SubmitMsg:
		a.Log(stamp(m.At), "submit: "+m.Note)
	case BadFrameMsg:
		// An undecodable chunk is an anomaly and a conflict (contract §3);
		// other undecodable frames only go to the connection log.
		if n := m.LostChunks(); n > 0 {
			a.UndecodableChunk(n, m.Reason)
		}
		a.Log(time.Now(), "skipped an undecodable frame: "+m.Reason)
	case ErrorMsg:
		if m.Err != nil {
			a.Log(stamp(m.At), "error: "+m.Err.Error())
		}
	default:
		return false
	}
	return true
}

// ApplyBatch is Apply of a batch: its events, then its chunks in order;
// after each chunk it calls each (nil = nothing), so that a line printer
// reports what that chunk changed in AIP sequence order (a tool completing
// between two deltas prints between them). It reports whether the batch
// held anything.
func ApplyBatch(a *model.Action, b BatchMsg, each func()) bool {
	for _, e := range b.Events {
		a.IngestEvent(e)
	}
	for _, c := range b.Chunks {
		a.IngestChunk(c, b.At)
		if each != nil {
			each()
		}
	}
	return len(b.Events)+len(b.Chunks) > 0
}

// stamp is a message's time, or now for a live message that carries none.
func stamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// The operator's lines for the run's daemon-specific turns, one wording for
// the plain output, the TUI and the connection log.

// NoRecordLine says that the action is followed although aipd has no record.
func NoRecordLine(m NoRecordMsg) string {
	return "aipd has no record of " + m.ActionID + " yet: waiting for its first event (at most " + m.AppearTimeout.String() + ")"
}

// CursorFreeLine says, once, that the run reads without cursors from now on.
func CursorFreeLine(m CursorFreeMsg) string {
	return "aipd refuses its own cursors (" + m.Code + "): reading the action without cursors from now on"
}

// ResultWaitLine says that the result is read again, and when.
func ResultWaitLine(m ResultWaitMsg) string {
	return fmt.Sprintf("result not ready (%s): read %d in %s", m.Code, m.Attempt, m.Wait.Round(time.Millisecond))
}

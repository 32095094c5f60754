package stream

import (
	"time"

	"aipwatch/model"
)

// Apply folds one message into the model. It is the single route from the
// wire to the domain state, shared by the TUI, plain, jsonl and replays
// (output.Feed applies a batch through ApplyBatch): the evidence, the
// timeline (model.Happening) and the connection's state
// (model.Connection), so no consumer switches on the message again. It
// reports whether the model changed. A message that carries no time is
// stamped time.Now().
func Apply(a *model.Action, m Msg) bool { return ApplyAt(a, m, time.Now()) }

// ApplyAt is Apply with now as the time of a message that carries none
// (the TUI passes its clock, so that a scripted clock scripts the
// connection's times too).
func ApplyAt(a *model.Action, m Msg, now time.Time) bool {
	stamp := func(t time.Time) time.Time {
		if t.IsZero() {
			return now
		}
		return t
	}
	switch m := m.(type) {
	case BatchMsg:
		return applyBatch(a, m, nil, now)
	case CursorMsg:
		a.SetCursor(m.Cursor)
	case LivenessMsg:
		a.ConnData(stamp(m.At), now)
	case TerminalMsg:
		a.ConnAnswered()
		a.SetCursor(m.Cursor)
		a.MarkTerminalFrame() // the connection reads draining from it
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapTerminal, Cursor: m.Cursor})
	case ResultMsg:
		a.ConnAnswered()
		// An action whose store holds no chunk (the fleet, async or sync:
		// design §14) is read from its result's provider frames, through
		// IngestChunk as chunks are; chunks win when there are any.
		n := a.ReadResultEvents(m.Result)
		a.SetResult(m.Result)
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapResult, Status: m.Result.Status})
		if n > 0 {
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapNoLiveChunks, Frames: n})
		}
	case StatusMsg:
		a.ConnAnswered()
		a.SetStatus(m.Status)
	case CancelMsg:
		if m.Accepted {
			a.CancelAccepted()
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapCancel, Outcome: model.CancelAcceptedOutcome})
		} else if m.Err != nil {
			a.CancelFailed(m.Err.Error())
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapCancel, Outcome: model.CancelFailedOutcome, Detail: m.Err.Error()})
		}
	case ModeMsg:
		a.ConnAnswered()
		a.ConnReview(m.Review)
		if m.Review {
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapReview})
		}
	case ConnectedMsg:
		a.ConnAnswered()
		// The connection's times are the consumer's: a replayed
		// reconnect counts down on the clock it is replayed on.
		kind := model.HapConnected
		if a.ConnOpened(m.Attempt, m.Resumed, now) {
			kind = model.HapResumed
		}
		a.Log(model.Happening{At: stamp(m.At), Kind: kind, Attempt: m.Attempt, Cursor: m.Cursor})
	case ReconnectingMsg:
		a.ConnLost(m.Attempt, m.Wait, m.Cause, now)
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapReconnecting, Attempt: m.Attempt, Wait: m.Wait, Detail: m.Cause})
	case RestartMsg:
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapRestart, Code: m.Code})
	case NoRecordMsg:
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapNoRecord, Action: m.ActionID, Wait: m.AppearTimeout})
	case CursorFreeMsg:
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapCursorFree, Code: m.Code})
	case ResultWaitMsg:
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapResultWait, Code: m.Code, Attempt: m.Attempt, Wait: m.Wait})
	case UnsettledMsg:
		a.MarkUnsettled(m.Reason)
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapUnsettled, Detail: m.Reason, Wait: m.Stall})
	case SubmitMsg:
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapSubmit, Detail: m.Note})
	case BadFrameMsg:
		// An undecodable chunk is an anomaly and a conflict (design §3);
		// other undecodable frames only go to the connection log.
		if n := m.LostChunks(); n > 0 {
			a.UndecodableChunk(n, m.Reason)
		}
		a.Log(model.Happening{At: now, Kind: model.HapBadFrame, Detail: m.Reason})
	case ErrorMsg:
		var err error // no typed nil
		if m.Err != nil {
			err = m.Err
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapError, Code: m.Err.Code, Detail: m.Err.Error()})
		}
		a.ConnFailed(err)
	case DoneMsg:
		a.ConnDone()
	default:
		return false
	}
	return true
}

// ApplyBatch is Apply of a batch: its events, then its chunks in order;
// after each chunk it calls each (nil = nothing), so that a line printer
// reports what that chunk changed in AIP sequence order (a tool completing
// between two deltas prints between them). It reports whether the batch
// held anything. A batch is data from aipd (model.Connection), stamped
// time.Now() when it carries no time.
func ApplyBatch(a *model.Action, b BatchMsg, each func()) bool {
	return applyBatch(a, b, each, time.Now())
}

func applyBatch(a *model.Action, b BatchMsg, each func(), now time.Time) bool {
	at := b.At
	if at.IsZero() {
		at = now
	}
	a.ConnAnswered()
	a.ConnData(at, now)
	for _, e := range b.Events {
		a.IngestEvent(e)
	}
	for _, c := range b.Chunks {
		a.IngestChunk(c, at)
		if each != nil {
			each()
		}
	}
	return len(b.Events)+len(b.Chunks) > 0
}

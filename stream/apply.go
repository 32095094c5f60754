package stream

import (
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
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapTerminal, Cursor: m.Cursor})
	case ResultMsg:
		a.SetResult(m.Result)
		a.Log(model.Happening{At: stamp(m.At), Kind: model.HapResult, Status: m.Result.Status})
	case StatusMsg:
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
		if m.Review {
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapReview})
		}
	case ConnectedMsg:
		kind := model.HapConnected
		if m.Resumed {
			kind = model.HapResumed
		}
		a.Log(model.Happening{At: stamp(m.At), Kind: kind, Attempt: m.Attempt, Cursor: m.Cursor})
	case ReconnectingMsg:
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
		// An undecodable chunk is an anomaly and a conflict (contract §3);
		// other undecodable frames only go to the connection log.
		if n := m.LostChunks(); n > 0 {
			a.UndecodableChunk(n, m.Reason)
		}
		a.Log(model.Happening{At: time.Now(), Kind: model.HapBadFrame, Detail: m.Reason})
	case ErrorMsg:
		if m.Err != nil {
			a.Log(model.Happening{At: stamp(m.At), Kind: model.HapError, Code: m.Err.Code, Detail: m.Err.Error()})
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

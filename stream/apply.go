package stream

import "aipwatch/model"

// Apply folds one message into the model. It is the single route from the
// wire to the domain state, shared by the TUI and the plain outputs; it
// reports whether the model changed.
func Apply(a *model.Action, m Msg) bool {
	switch m := m.(type) {
	case BatchMsg:
		for _, e := range m.Events {
			a.IngestEvent(e)
		}
		for _, c := range m.Chunks {
			a.IngestChunk(c, m.At)
		}
		return len(m.Events)+len(m.Chunks) > 0
	case CursorMsg:
		a.SetCursor(m.Cursor)
	case TerminalMsg:
		a.SetCursor(m.Cursor)
		a.MarkTerminalFrame()
	case ResultMsg:
		a.SetResult(m.Result)
	case StatusMsg:
		a.SetStatus(m.Status)
	case CancelMsg:
		if m.Accepted {
			a.CancelAccepted()
		} else if m.Err != nil {
			a.CancelFailed(m.Err.Error())
		}
	default:
		return false
	}
	return true
}

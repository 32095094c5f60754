package sim

import (
	"net/http"
	"time"
)

// This file keeps the read-only actions the submission route answered
// (response_get, session_get; protocol §3 [C]: a read is an AIP action of its
// own, with a result and a queue record).

// readRec is one read that completed.
type readRec struct {
	id         string
	capability string
	at         time.Time
	output     obj
}

// keepRead records a completed read: a successful response_get is listed
// once it settles (protocol open point 5); a failed, rejected
// or replayed read is not, so only this path records one.
func (s *Server) keepRead(id, capability, scopedKey string, output obj) {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	s.sub.reads = append(s.sub.reads, readRec{id: id, capability: capability, at: time.Now().UTC(), output: output})
	if scopedKey != "" {
		if s.sub.readKeys == nil {
			s.sub.readKeys = map[string]int{}
		}
		s.sub.readKeys[scopedKey] = len(s.sub.reads) - 1
	}
}

// replayRead answers a read whose idempotency key completed a read before
// (§1.3, the connector's ReturnOriginalResult, which every Hermes
// capability declares): that read's result, marked as a replay, with its
// action_id (open point 2). It reports whether it answered.
func (s *Server) replayRead(w http.ResponseWriter, req *envelopeIn, scopedKey string, lg *SubmissionLog) bool {
	if scopedKey == "" {
		return false
	}
	s.sub.mu.Lock()
	i, ok := s.sub.readKeys[scopedKey]
	var r readRec
	if ok {
		r = s.sub.reads[i]
	}
	s.sub.mu.Unlock()
	if !ok {
		return false
	}
	lg.Replay = true
	lg.Reply = "result:completed"
	out := append(append(obj(nil), r.output...), kv{"idempotent_replay", true})
	s.writeReply(w, req, o("action_result", o("action_id", r.id, "status", "completed", "output", out)))
	return true
}

// readRows are the list rows of the completed reads (§2.1 ActionStatus).
func (s *Server) readRows() []listRow {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	rows := make([]listRow, 0, len(s.sub.reads))
	for _, r := range s.sub.reads {
		rows = append(rows, r.row())
	}
	return rows
}

// row is the read's ActionStatus: a settled sync action, its record
// written as it settled.
func (r readRec) row() listRow {
	at := r.at.Format(time.RFC3339Nano)
	base := "/aip/v1/actions/" + r.id
	return listRow{id: r.id, state: "completed", capability: r.capability, updated: r.at, v: o("action_id", r.id,
		"capability_id", r.capability, "state", "completed", "queued_state", "completed", "result_status", "completed",
		"started_at", at, "updated_at", at, "completed_at", at,
		"links", o("self", base, "result", base+"/result", "events", base+"/events", "chunks", base+"/chunks", "cancel", base+"/cancel"))}
}

// readRow is the status row of a completed read's ID, if id is one; the
// status and result routes answer for it as for any settled action.
func (s *Server) readRow(id string) (listRow, bool) {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	for _, r := range s.sub.reads {
		if r.id == id {
			return r.row(), true
		}
	}
	return listRow{}, false
}

// readResult is a completed read's stored result (unmarked: the replay
// mark is on submit replies only, open point 2).
func (s *Server) readResult(id string) obj {
	s.sub.mu.Lock()
	defer s.sub.mu.Unlock()
	for _, r := range s.sub.reads {
		if r.id == id {
			return o("action_id", r.id, "status", "completed", "output", r.output)
		}
	}
	return nil
}

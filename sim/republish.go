package sim

import "time"

// This file is what a settled action's ID gets when it is submitted again
// and the handler runs again (protocol open point 1): Hermes
// is called again, but the re-run's chunks restart at sequence 0 and the
// chunk store refuses them (connector error
// connector.hermes_agent.stream_publication, category connector).

// publicationErr is the re-run's handler error.
func publicationErr() *protoErr {
	return &protoErr{Code: "connector.hermes_agent.stream_publication",
		Message:  "Hermes endpoint `" + simEndpoint + "` AIP stream publication failed: stream chunk sequence 0 already exists",
		Category: "connector", Source: o("connector", "hermes-agent")} // protocol §8.3
}

// republishAsync is the async re-run (open point 1): the submission is
// acked and the in-memory queue holds a new queued record, while the old
// result is still what the action reads (action_lifecycle_state checks a
// dead-letter reason, then the result, then the queue, A7); when the worker
// runs it, the publication fails, and the action ends dead_lettered with
// the old result overwritten by the failed one. The old chunks stay. A
// second result for one action emits no new aip.action.result event
// (the spec's "Also" list).
func (s *Server) republishAsync() {
	s.mu.Lock()
	done := s.runDone
	s.mu.Unlock()
	<-done // the settled run's goroutine has returned
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.mode = ModeAsync
	s.republishing = true
	s.workerStarted = false
	// The new queue record replaces whatever the old run left: a sync
	// failure's lack of one (A3), an async cancel's (A1).
	s.handlerFailed, s.asyncCancelled, s.lateCancelled = false, false, false
	s.updatedAt = time.Now().UTC()
	s.settled, s.runDone = make(chan struct{}), make(chan struct{})
	settled, runDone := s.settled, s.runDone
	s.mu.Unlock()
	go func() {
		defer close(runDone)
		if d := s.scale(step{delay: queuedDelay}); d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-s.ctx.Done():
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.republishing = false
		s.workerStarted = true
		s.result, s.prev = &resultRec{status: "failed", err: publicationErr()}, nil
		s.updatedAt = time.Now().UTC()
		s.completedAt = s.updatedAt
		close(settled)
	}()
}

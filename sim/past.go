package sim

import (
	"iter"
	"slices"
	"time"
)

// PastRun stamps a Finished run as the daemon stamped it when it ran
// (protocol §7.1: each chunk's aip.stream.chunk Event carries occurred_at,
// the daemon's time of storing it; protocol §8.2: one chunk per provider
// frame, stored as the frame arrives), so that a review reads the turn's
// first token and duration as they were (design §13: the fleet's figures
// come from these times). The zero PastRun stamps every event of the run
// with the instant the server started, as a run that completed before
// anyone watched.
type PastRun struct {
	// End is the time of the run's last event (its result).
	End time.Time
	// Pace multiplies every scripted delay (a slower or faster provider);
	// 0 is 1.
	Pace float64
	// Think is the provider's time to its first content, between its
	// opening frame (Chat's role chunk, Responses' response.created) and
	// the next: the model thinking before it writes (protocol §9.2, §9.4).
	Think time.Duration
}

// pastDelay is how far a step moves the past run's clock: its scripted
// delay at the run's pace, and the thinking before the first content.
func (p PastRun) pastDelay(st step, i int) time.Duration {
	pace := p.Pace
	if pace <= 0 {
		pace = 1
	}
	d := time.Duration(float64(st.delay) * pace)
	if i == 1 {
		d += p.Think
	}
	return d
}

// stampPast returns the steps of a Finished run with the past run's
// clock moved before each (nowLocked reads it), having set the run's
// start so that its last step lands on End. A Finished script is finite
// (the endless ones stop after a bounded number of frames).
func (s *Server) stampPast(steps iter.Seq[step]) iter.Seq[step] {
	all := slices.Collect(steps)
	p := s.k.Past
	var total time.Duration
	for i, st := range all {
		total += p.pastDelay(st, i)
	}
	start := p.End.UTC().Add(-total)
	s.mu.Lock()
	s.virtual, s.virt = true, start
	s.startedAt, s.updatedAt = start, start
	if s.mode == ModeAsync {
		// Queued before a worker claimed it (protocol §1.2: the worker
		// loop polls every 250 ms).
		s.startedAt = start.Add(-queuedDelay)
	}
	s.mu.Unlock()
	return func(yield func(step) bool) {
		for i, st := range all {
			s.mu.Lock()
			s.virt = s.virt.Add(p.pastDelay(st, i))
			s.mu.Unlock()
			if !yield(st) {
				return
			}
		}
	}
}

// nowLocked is the daemon's time for an event the run stores now: the
// past run's clock when the run is stamped in the past (stampPast), else
// the wall clock. s.mu is held.
func (s *Server) nowLocked() time.Time {
	if s.virtual {
		return s.virt
	}
	return time.Now().UTC()
}

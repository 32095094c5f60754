package model

import (
	"encoding/json"
	"time"
)

// Pulse is what the console's pulse shows (design §13), kept over a
// recent window from what the console already reads, so it costs no read
// of its own: the chunk events of the global log it follows (AddEvents)
// and the settled rows it lists and judges (Settle). It does no I/O; the
// caller passes its clock.
//
// Times are aipd's (occurred_at, updated_at), so the figures do not move
// with this machine's clock; "now" on aipd's clock is the newest chunk's
// time plus the local time since it was read (Now).
//
// Memory is bounded whatever the daemon's history: a ring of PulseSteps,
// the settled rows of the window (at most pulseMaxSettled), and the last
// sequence of each action seen streaming in it (at most pulseMaxStreams).
type Pulse struct {
	counts [pulseSlots]int   // chunk events by step of aipd's clock
	slotOf [pulseSlots]int64 // the step each slot counts (step = unix seconds / PulseStep)
	last   map[string]pulseStream
	// settled are the settled rows by row key (ActionRow.Key).
	settled map[string]Judged
	// aipd's newest time read, and the local time it was read at.
	aipd, local time.Time
}

type pulseStream struct {
	seq  uint64 // the highest sequence counted
	step int64  // the step of its last chunk
}

// The pulse's window and resolution.
const (
	PulseWindow = 15 * time.Minute
	PulseStep   = 10 * time.Second // one cell of the chunk rate
	pulseSlots  = int(PulseWindow / PulseStep)
	// pulseLive is the span in which an action that sent a chunk counts
	// as streaming (PulseFigures.Active).
	pulseLive       = time.Minute
	pulseMaxSettled = 4096
	pulseMaxStreams = 4096
)

// NewPulse returns an empty pulse.
func NewPulse() *Pulse {
	return &Pulse{last: map[string]pulseStream{}, settled: map[string]Judged{}}
}

// AddEvents counts the chunk events of a batch of the global log read at
// now (the local clock). A chunk is counted once: an event whose sequence
// is not above the last one counted for its action (a replay after a
// reconnect, the window read again when the log is joined) is not.
func (p *Pulse) AddEvents(evs []Event, now time.Time) {
	for i := range evs {
		e := &evs[i]
		if e.Kind != chunkEventKind {
			continue
		}
		seq, ok := chunkEventSeq(e.Data)
		at, err := parseRFC3339(e.OccurredAt)
		if !ok || err != nil || at.Unix() <= 0 {
			continue
		}
		id := e.ActionID
		if id == "" {
			var d struct {
				ActionID string `json:"action_id"`
			}
			_ = json.Unmarshal(e.Data, &d) // no ID: not counted
			id = d.ActionID
		}
		if id == "" {
			continue
		}
		key := rowKey(e.Context, id)
		if s, seen := p.last[key]; seen && seq <= s.seq {
			continue
		}
		step := at.Unix() / int64(PulseStep/time.Second)
		if len(p.last) >= pulseMaxStreams {
			p.forgetStreams(step)
		}
		p.last[key] = pulseStream{seq: seq, step: step}
		p.count(step)
		if at.After(p.aipd) { // a chunk is stored as it streams: aipd's now
			p.aipd, p.local = at, now
		}
	}
}

// count adds one chunk to step's slot, unless the slot already counts a
// later step (the chunk is older than the window).
func (p *Pulse) count(step int64) {
	i := int(step % int64(pulseSlots))
	switch {
	case p.slotOf[i] == step:
		p.counts[i]++
	case p.slotOf[i] < step:
		p.slotOf[i], p.counts[i] = step, 1
	}
}

// forgetStreams drops the actions whose last chunk is older than the
// window before step; if that frees nothing, all of them (their next
// chunks are then counted again from their sequence).
func (p *Pulse) forgetStreams(step int64) {
	for k, s := range p.last {
		if step-s.step >= int64(pulseSlots) {
			delete(p.last, k)
		}
	}
	if len(p.last) >= pulseMaxStreams {
		clear(p.last)
	}
}

// Settle takes a settled row of the list (key: ActionRow.Key), judged or
// not yet (j.Verdict ""), read at now (the local clock); taken again once
// judged, it replaces the first. A row not judged does not replace the
// judgement of one judged (the list reads it again at every poll), only
// its row's fields. It reports whether the figures changed.
func (p *Pulse) Settle(key string, j Judged, now time.Time) bool {
	// A row settled some time before it is read: its time moves aipd's
	// clock only when the clock is behind it (aipd's clock ahead of this
	// machine's, and no chunk read to tell).
	if j.SettledAt.After(p.Now(now)) {
		p.aipd, p.local = j.SettledAt, now
	}
	old, ok := p.settled[key]
	if ok && j.Verdict == "" && old.Verdict != "" {
		// Read again, not judged again: the judgement stays, and the row's
		// own fields are the latest read (a synchronous action judged
		// while only the global log had shown it gets its capability once
		// it is listed).
		j.Verdict, j.Usage, j.Timing = old.Verdict, old.Usage, old.Timing
	}
	switch {
	case ok && old == j:
		return false
	case !ok && len(p.settled) >= pulseMaxSettled:
		p.forgetSettled(p.Now(now))
		if len(p.settled) >= pulseMaxSettled {
			return false // the window is full of rows still in it
		}
	}
	p.settled[key] = j
	return true
}

// forgetSettled drops the rows settled before the window that ends at now.
func (p *Pulse) forgetSettled(now time.Time) {
	for k, j := range p.settled {
		if now.Sub(j.SettledAt) > PulseWindow {
			delete(p.settled, k)
		}
	}
}

// Now is aipd's time at the local time now: the newest of aipd's times
// read, plus what has passed here since; now itself before any was read.
func (p *Pulse) Now(now time.Time) time.Time {
	switch {
	case p.aipd.IsZero():
		return now
	case now.Before(p.local):
		return p.aipd
	}
	return p.aipd.Add(now.Sub(p.local))
}

// PulseFigures are the pulse's figures at one time, each with what it is
// counted over.
type PulseFigures struct {
	// ChunkRate is chunks a second across the fleet, one figure a
	// PulseStep over the window, oldest first; the last is the step now
	// running, over the part of it gone by. Each chunk is one provider
	// frame (protocol §8.2): a token or a few of text, or an event.
	ChunkRate []float64
	// RateNow is chunks a second over the last full PulseStep.
	RateNow float64
	// Active is the actions that sent a chunk in the last minute.
	Active int
	// PerMinute is the settled rows judged in each minute of the window,
	// oldest first, by verdict (VerdictIndex); SettledPerMinute all the
	// settled rows of each minute, judged or not.
	PerMinute        []VerdictCounts
	SettledPerMinute []int
	// Settled is the settled rows of the window, Judged those judged,
	// NotVerified those judged anything but verified.
	Settled, Judged, NotVerified int
}

// VerdictCounts counts settled actions by verdict, in SettledVerdicts'
// order.
type VerdictCounts [len(SettledVerdicts)]int

// Figures are the pulse's figures at the local time now.
func (p *Pulse) Figures(now time.Time) PulseFigures {
	at := p.Now(now)
	var f PulseFigures
	stepSecs := int64(PulseStep / time.Second)
	cur := at.Unix() / stepSecs
	f.ChunkRate = make([]float64, pulseSlots)
	for k := range pulseSlots {
		step := cur - int64(pulseSlots-1-k)
		if step < 0 {
			continue
		}
		i := int(step % int64(pulseSlots))
		if p.slotOf[i] != step {
			continue
		}
		span := float64(stepSecs)
		if step == cur {
			span = max(1, float64(at.Unix()-cur*stepSecs+1)) // the part gone by
		}
		f.ChunkRate[k] = float64(p.counts[i]) / span
	}
	if n := len(f.ChunkRate); n >= 2 {
		f.RateNow = f.ChunkRate[n-2]
	}
	liveFrom := at.Add(-pulseLive).Unix() / stepSecs
	for _, s := range p.last {
		if s.step >= liveFrom {
			f.Active++
		}
	}

	minutes := int(PulseWindow / time.Minute)
	f.PerMinute, f.SettledPerMinute = make([]VerdictCounts, minutes), make([]int, minutes)
	for _, j := range p.settled {
		age := at.Sub(j.SettledAt)
		if !inWindow(age) {
			continue
		}
		f.Settled++
		m := max(0, minutes-1-int(max(age, 0)/time.Minute))
		f.SettledPerMinute[m]++
		if j.Verdict == "" {
			continue
		}
		f.Judged++
		if j.Verdict != VerdictVerified {
			f.NotVerified++
		}
		if v := VerdictIndex(j.Verdict); v >= 0 {
			f.PerMinute[m][v]++
		}
	}
	return f
}

// inWindow: a row settled age ago is in the window (one from a clock far
// ahead is not).
func inWindow(age time.Duration) bool { return age <= PulseWindow && age >= -time.Minute }

// Capabilities are the per-capability figures (Summarise) of the rows
// settled in the window at the local time now.
func (p *Pulse) Capabilities(now time.Time) []CapabilityStats {
	at := p.Now(now)
	rows := make([]Judged, 0, len(p.settled))
	for _, j := range p.settled {
		if inWindow(at.Sub(j.SettledAt)) {
			rows = append(rows, j)
		}
	}
	return Summarise(rows)
}

package model

import (
	"bytes"
	"strconv"
	"time"
)

// chunkEventKind is the Event aipd publishes with every chunk (aip-wire
// §6): data {action_id, sequence, kind}, and occurred_at, aipd's time.
const chunkEventKind = "aip.stream.chunk"

// noteChunkEvent records a chunk event's occurred_at as aipd's time for
// its chunk, the first time a sequence has one that parses. That time is
// all aipwatch reads of these events, so they are not kept in the event
// log: a firehose brings one a chunk, and keeping 100,000 of them (with an
// index of their ids) cost a tenth of its CPU and their memory (issue 16).
// The sequence is read with a scan, not a decode. It reports whether the
// event told something new.
func (a *Action) noteChunkEvent(e Event) bool {
	seq, ok := chunkEventSeq(e.Data)
	if !ok || e.OccurredAt == "" {
		return false
	}
	if _, known := a.occurred.get(seq); known {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, e.OccurredAt)
	if err != nil || t.IsZero() {
		return false
	}
	a.occurred.put(seq, t)
	return true
}

// chunkEventSeq reads "sequence": N from a chunk event's data.
func chunkEventSeq(data []byte) (uint64, bool) {
	i := bytes.Index(data, []byte(`"sequence"`))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(data[i+len(`"sequence"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return 0, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	seq, err := strconv.ParseUint(string(rest[:n]), 10, 64)
	return seq, err == nil && n > 0
}

// Occurred is aipd's time for a chunk: the occurred_at of its
// aip.stream.chunk event, when that event was read.
func (a *Action) Occurred(seq uint64) (time.Time, bool) { return a.occurred.get(seq) }

// ToolDuration is how long a tool ran. A finished tool whose first and
// completing chunks have aipd times (their events' occurred_at) is timed
// by them: exact in a review or a replay, where every chunk is read at
// once. Otherwise the locally measured Tool.Duration, running until now.
func (a *Action) ToolDuration(t *Tool, now time.Time) time.Duration {
	if !t.DoneAt.IsZero() {
		start, ok1 := a.Occurred(t.FirstSeq)
		done, ok2 := a.Occurred(t.DoneSeq)
		if ok1 && ok2 && !done.Before(start) {
			return done.Sub(start)
		}
	}
	return t.Duration(now)
}

// SeqTime is when a chunk happened: aipd's occurred_at when its event was
// read, else when aipwatch received it.
func (a *Action) SeqTime(seq uint64) (time.Time, bool) {
	if t, ok := a.Occurred(seq); ok {
		return t, true
	}
	if c, ok := a.chunks.get(seq); ok && !c.ReceivedAt.IsZero() {
		return c.ReceivedAt, true
	}
	return time.Time{}, false
}

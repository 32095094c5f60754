package model

import (
	"bytes"
	"math"
	"time"
)

// chunkEventKind is the Event aipd publishes with every chunk (protocol
// §7.1): data {action_id, sequence, kind}, and occurred_at, aipd's time.
const chunkEventKind = "aip.stream.chunk"

// noteChunkEvent records a chunk event's occurred_at as aipd's time for
// its chunk, the first time a sequence has one that parses. That time is
// all aipwatch reads of these events, so they are not kept in the event
// log: a firehose brings one a chunk, and keeping 100,000 of them (with an
// index of their ids) cost a tenth of its CPU and their memory.
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
	t, err := parseRFC3339(e.OccurredAt)
	if err != nil || t.IsZero() {
		return false
	}
	in := instant{sec: t.Unix(), nsec: int32(t.Nanosecond()), set: true}
	a.occurred.put(seq, in)
	a.noteOccurred(seq, in)
	return true
}

// instant is a time as its instant only, with no pointer (a time.Time
// holds its location's): one a chunk, so the index of them is neither
// scanned by the GC nor cleared pointer by pointer as it grows. Every
// reader of aipd's times shows them in local time or subtracts them, so
// the zone occurred_at was written in is not needed.
type instant struct {
	sec  int64
	nsec int32
	set  bool // the zero value is no time (1970-01-01T00:00:00Z is one)
}

func (t instant) time() time.Time { return time.Unix(t.sec, int64(t.nsec)).UTC() }

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
	if n == 0 || n > 20 {
		return 0, false
	}
	var seq uint64
	for _, c := range rest[:n] {
		d := uint64(c - '0')
		if seq > (math.MaxUint64-d)/10 {
			return 0, false // out of range, as ParseUint says
		}
		seq = seq*10 + d
	}
	return seq, true
}

// parseRFC3339 is time.Parse(time.RFC3339Nano, s), with the form aipd writes
// (UTC, "Z", up to nine digits of fraction) read by hand: a chunk event
// brings one, and time.Parse was most of the cost of reading them. Any
// other form goes to time.Parse.
func parseRFC3339(s string) (time.Time, error) {
	// 2006-01-02T15:04:05Z, or with .fraction before the Z.
	if len(s) < 20 || len(s) > 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return time.Parse(time.RFC3339Nano, s)
	}
	num := func(a, b int) (int, bool) {
		v := 0
		for _, c := range []byte(s[a:b]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	ns := 0
	ok7 := true
	switch frac := s[19 : len(s)-1]; {
	case frac == "":
	case len(frac) < 2 || frac[0] != '.':
		ok7 = false
	default:
		ns, ok7 = num(20, len(s)-1)
		for range 9 - (len(frac) - 1) {
			ns *= 10
		}
	}
	// Out-of-range fields (month 13, 25 o'clock, Feb 30, ...) are
	// time.Parse's to refuse; time.Date would normalise them instead.
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || sec > 59 {
		return time.Parse(time.RFC3339Nano, s)
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC), nil
}

// daysIn is the number of days of month mo (1–12) of year y.
func daysIn(mo, y int) int {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Occurred is aipd's time for a chunk: the occurred_at of its
// aip.stream.chunk event, when that event was read.
func (a *Action) Occurred(seq uint64) (time.Time, bool) {
	t, ok := a.occurred.get(seq)
	if !ok {
		return time.Time{}, false
	}
	return t.time(), true
}

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

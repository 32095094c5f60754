package model

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// pt0 is aipd's time at the start of a pulse test: a step's start.
var pt0 = time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)

func chunkEv(ctx, id string, seq int, at time.Time) Event {
	return Event{Kind: chunkEventKind, ActionID: id, Context: ctx, OccurredAt: at.Format(time.RFC3339Nano),
		Data: []byte(`{"action_id":"` + id + `","sequence":` + strconv.Itoa(seq) + `,"kind":"delta"}`)}
}

func TestPulseChunkRate(t *testing.T) {
	p := NewPulse()
	var evs []Event
	// 20 chunks in the step before last (2 a second), 5 in the last one
	// (the one running), of two actions.
	for i := range 20 {
		evs = append(evs, chunkEv("", "act_a", i, pt0.Add(time.Duration(i)*400*time.Millisecond)))
	}
	for i := range 5 {
		evs = append(evs, chunkEv("", "act_b", i, pt0.Add(10*time.Second+time.Duration(i)*time.Second)))
	}
	// A replay of chunks already counted, and events that are no chunk.
	evs = append(evs, chunkEv("", "act_a", 3, pt0), chunkEv("", "act_a", 19, pt0.Add(8*time.Second)),
		Event{Kind: "aip.action.result", ActionID: "act_a", OccurredAt: pt0.Format(time.RFC3339Nano)})
	local := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // this machine's clock, far from aipd's
	p.AddEvents(evs, local)

	f := p.Figures(local) // aipd's now: the newest chunk, pt0+14s
	if len(f.ChunkRate) != int(PulseWindow/PulseStep) {
		t.Fatalf("%d steps, want %d", len(f.ChunkRate), PulseWindow/PulseStep)
	}
	n := len(f.ChunkRate)
	if f.ChunkRate[n-2] != 2 || f.RateNow != 2 {
		t.Errorf("the full step: %v chunks/s, now %v; want 2", f.ChunkRate[n-2], f.RateNow)
	}
	if f.ChunkRate[n-1] != 1 { // 5 chunks in the 5 seconds of the step gone by
		t.Errorf("the step running: %v chunks/s, want 1", f.ChunkRate[n-1])
	}
	for i, r := range f.ChunkRate[:n-2] {
		if r != 0 {
			t.Fatalf("step %d: %v chunks/s before any chunk", i, r)
		}
	}
	if f.Active != 2 {
		t.Errorf("%d streaming, want 2", f.Active)
	}

	// Time goes by on this machine: aipd's clock follows it, and the
	// chunks leave the window.
	later := p.Figures(local.Add(2 * time.Minute))
	if later.RateNow != 0 || later.Active != 0 {
		t.Errorf("two minutes later: %v chunks/s, %d streaming", later.RateNow, later.Active)
	}
	if later.ChunkRate[n-2-12] != 2 {
		t.Errorf("the step two minutes back: %v, want 2", later.ChunkRate[n-2-12])
	}
	gone := p.Figures(local.Add(PulseWindow + time.Minute))
	for i, r := range gone.ChunkRate {
		if r != 0 {
			t.Fatalf("after the window, step %d: %v", i, r)
		}
	}
}

// The same ID on two contexts' daemons is two actions (design §9).
func TestPulseChunksByContext(t *testing.T) {
	p := NewPulse()
	p.AddEvents([]Event{chunkEv("east", "act_a", 0, pt0), chunkEv("west", "act_a", 0, pt0)}, pt0)
	if f := p.Figures(pt0.Add(PulseStep)); f.Active != 2 || f.RateNow != 0.2 {
		t.Errorf("%d streaming at %v chunks/s, want 2 at 0.2", f.Active, f.RateNow)
	}
}

func TestPulseSettled(t *testing.T) {
	p := NewPulse()
	settle := func(key, verdict string, ago time.Duration) {
		p.Settle(key, Judged{CapabilityID: capChat, Verdict: verdict, SettledAt: pt0.Add(-ago),
			Timing: TurnTiming{FirstTokenMS: 400, HasFirstToken: true}}, pt0)
	}
	settle("a", VerdictVerified, 10*time.Second)
	settle("b", VerdictFailed, 20*time.Second)
	settle("c", VerdictFailed, 90*time.Second)
	settle("d", "", 30*time.Second) // not judged yet
	settle("e", VerdictVerified, PulseWindow+time.Second)
	settle("f", "unknown", 5*time.Second)
	settle("d", VerdictPartial, 30*time.Second) // judged now: replaces it

	f := p.Figures(pt0)
	if f.Settled != 5 || f.Judged != 5 || f.NotVerified != 4 {
		t.Errorf("settled %d judged %d not verified %d; want 5 5 4", f.Settled, f.Judged, f.NotVerified)
	}
	m := len(f.PerMinute)
	if m != int(PulseWindow/time.Minute) {
		t.Fatalf("%d minutes", m)
	}
	if got := f.SettledPerMinute[m-5:]; !slices.Equal(got, []int{0, 0, 0, 1, 4}) {
		t.Errorf("settled by minute %v", got)
	}
	want := VerdictCounts{}
	want[VerdictIndex(VerdictVerified)], want[VerdictIndex(VerdictFailed)], want[VerdictIndex(VerdictPartial)] = 1, 1, 1
	if f.PerMinute[m-1] != want {
		t.Errorf("the last minute %v, want %v", f.PerMinute[m-1], want)
	}
	want = VerdictCounts{}
	want[VerdictIndex(VerdictFailed)] = 1
	if f.PerMinute[m-2] != want {
		t.Errorf("the minute before %v, want %v", f.PerMinute[m-2], want)
	}
	if c := p.Capabilities(pt0); len(c) != 1 || c[0].Actions != 5 || c[0].FirstToken.N != 5 {
		t.Errorf("capabilities %+v", c)
	}
	// Read again by the next poll, not judged: the judged row stays, and
	// nothing changed.
	if p.Settle("d", Judged{CapabilityID: capChat, SettledAt: pt0.Add(-30 * time.Second)}, pt0) {
		t.Error("a row read again unjudged changed the figures")
	}
	if p.Settle("a", Judged{CapabilityID: capChat, Verdict: VerdictVerified, SettledAt: pt0.Add(-10 * time.Second),
		Timing: TurnTiming{FirstTokenMS: 400, HasFirstToken: true}}, pt0) {
		t.Error("the same judgement again changed the figures")
	}
	if f := p.Figures(pt0); f.Judged != 5 {
		t.Errorf("%d judged after the rows were read again", f.Judged)
	}
}

// design §13: whatever the history, the pulse keeps at most 4,096 actions
// streaming and 4,096 settled rows (written as the design writes it, not
// read from the code's constants).
func TestPulseBounded(t *testing.T) {
	const bound = 4096
	p := NewPulse()
	for i := range 3 * bound {
		at := pt0.Add(time.Duration(i) * time.Second)
		p.AddEvents([]Event{chunkEv("", "act_"+strconv.Itoa(i), 0, at)}, at)
		p.Settle(strconv.Itoa(i), Judged{Verdict: VerdictVerified, SettledAt: at}, at)
	}
	if len(p.last) > bound || len(p.settled) > bound {
		t.Fatalf("%d streams and %d settled kept", len(p.last), len(p.settled))
	}
	f := p.Figures(pt0.Add(time.Duration(3*bound) * time.Second))
	if f.Settled == 0 || f.Settled > int(PulseWindow/time.Second)+1 {
		t.Errorf("%d settled in the window", f.Settled)
	}
}

func TestPulseHostileTimes(t *testing.T) {
	p := NewPulse()
	p.AddEvents([]Event{
		{Kind: chunkEventKind, ActionID: "x", OccurredAt: "1969-12-31T23:59:59Z", Data: []byte(`{"sequence":1}`)},
		{Kind: chunkEventKind, ActionID: "y", OccurredAt: "not a time", Data: []byte(`{"sequence":1}`)},
		{Kind: chunkEventKind, OccurredAt: pt0.Format(time.RFC3339), Data: []byte(`{"sequence":1}`)}, // no ID
		{Kind: chunkEventKind, ActionID: "z", OccurredAt: pt0.Format(time.RFC3339), Data: []byte(`{}`)},
	}, pt0)
	f := p.Figures(pt0)
	for _, r := range f.ChunkRate {
		if r != 0 {
			t.Fatalf("a chunk counted: %v", f.ChunkRate)
		}
	}
	// No time read at all: the local clock stands for aipd's.
	if got := NewPulse().Now(pt0); !got.Equal(pt0) {
		t.Errorf("Now %v", got)
	}
}

// A synchronous action is judged while only the global log has shown it,
// with no capability; once listed, its row names the capability, and the
// figures per capability count it there (the judgement kept), not under
// "" for ever.
func TestPulseJudgedRowTakesItsListedCapability(t *testing.T) {
	p := NewPulse()
	at := pt0.Add(-20 * time.Second)
	timed := TurnTiming{FirstTokenMS: 42, HasFirstToken: true}
	p.Settle("s", Judged{Verdict: VerdictVerified, SettledAt: at, Timing: timed}, pt0)
	if !p.Settle("s", Judged{CapabilityID: capChat, SettledAt: at}, pt0) {
		t.Error("the row's capability, read once listed, did not change the figures")
	}
	c := p.Capabilities(pt0)
	if len(c) != 1 || c[0].CapabilityID != capChat || c[0].Verdicts[VerdictVerified] != 1 || c[0].FirstToken.N != 1 {
		t.Fatalf("capabilities %+v, want the verified action under %s", c, capChat)
	}
	if p.Settle("s", Judged{CapabilityID: capChat, SettledAt: at}, pt0) {
		t.Error("the same row read again changed the figures")
	}
}

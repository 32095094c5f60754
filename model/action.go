package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"
)

// Phase is where the viewer is in the run of contract §2. It only colours
// the live (unsettled) verdict; it never decides a settled one.
type Phase int

const (
	PhaseFollowing      Phase = iota // attached, reading the follow stream
	PhaseAwaitingResult              // aip.stream.terminal seen, draining / reading the result
	PhaseStopped                     // the viewer stopped before the action settled
)

// Chunk is a retained chunk with the local time it arrived.
type Chunk struct {
	StreamChunk
	ReceivedAt time.Time

	digest *rawDigest // set when the raw bytes were dropped under the cap
}

// RawDropped reports whether the chunk's raw bytes (Raw, and the provider
// raw_data inside Data) were dropped under the raw diagnostics cap.
func (c *Chunk) RawDropped() bool { return c.digest != nil }

// Action is everything aipwatch knows about one action. It is fed chunks,
// events, the cursor and the result, and derives the transcript, the tools
// and the verdict from them. It does no I/O and is not safe for concurrent
// use: one goroutine (the UI loop or the plain printer) owns it.
type Action struct {
	ID string

	// Ingestion state: the evidence as received, de-duplicated.
	chunks      map[uint64]*Chunk
	seqs        []uint64 // retained sequences, ascending
	terminalSeq *uint64  // sequence of the first retained done/error chunk
	eventIDs    map[string]struct{}
	events      []Event
	ingestAnoms []Anomaly
	replays     int

	// Derived state, rebuilt from the retained chunks in sequence order
	// whenever a chunk arrives below the highest applied sequence.
	d derived

	Cursor            string
	TerminalFrameSeen bool
	Phase             Phase
	Result            *ActionResult
	Status            *ActionStatus
	Cancel            CancelState
	timeline          []Happening
	// Unsettled is set when the run of contract §2 step 6b found that the
	// action will never get an AIP record or result (a synchronous run whose
	// handler failed): the verdict is then incomplete, "no AIP result".
	Unsettled string

	// Version increases on every change an observer could see, so renderers
	// can cache by it.
	Version uint64

	// occurred maps a chunk's sequence to its aip.stream.chunk event in
	// events, whose occurred_at is aipd's time for it (times.go).
	occurred map[uint64]int

	// The raw diagnostics cap (rawcap.go).
	rawCap     int64
	rawBytes   int64
	rawDropped int
	dropNext   int // index in seqs of the next chunk to drop
}

// NewAction returns an empty model for one action ID.
func NewAction(id string) *Action {
	a := &Action{
		ID:       id,
		chunks:   map[uint64]*Chunk{},
		eventIDs: map[string]struct{}{},
		rawCap:   DefaultRawCap,
	}
	a.d.reset()
	return a
}

// IngestOutcome says what one chunk did to the model.
type IngestOutcome int

const (
	Applied  IngestOutcome = iota // new evidence, applied
	Replayed                      // identical repeat, dropped silently
	Conflict                      // same sequence, other content: first kept, anomaly recorded
	Foreign                       // belongs to another action: ignored, anomaly recorded
)

// IngestChunk adds one chunk (contract §2.5).
func (a *Action) IngestChunk(c StreamChunk, at time.Time) IngestOutcome {
	if c.ActionID != "" && a.ID != "" && c.ActionID != a.ID {
		a.addIngestAnomaly(Anomaly{Kind: AnomalyForeignChunk, Sequence: c.Sequence,
			Detail: "chunk for another action " + c.ActionID})
		return Foreign
	}
	if prev, ok := a.chunks[c.Sequence]; ok {
		same := false
		if prev.digest != nil {
			same = sameAsDropped(prev, &c)
		} else {
			same = sameChunk(&prev.StreamChunk, &c)
		}
		if same {
			a.replays++
			return Replayed
		}
		a.addIngestAnomaly(Anomaly{Kind: AnomalyConflict, Sequence: c.Sequence,
			Detail: fmt.Sprintf("chunk %d repeated with other content; the first is kept", c.Sequence)})
		return Conflict
	}
	rec := &Chunk{StreamChunk: c, ReceivedAt: at}
	a.chunks[c.Sequence] = rec
	i := sort.Search(len(a.seqs), func(i int) bool { return a.seqs[i] >= c.Sequence })
	inOrder := i == len(a.seqs)
	a.seqs = append(a.seqs, 0)
	copy(a.seqs[i+1:], a.seqs[i:])
	a.seqs[i] = c.Sequence

	if a.terminalSeq != nil && c.Sequence > *a.terminalSeq {
		a.addIngestAnomaly(Anomaly{Kind: AnomalyAfterTerminal, Sequence: c.Sequence,
			Detail: fmt.Sprintf("chunk %d after the terminal %s chunk %d", c.Sequence, a.chunks[*a.terminalSeq].Kind, *a.terminalSeq)})
	}
	if c.Kind.Terminal() && (a.terminalSeq == nil || c.Sequence < *a.terminalSeq) {
		seq := c.Sequence
		a.terminalSeq = &seq
	}
	if inOrder {
		a.d.apply(rec, a.afterTerminal(c.Sequence))
	} else {
		a.rebuild()
	}
	rec.hint = nil // decoded once, applied: not worth keeping
	a.rawBytes += int64(len(rec.Raw))
	if i < a.dropNext {
		a.dropNext = i // an older chunk arrived late: it is the oldest to drop
	}
	if a.rawCap >= 0 && a.rawBytes > a.rawCap {
		a.enforceRawCap()
	}
	a.Version++
	return Applied
}

// afterTerminal reports whether a sequence lies after the first terminal
// chunk; such chunks are kept as evidence but do not change the transcript.
func (a *Action) afterTerminal(seq uint64) bool {
	return a.terminalSeq != nil && seq > *a.terminalSeq
}

// rebuild re-derives the transcript from the retained chunks in order. It
// runs only when a chunk arrives below the highest sequence seen (a gap
// filled after a reconnect), so its cost is off the hot path.
func (a *Action) rebuild() {
	a.d.reset()
	for _, s := range a.seqs {
		a.d.apply(a.chunks[s], a.afterTerminal(s))
	}
	// After-terminal anomalies are ingestion facts: recompute them against the
	// possibly earlier terminal chunk.
	kept := a.ingestAnoms[:0]
	for _, an := range a.ingestAnoms {
		if an.Kind != AnomalyAfterTerminal {
			kept = append(kept, an)
		}
	}
	a.ingestAnoms = kept
	for _, s := range a.seqs {
		if a.afterTerminal(s) {
			a.ingestAnoms = append(a.ingestAnoms, Anomaly{Kind: AnomalyAfterTerminal, Sequence: s,
				Detail: fmt.Sprintf("chunk %d after the terminal %s chunk %d", s, a.chunks[*a.terminalSeq].Kind, *a.terminalSeq)})
		}
	}
}

// sameChunk decides replay versus conflict. Byte equality is the fast path;
// otherwise the two are compared as JSON values, so a re-encoding with other
// spacing or key order is still a replay.
func sameChunk(x, y *StreamChunk) bool {
	if len(x.Raw) > 0 && bytes.Equal(x.Raw, y.Raw) {
		return true
	}
	if x.Kind != y.Kind || x.ActionID != y.ActionID {
		return false
	}
	return jsonEqual(x.Data, y.Data) && samePart(x.Part, y.Part)
}

// samePart compares two parts as values. A json part's data is compared as
// JSON, like the chunk data: reflect.DeepEqual on its raw bytes made a mere
// re-encoding of a json part look like a conflict.
func samePart(x, y *MessagePart) bool {
	if x == nil || y == nil {
		return x == y
	}
	if x.Type != y.Type || x.Text != y.Text || x.Format != y.Format || x.ToolCallID != y.ToolCallID {
		return false
	}
	return jsonEqual(x.Data, y.Data)
}

func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	// aipd leaves data out when it is null (aip-wire §6): an absent value and
	// an explicit null are the same content, not a conflict.
	if len(a) == 0 {
		a = json.RawMessage("null")
	}
	if len(b) == 0 {
		b = json.RawMessage("null")
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		// Valid JSON that does not fit a float64 (FuzzIngest: 1E700) failed
		// here, so a mere re-spacing of such a chunk was a conflict. Compare
		// those numbers by their text instead.
		return numbersEqual(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func numbersEqual(a, b json.RawMessage) bool {
	decode := func(raw json.RawMessage) (any, bool) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		return v, d.Decode(&v) == nil
	}
	va, okA := decode(a)
	vb, okB := decode(b)
	return okA && okB && reflect.DeepEqual(va, vb)
}

// IngestEvent adds one runtime event, de-duplicated by id. It reports
// whether the event was new.
func (a *Action) IngestEvent(e Event) bool {
	if e.ID != "" {
		if _, dup := a.eventIDs[e.ID]; dup {
			return false
		}
		a.eventIDs[e.ID] = struct{}{}
	}
	a.events = append(a.events, e)
	if e.Kind == chunkEventKind {
		a.noteChunkEvent(e, len(a.events)-1)
	}
	if e.Kind == "aip.action.cancelled" {
		a.Cancel.EventSeen = true
	}
	a.Version++
	return true
}

// SetCursor records the latest route cursor (contract §2.4). Callers pass
// only cursor/terminal frame ids, never chunk:N or evt_ ids.
func (a *Action) SetCursor(c string) {
	if c != "" && c != a.Cursor {
		a.Cursor = c
		a.Version++
	}
}

// MarkTerminalFrame records aip.stream.terminal: the follow part is over.
func (a *Action) MarkTerminalFrame() {
	a.TerminalFrameSeen = true
	if a.Phase == PhaseFollowing {
		a.Phase = PhaseAwaitingResult
	}
	a.Version++
}

// SetResult records the final ActionResult.
func (a *Action) SetResult(r ActionResult) {
	if r.Aggregate == nil {
		r.decodeAggregate()
	}
	a.trimResult(&r)
	a.Result = &r
	a.Version++
}

// SetStatus records the latest status read.
func (a *Action) SetStatus(s ActionStatus) {
	a.Status = &s
	a.Version++
}

// Stop records that the viewer stops here; an unsettled verdict is pending.
func (a *Action) Stop() {
	a.Phase = PhaseStopped
	a.Version++
}

// ChunkCount is the number of distinct retained chunks.
func (a *Action) ChunkCount() int { return len(a.seqs) }

// ReplayCount is the number of identical repeats dropped.
func (a *Action) ReplayCount() int { return a.replays }

// LastSequence is the highest retained AIP sequence, and whether there is one.
func (a *Action) LastSequence() (uint64, bool) {
	if len(a.seqs) == 0 {
		return 0, false
	}
	return a.seqs[len(a.seqs)-1], true
}

// ChunkAt returns the retained chunk with that sequence.
func (a *Action) ChunkAt(seq uint64) (*Chunk, bool) {
	c, ok := a.chunks[seq]
	return c, ok
}

// Sequences returns the retained sequences in order (a copy).
func (a *Action) Sequences() []uint64 { return append([]uint64(nil), a.seqs...) }

// Events returns the retained runtime events in arrival order.
func (a *Action) Events() []Event { return a.events }

// Anomalies returns every anomaly: ingestion facts first, then those found
// while interpreting the provider frames.
func (a *Action) Anomalies() []Anomaly {
	out := make([]Anomaly, 0, len(a.ingestAnoms)+len(a.d.anoms))
	out = append(out, a.ingestAnoms...)
	return append(out, a.d.anoms...)
}

func (a *Action) addIngestAnomaly(an Anomaly) {
	a.ingestAnoms = append(a.ingestAnoms, an)
	a.Version++
}

// hasConflict reports a conflict anomaly (verdict row 12).
func (a *Action) hasConflict() bool {
	for _, an := range a.ingestAnoms {
		if an.Kind == AnomalyConflict {
			return true
		}
	}
	return false
}

// Settled reports whether the action has a final outcome the verdict can
// use: a result; or, with no result to read, a state that decides alone
// (expired, dead-lettered, or cancelled: an asynchronous action cancelled in
// flight never gets a stored result, aip-daemon-behaviour A1); or the
// finding that the run will never settle (MarkUnsettled).
func (a *Action) Settled() bool {
	if a.hasOutcomeResult() {
		return true
	}
	if a.Unsettled != "" {
		return true
	}
	return a.Status != nil && settlingState(a.Status.State)
}

// hasOutcomeResult: a result that is an outcome (not pending_approval).
func (a *Action) hasOutcomeResult() bool {
	if a.Result == nil {
		return false
	}
	switch a.Result.Status {
	case ResultCompleted, ResultFailed, ResultCancelled:
		return true
	}
	return false
}

// settlingState is a state that settles an action which has no result.
func settlingState(s string) bool {
	return s == StateExpired || s == StateDeadLettered || s == StateCancelled
}

// Ended reports that aipd said the action is over (its terminal frame, or a
// terminal state), whether or not its outcome has been read.
func (a *Action) Ended() bool {
	return a.TerminalFrameSeen || a.Settled() || (a.Status != nil && TerminalState(a.Status.State))
}

// MarkUnsettled records contract §2 step 6b: the action has chunks but no
// record and no result, showed no progress for the stall timeout, and will
// never settle. reason is the one line the verdict gives.
func (a *Action) MarkUnsettled(reason string) {
	if a.Unsettled == "" && !a.hasOutcomeResult() {
		a.Unsettled = reason
		a.Version++
	}
}

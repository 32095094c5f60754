package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Phase is where the viewer is in the run of design §2. It only colours
// the live (unsettled) verdict; it never decides a settled one. It is
// derived (Action.Phase): from the terminal frame (TerminalFrameSeen) and
// the viewer's stop, each stored once.
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

// DataBytes is the chunk's Data; for a chunk whose raw bytes were dropped
// (Data is then nil) it is rebuilt, with raw_data emptied.
func (c *Chunk) DataBytes() []byte {
	if c.digest != nil {
		return c.digest.data()
	}
	return c.Data
}

// RawDropped reports whether the chunk's raw bytes (Raw, and the provider
// raw_data inside Data) were dropped under the raw diagnostics cap.
func (c *Chunk) RawDropped() bool { return c.digest != nil }

// ProviderRaw is the provider frame's raw_data as the Hermes envelope
// carries it (chunk.data.hermes_sse.raw_data, unsanitised), for the raw
// view; ok is false when the chunk carries none (not a Hermes provider
// frame, or its raw bytes were dropped under the cap).
func (c *Chunk) ProviderRaw() (string, bool) {
	if c.RawDropped() {
		return "", false
	}
	var probe struct {
		HermesSSE *struct {
			RawData *string `json:"raw_data"`
		} `json:"hermes_sse"`
	}
	if json.Unmarshal(c.Data, &probe) != nil || probe.HermesSSE == nil || probe.HermesSSE.RawData == nil {
		return "", false
	}
	return *probe.HermesSSE.RawData, true
}

// Action is everything aipwatch knows about one action. It is fed chunks,
// events, the cursor and the result, and derives the transcript, the tools
// and the verdict from them. It does no I/O and is not safe for concurrent
// use: one goroutine (the UI loop or the plain printer) owns it.
type Action struct {
	ID string
	// SubmittedSession is the Hermes session_id the client put in the
	// submitted input (the journal keeps it): a Chat turn's finish chunk
	// may carry none, and the session read of design §8 needs one.
	SubmittedSession string

	// Ingestion state: the evidence as received, de-duplicated.
	chunks      seqIndex[*Chunk]
	chunkSlab   []Chunk  // where the next retained chunks are allocated (newChunk)
	seqs        []uint64 // retained sequences, in arrival order
	sorted      []uint64 // the same, ascending, once a chunk came late (valid while sortedOK)
	sortedOK    bool
	late        bool // a chunk arrived below the highest sequence: seqs is not ascending
	maxSeq      uint64
	terminalSeq *uint64 // sequence of the first retained done/error chunk
	eventIDs    map[string]struct{}
	events      []Event // the kept runtime events (IngestEvent), in arrival order
	ingestAnoms []Anomaly
	conflicts   int
	conflictAn  Anomaly           // the last conflict's anomaly (conflictAnomaly)
	keptHash    map[uint64]hashOK // jsonHash of kept data, for sequences repeated with other content
	replays     int
	termKinds   map[ChunkKind]uint64 // first retained sequence of each terminal kind
	undecodable int                  // chunks that arrived but could not be decoded

	// Derived state: the retained chunks applied in sequence order. A chunk
	// that arrives below the highest sequence cannot be applied on top; it
	// waits (pending) until the state is rebuilt from all chunks, paid for
	// by credit (see IngestChunk).
	d       derived
	pending int   // late chunks not yet applied to d
	credit  int64 // rebuild budget, in chunk applications

	Cursor string
	// TerminalFrameSeen: aip.stream.terminal arrived (the follow part is
	// over). The one record of it: the phase and the connection's
	// draining are read from it.
	TerminalFrameSeen bool
	stopped           bool // the viewer stopped (Stop)
	Result            *ActionResult
	Status            *ActionStatus
	Cancel            CancelState
	timeline          []Happening
	conn              Connection // the connection to aipd (connection.go)
	noLive            int        // chunks read from the result's output.events (resultevents.go)
	// Unsettled is set when the run of design §2 step 6b found that the
	// action will never get an AIP record or result (a synchronous run whose
	// handler failed): the verdict is then incomplete, "no AIP result".
	Unsettled string

	// Version increases on every change an observer could see, so renderers
	// can cache by it.
	Version uint64

	// occurred is aipd's time for each chunk, the occurred_at of its
	// aip.stream.chunk event (times.go).
	occurred seqIndex[instant]
	// The times of the lowest and highest sequences in occurred: the
	// first and last chunk of Timing.
	occFirst, occLast       instant
	occFirstSeq, occLastSeq uint64
	occAbsurd               bool // they are further apart than MaxTurnSpan (span.go)

	// The raw diagnostics cap (rawcap.go).
	rawCap     int64
	rawBytes   int64
	rawDropped int
	dropNext   int     // index in seqs of the next chunk to drop
	tmpl       *[]byte // the template dropped chunks' Data is packed against
}

// NewAction returns an empty model for one action ID.
func NewAction(id string) *Action {
	a := &Action{
		ID:       id,
		eventIDs: map[string]struct{}{},
		rawCap:   DefaultRawCap,
		sortedOK: true,
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

// IngestChunk adds one chunk (design §2.5).
func (a *Action) IngestChunk(c StreamChunk, at time.Time) IngestOutcome {
	if c.ActionID != "" && a.ID != "" && c.ActionID != a.ID {
		a.addIngestAnomaly(Anomaly{Kind: AnomalyForeignChunk, Sequence: c.Sequence,
			Detail: "chunk for another action " + c.ActionID})
		return Foreign
	}
	if prev, ok := a.chunks.get(c.Sequence); ok {
		if a.sameAsKept(prev, &c) {
			a.replays++
			return Replayed
		}
		a.conflicts++
		a.addIngestAnomaly(a.conflictAnomaly(c.Sequence))
		return Conflict
	}
	if c.ActionID == a.ID {
		c.ActionID = a.ID // one string for all chunks, not one each
	}
	rec := a.newChunk()
	*rec = Chunk{StreamChunk: c, ReceivedAt: at}
	a.chunks.put(c.Sequence, rec)
	inOrder := len(a.seqs) == 0 || c.Sequence > a.maxSeq
	a.seqs = append(a.seqs, c.Sequence)
	if inOrder {
		a.maxSeq = c.Sequence
		if a.late && a.sortedOK {
			a.sorted = append(a.sorted, c.Sequence)
		}
	} else {
		a.late, a.sortedOK = true, false
	}
	a.credit += creditPerChunk

	if a.terminalSeq != nil && c.Sequence > *a.terminalSeq {
		a.addIngestAnomaly(Anomaly{Kind: AnomalyAfterTerminal, Sequence: c.Sequence,
			Detail: fmt.Sprintf("chunk %d after the terminal %s chunk %d", c.Sequence, a.terminalChunk().Kind, *a.terminalSeq)})
	}
	if c.Kind.Terminal() && (a.terminalSeq == nil || c.Sequence < *a.terminalSeq) {
		seq := c.Sequence
		a.terminalSeq = &seq
	}
	if c.Kind.Terminal() {
		a.terminalKind(c.Kind, c.Sequence)
	}
	if inOrder {
		a.d.apply(rec, a.afterTerminal(c.Sequence))
		rec.hint = nil // decoded once, applied: not worth keeping
	} else {
		a.pending++ // its decoded data (hint) is kept until a rebuild applies it
	}
	if n := int64(len(a.seqs)); a.pending > 0 && a.credit >= creditPerRebuilt*n {
		// Late chunks are applied by a rebuild once the credit pays for
		// one: a chunk arriving below the highest sequence (a gap filled
		// after a reconnect, or a hostile order) used to rebuild the whole
		// state at once, so chunks in descending order cost the square of
		// their number. Now a descending stream rebuilds each time the
		// count has grown fivefold (linear in all: 1.25 re-applications a
		// chunk, plus one at the end). Until then the late chunks wait, and
		// readers see the transcript of the chunks applied so far (exact
		// again at the end of the follow, endOfInput, or once the action
		// settles; see sync). The decision depends
		// only on what was ingested, never on reads.
		a.credit -= creditPerRebuilt * n
		a.rebuild()
	}
	a.rawBytes += int64(len(rec.Raw))
	if a.rawCap >= 0 && a.rawBytes > a.rawCap {
		a.enforceRawCap()
	}
	a.Version++
	return Applied
}

// The rebuild credit: earned per chunk ingested, spent per chunk a rebuild
// re-applies (a ratio of 1.25: a descending stream rebuilds each time its
// count has grown fivefold, 1.25 re-applications a chunk in all).
const (
	creditPerChunk   = 5
	creditPerRebuilt = 4
)

// terminalKind notes a retained terminal chunk. A done chunk and an error
// chunk in one stream contradict each other (design §3): a conflict,
// recorded once, whatever order they arrive in.
func (a *Action) terminalKind(k ChunkKind, seq uint64) {
	if _, seen := a.termKinds[k]; seen {
		return
	}
	if a.termKinds == nil {
		a.termKinds = map[ChunkKind]uint64{}
	}
	a.termKinds[k] = seq
	for other, at := range a.termKinds {
		if other != k {
			a.conflicts++
			a.addIngestAnomaly(Anomaly{Kind: AnomalyConflict, Sequence: seq,
				Detail: fmt.Sprintf("terminal %s chunk %d contradicts the terminal %s chunk %d", k, seq, other, at)})
		}
	}
}

// UndecodableChunk records chunks that arrived but could not be decoded (a
// chunk frame or a page's chunk item): an anomaly, and for the verdict a
// conflict (design §3 row 12), since the evidence they carried is lost.
func (a *Action) UndecodableChunk(n int, detail string) {
	if n <= 0 {
		return
	}
	a.undecodable += n
	a.addIngestAnomaly(Anomaly{Kind: AnomalyUndecodable, Detail: detail})
}

// afterTerminal reports whether a sequence lies after the first terminal
// chunk; such chunks are kept as evidence but do not change the transcript.
func (a *Action) afterTerminal(seq uint64) bool {
	return a.terminalSeq != nil && seq > *a.terminalSeq
}

// sortedSeqs returns the retained sequences in ascending order.
func (a *Action) sortedSeqs() []uint64 {
	if !a.late {
		return a.seqs // in arrival order, which is ascending
	}
	if !a.sortedOK {
		a.sorted = append(a.sorted[:0], a.seqs...)
		slices.Sort(a.sorted)
		a.sortedOK = true
	}
	return a.sorted
}

// sync makes reads exact once the action has settled or the viewer
// stopped: late chunks still pending are applied. The end of the follow
// applies them too, at once (endOfInput), whether or not it settles.
func (a *Action) sync() {
	if a.pending > 0 && (a.Settled() || a.stopped) {
		a.rebuild()
		a.Version++
	}
}

// Sync applies every late chunk now, whatever the credit: after it, every
// reader sees the transcript of all retained chunks.
func (a *Action) Sync() {
	if a.pending > 0 {
		a.rebuild()
		a.Version++
	}
}

// newChunk returns a zero Chunk from a block of them: the model keeps
// every retained chunk, so one allocation serves many (a firehose's
// 100,000 were a fifth of its allocations).
func (a *Action) newChunk() *Chunk {
	if len(a.chunkSlab) == cap(a.chunkSlab) {
		a.chunkSlab = make([]Chunk, 0, min(1024, 16+len(a.seqs)))
	}
	a.chunkSlab = a.chunkSlab[:len(a.chunkSlab)+1]
	return &a.chunkSlab[len(a.chunkSlab)-1]
}

// terminalChunk is the retained chunk of terminalSeq (set only for one).
func (a *Action) terminalChunk() *Chunk {
	c, _ := a.chunks.get(*a.terminalSeq)
	return c
}

// rebuild re-derives the transcript from the retained chunks in order.
func (a *Action) rebuild() {
	a.pending = 0
	a.d.reset()
	seqs := a.sortedSeqs()
	for _, s := range seqs {
		c, _ := a.chunks.get(s)
		if c.digest != nil { // raw dropped: Data is kept packed
			c.Data = c.digest.data()
			a.d.apply(c, a.afterTerminal(s))
			c.Data = nil
			continue
		}
		a.d.apply(c, a.afterTerminal(s))
		c.hint = nil
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
	for _, s := range seqs {
		if a.afterTerminal(s) {
			a.ingestAnoms = append(a.ingestAnoms, Anomaly{Kind: AnomalyAfterTerminal, Sequence: s,
				Detail: fmt.Sprintf("chunk %d after the terminal %s chunk %d", s, a.terminalChunk().Kind, *a.terminalSeq)})
		}
	}
}

// sameAsKept decides replay versus conflict for a chunk whose sequence is
// retained (sameAsDropped when its raw bytes went). Byte equality is the
// fast path; otherwise the two are compared as JSON values, so a
// re-encoding with other spacing or key order is still a replay. The hash
// of the kept data is computed once for a sequence repeated with other
// content, so many conflicts on one sequence each cost one scan of the
// new data.
func (a *Action) sameAsKept(prev *Chunk, c *StreamChunk) bool {
	if prev.digest != nil {
		return sameAsDropped(prev, c)
	}
	x := &prev.StreamChunk
	if len(x.Raw) > 0 && bytes.Equal(x.Raw, c.Raw) {
		return true
	}
	if x.Kind != c.Kind || x.ActionID != c.ActionID || !samePart(x.Part, c.Part) {
		return false
	}
	if len(x.Data) > 0 && len(c.Data) > 0 && !bytes.Equal(x.Data, c.Data) {
		kh, seen := a.keptHash[c.Sequence]
		if !seen {
			kh.h, kh.ok = jsonHash(x.Data)
			if a.keptHash == nil {
				a.keptHash = map[uint64]hashOK{}
			}
			a.keptHash[c.Sequence] = kh
		}
		if h, ok := jsonHash(c.Data); ok && kh.ok && h != kh.h {
			return false
		}
	}
	return jsonEqual(x.Data, c.Data)
}

type hashOK struct {
	h  uint64
	ok bool
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
	return jsonSame(x.Data, y.Data)
}

func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	// aipd leaves data out when it is null (protocol §7.1): an absent value and
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
// whether the event was new. An aip.stream.chunk event gives its chunk's
// time and is not kept (noteChunkEvent); it is new when it gave one.
// The event's strings may be views of a page's bytes (DecodePage): what
// is kept is copied, so a page is not held for an event.
func (a *Action) IngestEvent(e Event) bool {
	if e.Kind == chunkEventKind {
		if !a.noteChunkEvent(e) {
			return false
		}
		a.Version++
		return true
	}
	if _, dup := a.eventIDs[e.ID]; dup && e.ID != "" {
		return false
	}
	e = e.owned()
	if e.ID != "" {
		a.eventIDs[e.ID] = struct{}{}
	}
	a.events = append(a.events, e)
	if e.Kind == "aip.action.cancelled" {
		a.Cancel.EventSeen = true
	}
	a.Version++
	return true
}

// SetCursor records the latest route cursor (design §2.4). Callers pass
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
	a.endOfInput()
	a.Version++
}

// SetResult records the final ActionResult.
func (a *Action) SetResult(r ActionResult) {
	if r.Aggregate == nil {
		r.decodeAggregate()
	}
	a.trimResult(&r)
	a.Result = &r
	a.endOfInput()
	a.Version++
}

// SetStatus records the latest status read.
func (a *Action) SetStatus(s ActionStatus) {
	a.Status = &s
	if TerminalState(s.State) {
		a.endOfInput()
	}
	a.Version++
}

// endOfInput applies the late chunks still waiting for a rebuild when aipd
// says the chunks are over (the terminal frame, a result, a terminal
// state). They waited for credit that only later chunks earn (IngestChunk),
// and none may come: a run that ends without settling (its result
// undecodable, pending_approval, or never read) kept them out of every read,
// so the transcript depended on the arrival order. One rebuild, whatever
// the reads; late chunks after it (a hostile drain) wait for credit again,
// until the action settles or the viewer stops (sync).
func (a *Action) endOfInput() {
	if a.pending > 0 {
		a.rebuild()
	}
}

// Stop records that the viewer stops here; an unsettled verdict is pending.
func (a *Action) Stop() {
	a.stopped = true
	a.Version++
}

// Phase is where the viewer is: stopped, else awaiting the result once
// the terminal frame came, else following.
func (a *Action) Phase() Phase {
	switch {
	case a.stopped:
		return PhaseStopped
	case a.TerminalFrameSeen:
		return PhaseAwaitingResult
	}
	return PhaseFollowing
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
	return a.maxSeq, true
}

// ChunkAt returns the retained chunk with that sequence.
func (a *Action) ChunkAt(seq uint64) (*Chunk, bool) {
	c, ok := a.chunks.get(seq)
	return c, ok
}

// Sequences returns the retained sequences in order (a copy).
func (a *Action) Sequences() []uint64 { return append([]uint64(nil), a.sortedSeqs()...) }

// Events returns the retained runtime events in arrival order.
func (a *Action) Events() []Event { return append([]Event(nil), a.events...) }

// owned is e with copies of its strings and bytes, none a view of a
// page or a frame.
func (e Event) owned() Event {
	e.ID = strings.Clone(e.ID)
	e.Kind = strings.Clone(e.Kind)
	e.OccurredAt = strings.Clone(e.OccurredAt)
	e.SessionID = strings.Clone(e.SessionID)
	e.ActionID = strings.Clone(e.ActionID)
	e.CorrelationID = strings.Clone(e.CorrelationID)
	e.Actor = bytes.Clone(e.Actor)
	e.Data = bytes.Clone(e.Data)
	return e
}

// Anomalies returns every anomaly: ingestion facts first, then those found
// while interpreting the provider frames.
func (a *Action) Anomalies() []Anomaly {
	a.sync()
	out := make([]Anomaly, 0, len(a.ingestAnoms)+len(a.d.anoms))
	out = append(out, a.ingestAnoms...)
	return append(out, a.d.anoms...)
}

func (a *Action) addIngestAnomaly(an Anomaly) {
	if n := len(a.ingestAnoms); n == cap(a.ingestAnoms) {
		// Doubling, not append's quarter steps for a long list: a hostile
		// stream records one anomaly a chunk.
		a.ingestAnoms = slices.Grow(a.ingestAnoms, max(n, 8))
	}
	a.ingestAnoms = append(a.ingestAnoms, an)
	a.Version++
}

// conflictAnomaly is the anomaly of a chunk at seq repeated with other
// content. Conflicts in a row on one sequence share one detail string
// (100,000 conflicting chunks on one sequence).
func (a *Action) conflictAnomaly(seq uint64) Anomaly {
	if a.conflictAn.Detail == "" || a.conflictAn.Sequence != seq {
		a.conflictAn = Anomaly{Kind: AnomalyConflict, Sequence: seq,
			Detail: "chunk " + strconv.FormatUint(seq, 10) + " repeated with other content; the first is kept"}
	}
	return a.conflictAn
}

// AnomalyCount is len(Anomalies()) without building the list.
func (a *Action) AnomalyCount() int {
	a.sync()
	return len(a.ingestAnoms) + len(a.d.anoms)
}

// conflict names the first kind of self-contradicting evidence (verdict
// row 12), or "" when there is none.
func (a *Action) conflict() string {
	a.sync()
	switch {
	case a.conflicts > 0:
		return "conflicting chunk content"
	case a.d.conflicts > 0:
		return "contradicting finish or terminal frames"
	case a.undecodable > 0:
		return plural(a.undecodable, "undecodable chunk", "undecodable chunks")
	}
	return ""
}

// FirstAnomalies is Anomalies()[:n] (all of them when there are fewer),
// copying only those: a view that lists the first few of thousands.
func (a *Action) FirstAnomalies(n int) []Anomaly {
	a.sync()
	ni := len(a.ingestAnoms)
	out := make([]Anomaly, 0, min(n, ni+len(a.d.anoms)))
	out = append(out, a.ingestAnoms[:min(n, ni)]...)
	return append(out, a.d.anoms[:min(n-len(out), len(a.d.anoms))]...)
}

// AnomaliesFrom is Anomalies()[from:] (nil when from is past the end),
// copying only that tail: a printer that has reported the first from
// anomalies asks for the rest without copying them all every time.
func (a *Action) AnomaliesFrom(from int) []Anomaly {
	a.sync()
	ni := len(a.ingestAnoms)
	if from >= ni {
		if from-ni >= len(a.d.anoms) {
			return nil
		}
		return a.d.anoms[from-ni:]
	}
	out := make([]Anomaly, 0, ni-from+len(a.d.anoms))
	out = append(out, a.ingestAnoms[from:]...)
	return append(out, a.d.anoms...)
}

// Settled reports whether the action has a final outcome the verdict can
// use: a result; or, with no result to read, a state that decides alone
// (expired, dead-lettered, or cancelled: an asynchronous action cancelled in
// flight never gets a stored result, protocol §10.1); or the
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

// MarkUnsettled records design §2 step 6b: the action has chunks but no
// record and no result, showed no progress for the stall timeout, and will
// never settle. reason is the one line the verdict gives.
func (a *Action) MarkUnsettled(reason string) {
	if a.Unsettled == "" && !a.hasOutcomeResult() {
		a.Unsettled = reason
		a.Version++
	}
}

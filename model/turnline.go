package model

import (
	"math"
	"slices"
	"time"
)

var nan = math.NaN()

// The turn as a picture (design §16): what the timeline of the live view,
// the review, the Markdown export and the HTML report draw, derived here
// from the times the model already keeps (aipd's time of each chunk,
// times.go; the run's span, span.go; the connection timeline, timeline.go;
// the cancel, cancel.go). It reads no clock and nothing more from aipd:
// the caller passes now for a run that has not settled.

// textRun is the text of consecutive chunks, first to first+count-1:
// their bytes together. A stream of text is one run however long (a run
// ends at a chunk with no text, such as a tool's), so the timeline costs
// a few bytes a run, not a chunk's; it spreads a run's bytes evenly over
// its chunks, each at its own time.
type textRun struct {
	first uint64
	count uint32
	bytes int
}

// addText counts n bytes of assistant or reasoning text added by the chunk
// seq (OutputRate's estimate, and the timeline's bursts).
func (d *derived) addText(seq uint64, n int) {
	if n <= 0 {
		return
	}
	d.textBytes += n
	if k := len(d.textAt); k > 0 {
		r := &d.textAt[k-1]
		switch end := r.first + uint64(r.count); {
		case seq == end-1: // the same chunk again (reasoning and content)
			r.bytes += n
			return
		case seq == end && r.count < math.MaxUint32:
			r.count++
			r.bytes += n
			return
		}
	}
	d.textAt = append(d.textAt, textRun{first: seq, count: 1, bytes: n})
}

// TurnTimeline is the turn on one time axis: from its start (aipd's
// started_at, else its first chunk) to its verdict, or to now while it
// runs. Every time in it lies on the axis (From to To): a time the model
// knows outside it is left out, never stretched in (a review's connection,
// made long after the turn, is no part of it).
type TurnTimeline struct {
	From, To time.Time
	// Live: the action has not settled and the run goes on, so To is now
	// and moves.
	Live bool
	// Known: the turn has a time at all (a chunk, or the record's
	// started_at); without one the timeline is empty.
	Known bool

	// FirstToken is when the first assistant text or tool call came
	// (HasFirstToken says it did).
	FirstToken    time.Time
	HasFirstToken bool
	// FirstTokenAfter is the first token's figure as the cost line says
	// it (Timing: from the first chunk, on aipd's times), else the time
	// from From.
	FirstTokenAfter time.Duration

	// Text is the model's text, a sample a chunk that added some, in time
	// order. Timed samples carry aipd's time for their chunk (the token
	// rate is drawn from those only); the others, the time aipwatch
	// received them.
	Text []TextSample
	// TokensPerByte turns text bytes into tokens: the provider's output
	// count over the text when it reported usage, else the usual estimate
	// of 4 bytes a token (RateEstimated).
	TokensPerByte float64
	RateEstimated bool

	// Tools are the tool calls as bars, ordered by their start.
	Tools []ToolSpan
	// Marks are the connection's and the cancel's moments, in time order.
	Marks []TimeMark

	// Verdict is the verdict's word (a live word while unsettled), and
	// Final whether it is the outcome.
	Verdict string
	Final   bool
}

// TextSample is the text of one chunk on the axis.
type TextSample struct {
	At    time.Time
	Bytes int
	Timed bool // At is aipd's time for the chunk (its event's occurred_at)
}

// ToolOutcome is how a tool call's bar ended.
type ToolOutcome int

// The outcomes of a tool call's bar.
const (
	ToolOutcomeCompleted  ToolOutcome = iota // the provider said it completed
	ToolOutcomeRunning                       // still running (the turn has not settled)
	ToolOutcomeUnfinished                    // the turn settled without its completion
	ToolOutcomeFailed                        // its status said failed or error
	ToolOutcomeOther                         // another status word
)

// Letter is the outcome's letter, drawn on its bar so that it reads
// without colour: C completed, R running, U unfinished, F failed, O other.
func (o ToolOutcome) Letter() byte {
	return "CRUFO"[o]
}

// Word is the outcome in a word, for a legend.
func (o ToolOutcome) Word() string {
	return [...]string{"completed", "running", "unfinished", "failed", "other status"}[o]
}

// ToolSpan is one tool call's bar: from its first chunk to the chunk that
// completed it (or To, while it runs or when it never completed).
type ToolSpan struct {
	ID, Name   string // untrusted: drawers pass them through safe
	Start, End time.Time
	Outcome    ToolOutcome
	Status     string // the model's status word (untrusted when Other)
}

// Duration is the bar's length.
func (s ToolSpan) Duration() time.Duration { return s.End.Sub(s.Start) }

// Columns are the first and last column of the bar on sc, both inside it
// (0 to sc.Cells-1) and in order: every drawing's bar.
func (s ToolSpan) Columns(sc Scale) (c0, c1 int) {
	c0, c1 = sc.Col(s.Start), sc.Col(s.End)
	return c0, max(c1, c0)
}

// MarkKind is what a mark on the axis records.
type MarkKind int

// The kinds of marks.
const (
	MarkReconnect     MarkKind = iota // the connection was lost (a reconnect follows)
	MarkResume                        // a connection opened again, resuming
	MarkRestart                       // aipd refused the cursor: following from the beginning
	MarkCancelRequest                 // the operator asked for a cancel
	MarkCancelReply                   // the cancel route answered (Accepted says how)
	MarkCancelled                     // the turn ended cancelled: the cancel's effect
)

// TimeMark is one moment on the axis.
type TimeMark struct {
	Kind     MarkKind
	At       time.Time
	Attempt  int  // Reconnect, Resume: the connection's attempt
	Accepted bool // CancelReply: the route accepted it
}

// Connection reports whether a mark is the connection's (else the
// cancel's): the drawers put the two on rows of their own.
func (k MarkKind) Connection() bool {
	return k == MarkReconnect || k == MarkResume || k == MarkRestart
}

// markWords are each kind's word or two (a legend's) and its sentence (a
// reader's who does not see the picture); CancelReply's are the accepted
// and the refused ones.
var markWords = [...]struct{ word, sentence string }{
	MarkReconnect:     {"lost", "the connection was lost"},
	MarkResume:        {"resumed", "the connection resumed"},
	MarkRestart:       {"restarted", "the cursor was refused: following again from the beginning"},
	MarkCancelRequest: {"cancel asked", "the operator asked for a cancel"},
	MarkCancelReply:   {"accepted", "aipd accepted the cancel"},
	MarkCancelled:     {"cancelled", "the turn ended cancelled"},
}

func (m TimeMark) words() (word, sentence string) {
	if m.Kind == MarkCancelReply && !m.Accepted {
		return "refused", "the cancel was not accepted"
	}
	if m.Kind < 0 || int(m.Kind) >= len(markWords) {
		m.Kind = MarkCancelled
	}
	w := markWords[m.Kind]
	return w.word, w.sentence
}

// Word is what the mark records, in a word or two (a chart's legend).
func (m TimeMark) Word() string { w, _ := m.words(); return w }

// Sentence is what the mark records, in a sentence.
func (m TimeMark) Sentence() string { _, s := m.words(); return s }

// TurnTimeline derives the turn's timeline. now is the consumer's clock:
// the axis ends there while the action runs.
func (a *Action) TurnTimeline(now time.Time) TurnTimeline {
	a.sync()
	v := a.Verdict()
	// Live while something may still come: not settled, and neither the
	// viewer nor the run stopped (an error ends the run: its axis ends at
	// what came).
	tl := TurnTimeline{Verdict: v.Word, Final: v.Final, Live: !a.Settled() && !a.stopped && !a.conn.Done && a.conn.Err == nil}
	from, to := a.RunSpan()
	// The chunks: aipd's time when known, else when they arrived.
	first, last := a.chunkTimeBounds()
	if from.IsZero() || (!first.IsZero() && first.Before(from) && !absurdSpan(first, from)) {
		from = first
	}
	if !last.IsZero() && last.After(to) && (from.IsZero() || !absurdSpan(from, last)) {
		to = last
	}
	// A settled turn ends at aipd's completed_at or its last chunk, as the
	// header's elapsed time does; a running one at now.
	if tl.Live && !now.IsZero() {
		if from.IsZero() {
			from = now
		}
		if now.After(to) && !absurdSpan(from, now) {
			to = now
		}
	}
	if from.IsZero() {
		return tl
	}
	if to.Before(from) {
		to = from
	}
	tl.From, tl.To, tl.Known = from, to, true
	in := func(t time.Time) time.Time { // clamped onto the axis
		if t.Before(from) {
			return from
		}
		if t.After(to) {
			return to
		}
		return t
	}
	on := func(t time.Time) bool { return !t.IsZero() && !t.Before(from) && !t.After(to) }

	if a.d.hasFirstTok {
		if t, ok := a.SeqTime(a.d.firstTok); ok {
			tl.FirstToken, tl.HasFirstToken = in(t), true
			tl.FirstTokenAfter = tl.FirstToken.Sub(from)
			if tm := a.Timing(); tm.HasFirstToken {
				tl.FirstTokenAfter = time.Duration(tm.FirstTokenMS) * time.Millisecond
			}
		}
	}
	n := 0
	for _, r := range a.d.textAt {
		n += int(r.count)
	}
	tl.Text = make([]TextSample, 0, n)
	for _, r := range a.d.textAt {
		for k := range uint64(r.count) {
			seq := r.first + k
			t, timed := a.Occurred(seq)
			if !timed {
				c, ok := a.chunks.get(seq)
				if !ok || c.ReceivedAt.IsZero() {
					continue
				}
				t = c.ReceivedAt
			}
			// The run's bytes spread evenly: chunk k has its share.
			share := int(uint64(r.bytes)*(k+1)/uint64(r.count) - uint64(r.bytes)*k/uint64(r.count))
			tl.Text = append(tl.Text, TextSample{At: in(t), Bytes: share, Timed: timed})
		}
	}
	byTime := func(x, y TextSample) int { return x.At.Compare(y.At) }
	if !slices.IsSortedFunc(tl.Text, byTime) { // in sequence order, they usually are
		slices.SortStableFunc(tl.Text, byTime)
	}
	tl.TokensPerByte, tl.RateEstimated = 1.0/bytesPerToken, true
	if u := a.Usage(); u.Reported && u.OutputTokens > 0 && a.d.textBytes > 0 {
		tl.TokensPerByte, tl.RateEstimated = float64(u.OutputTokens)/float64(a.d.textBytes), false
	}

	settled := a.Settled()
	for _, t := range a.d.tools {
		s := ToolSpan{ID: t.ID, Name: t.Name, Status: t.Status}
		start, ok := a.SeqTime(t.FirstSeq)
		if !ok {
			start = t.StartedAt
		}
		if start.IsZero() {
			continue
		}
		s.Start = in(start)
		switch t.Status {
		case ToolCompleted:
			s.Outcome = ToolOutcomeCompleted
			end, ok := a.SeqTime(t.DoneSeq)
			if !ok {
				end = t.DoneAt
			}
			s.End = in(end)
		case "failed", "error":
			s.Outcome, s.End = ToolOutcomeFailed, in(a.toolLast(t))
		case ToolRunning, ToolStarted, "":
			s.Outcome, s.End = ToolOutcomeRunning, to
			if settled || a.stopped {
				s.Outcome = ToolOutcomeUnfinished
			}
		default:
			s.Outcome, s.End = ToolOutcomeOther, in(a.toolLast(t))
		}
		if s.End.Before(s.Start) {
			s.End = s.Start
		}
		tl.Tools = append(tl.Tools, s)
	}
	slices.SortStableFunc(tl.Tools, func(x, y ToolSpan) int { return x.Start.Compare(y.Start) })

	lost := false
	for _, h := range a.timeline {
		m := TimeMark{At: h.At, Attempt: h.Attempt}
		switch h.Kind {
		case HapReconnecting:
			m.Kind, lost = MarkReconnect, true
		case HapResumed:
			m.Kind = MarkResume
		case HapConnected:
			if !lost {
				continue
			}
			m.Kind = MarkResume
		case HapRestart:
			m.Kind = MarkRestart
		case HapCancel:
			m.Kind, m.Accepted = MarkCancelReply, h.Outcome == CancelAcceptedOutcome
		default:
			continue
		}
		if m.Kind == MarkResume {
			lost = false
		}
		if on(m.At) {
			tl.Marks = append(tl.Marks, m)
		}
	}
	if c := a.Cancel; c.Requested && on(c.RequestedAt) {
		tl.Marks = append(tl.Marks, TimeMark{Kind: MarkCancelRequest, At: c.RequestedAt})
	}
	if settled && v.Word == VerdictCancelled {
		tl.Marks = append(tl.Marks, TimeMark{Kind: MarkCancelled, At: to})
	}
	slices.SortStableFunc(tl.Marks, func(x, y TimeMark) int { return x.At.Compare(y.At) })
	return tl
}

// chunkTimeBounds are the earliest and latest time of a retained chunk:
// aipd's when known, else when it arrived (zero when none has one).
func (a *Action) chunkTimeBounds() (first, last time.Time) {
	if a.occFirst.set && !a.occAbsurd {
		first, last = a.occFirst.time(), a.occLast.time()
	}
	if a.occurred.n >= len(a.seqs) {
		return first, last // every chunk has aipd's time
	}
	for _, seq := range a.seqs {
		if _, ok := a.occurred.get(seq); ok {
			continue
		}
		c, ok := a.chunks.get(seq)
		if !ok || c.ReceivedAt.IsZero() {
			continue
		}
		if first.IsZero() || c.ReceivedAt.Before(first) {
			first = c.ReceivedAt
		}
		if c.ReceivedAt.After(last) {
			last = c.ReceivedAt
		}
	}
	return first, last
}

// toolLast is the time of a tool's last chunk.
func (a *Action) toolLast(t *Tool) time.Time {
	if at, ok := a.SeqTime(t.LastSeq); ok {
		return at
	}
	return t.StartedAt
}

// Scale maps a window of the axis, From to To, onto Cells columns: the
// one geometry of every drawing of the timeline (the terminal's chart,
// the Markdown export's, the HTML report's bars).
type Scale struct {
	From, To time.Time
	Cells    int
}

// Col is the column of t: its cell, clamped to the first and the last.
func (s Scale) Col(t time.Time) int {
	span := s.To.Sub(s.From)
	if s.Cells <= 1 || span <= 0 {
		return 0
	}
	f := float64(t.Sub(s.From)) / float64(span) * float64(s.Cells)
	return min(max(int(f), 0), s.Cells-1)
}

// Cell is how long one column lasts.
func (s Scale) Cell() time.Duration {
	if s.Cells <= 0 {
		return 0
	}
	return s.To.Sub(s.From) / time.Duration(s.Cells)
}

// Contains reports whether t is in the window.
func (s Scale) Contains(t time.Time) bool { return !t.Before(s.From) && !t.After(s.To) }

// TextCells is the text's bytes in each column of s (a sample outside the
// window is in none).
func (tl TurnTimeline) TextCells(s Scale) []int {
	out := make([]int, max(s.Cells, 0))
	if len(out) == 0 {
		return out
	}
	for _, x := range tl.Text {
		if s.Contains(x.At) {
			out[s.Col(x.At)] += x.Bytes
		}
	}
	return out
}

// rateWindow is the shortest span the token rate is measured over: a
// column of a tenth of a second holds one chunk or none, and a rate of one
// chunk says nothing.
const rateWindow = time.Second

// RateCells is the token rate in each column of s, in tokens a second,
// from the text whose chunks carry aipd's time, measured over the column
// widened to at least a second around its middle. A column before the
// first timed chunk or after the last, or a turn with no two timed chunks
// apart, has none: NaN.
func (tl TurnTimeline) RateCells(s Scale) []float64 {
	out := make([]float64, max(s.Cells, 0))
	at := make([]time.Time, 0, len(tl.Text))
	sum := make([]float64, 0, len(tl.Text)+1) // sum[i]: the tokens of the timed samples before i
	total := 0.0
	for _, x := range tl.Text {
		if x.Timed {
			at = append(at, x.At)
			sum = append(sum, total)
			total += float64(x.Bytes) * tl.TokensPerByte
		}
	}
	sum = append(sum, total)
	cell := s.Cell()
	for i := range out {
		out[i] = nan
	}
	if len(at) < 2 || !at[len(at)-1].After(at[0]) || cell <= 0 {
		return out
	}
	w := max(cell, rateWindow)
	// at is in time order (Text is): the tokens from a to b are a
	// difference of sums found by binary search.
	before := func(t time.Time) int {
		i, _ := slices.BinarySearchFunc(at, t, func(x, t time.Time) int {
			if x.Before(t) {
				return -1
			}
			return 1
		})
		return i
	}
	for i := range out {
		c0 := s.From.Add(cell * time.Duration(i))
		if c0.Add(cell).Before(at[0]) || c0.After(at[len(at)-1]) {
			continue
		}
		mid := c0.Add(cell / 2)
		a, b := mid.Add(-w/2), mid.Add(w/2)
		out[i] = (sum[before(b)] - sum[before(a)]) / w.Seconds()
	}
	return out
}

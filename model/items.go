package model

import (
	"sort"
	"strings"
	"time"
)

// AnomalyKind names a kind of evidence problem.
type AnomalyKind string

const (
	AnomalyConflict      AnomalyKind = "conflict"       // same AIP sequence, other content (verdict row 12)
	AnomalyAfterTerminal AnomalyKind = "after_terminal" // chunk after a done/error chunk
	AnomalyForeignChunk  AnomalyKind = "foreign_chunk"  // chunk of another action
	AnomalySequenceGap   AnomalyKind = "sequence_gap"   // Responses sequence_number not consecutive
	AnomalyTextMismatch  AnomalyKind = "text_mismatch"  // output_text.done disagrees with its deltas (row 11)
	AnomalyUndecodable   AnomalyKind = "undecodable"    // chunk data that is not the expected JSON
	AnomalyDroppedRaw    AnomalyKind = "raw_dropped"    // raw diagnostics dropped under the memory cap
	AnomalyTimes         AnomalyKind = "times"          // aipd's times span more than MaxTurnSpan
)

// Anomaly is one recorded evidence problem, with the AIP sequence it concerns.
type Anomaly struct {
	Kind     AnomalyKind
	Sequence uint64
	Detail   string
}

// ItemKind is what a transcript item shows.
type ItemKind int

const (
	ItemMessage        ItemKind = iota // assistant text
	ItemReasoning                      // reasoning, kept apart from the answer
	ItemFunctionCall                   // Responses function_call (with its paired output)
	ItemFunctionOutput                 // Responses function_call_output with no call seen
	ItemNotice                         // a generic chunk of another connector, or a note
)

func (k ItemKind) String() string {
	switch k {
	case ItemMessage:
		return "message"
	case ItemReasoning:
		return "reasoning"
	case ItemFunctionCall:
		return "function_call"
	case ItemFunctionOutput:
		return "function_call_output"
	default:
		return "notice"
	}
}

// TextPart is one content index of a message item.
type TextPart struct {
	Index   int
	buf     strings.Builder
	Done    string // the output_text.done text
	HasDone bool
}

// Text is the accumulated delta text.
func (p *TextPart) Text() string { return p.buf.String() }

// Item is one transcript entry. Items are owned by the Action and mutated in
// place; Version increases with every visible change so renderers can cache.
type Item struct {
	Kind  ItemKind
	Key   string // stable identity: item_id, or a synthetic key
	Index int    // output_index for Responses; arrival order otherwise
	Role  string
	Label string // notices: a short heading (chunk kind, event name)

	Parts []*TextPart // message / reasoning / notice text

	// Function calls.
	Name      string
	CallID    string
	Arguments string
	Output    []string // function_call_output input_text parts
	HasOutput bool

	Status   string
	Done     bool
	FirstSeq uint64 // AIP sequence that opened the item
	LastSeq  uint64 // AIP sequence that last changed it
	Version  uint64

	ord    int64 // creation order; with Index, the display order (TakeChanged)
	marked bool  // in the derived state's changed list
}

// Text is the item's text: per content index, the done text where present,
// else the deltas.
func (it *Item) Text() string {
	if len(it.Parts) == 1 {
		return it.Parts[0].final()
	}
	var b strings.Builder
	for _, p := range it.Parts {
		b.WriteString(p.final())
	}
	return b.String()
}

// StreamedText is the delta text only (what is still growing while live).
func (it *Item) StreamedText() string {
	if len(it.Parts) == 1 {
		return it.Parts[0].Text()
	}
	var b strings.Builder
	for _, p := range it.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// hasText reports whether the item holds any text (streamed, or a done
// text with no deltas before it).
func (it *Item) hasText() bool {
	for _, p := range it.Parts {
		if p.buf.Len() > 0 || p.Done != "" {
			return true
		}
	}
	return false
}

// TextLen is the length in bytes of the streamed text, without copying it.
func (it *Item) TextLen() int {
	n := 0
	for _, p := range it.Parts {
		n += p.buf.Len()
	}
	return n
}

func (p *TextPart) final() string {
	if p.HasDone {
		return p.Done
	}
	return p.buf.String()
}

func (it *Item) part(index int) *TextPart {
	for _, p := range it.Parts {
		if p.Index == index {
			return p
		}
	}
	p := &TextPart{Index: index}
	it.Parts = append(it.Parts, p)
	sort.Slice(it.Parts, func(i, j int) bool { return it.Parts[i].Index < it.Parts[j].Index })
	return p
}

// Tool status words.
const (
	ToolRunning   = "running"
	ToolCompleted = "completed"
	ToolStarted   = "started" // the old progress shape: a start with no completion ever sent
)

// Tool is one tool call, keyed by its provider correlation ID.
type Tool struct {
	ID        string // toolCallId / call_id; synthetic for the old shape
	Name      string
	Emoji     string
	Label     string
	Status    string
	Legacy    bool // old hermes.tool.progress shape without toolCallId/status
	FirstSeq  uint64
	LastSeq   uint64
	StartedAt time.Time // local receive times, for the measured duration
	DoneAt    time.Time
	DoneSeq   uint64 // the AIP sequence that completed it (with DoneAt)
	// MessageKey and TextAt place a Chat tool in the transcript: the key of
	// the message item it interrupted, and that message's text length in
	// bytes when it started. "" for Responses (its calls are items).
	MessageKey string
	TextAt     int
	Version    uint64

	marked bool // in the derived state's changed list
}

// Duration is the locally measured running time, zero while unknown.
func (t *Tool) Duration(now time.Time) time.Duration {
	if t.StartedAt.IsZero() {
		return 0
	}
	if !t.DoneAt.IsZero() {
		return t.DoneAt.Sub(t.StartedAt)
	}
	return now.Sub(t.StartedAt)
}

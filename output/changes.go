// Package output writes the two line-oriented outputs of design §4,
// plain and jsonl. Both read the same model and report the same changes,
// found by one Tracker, so they can never disagree about what happened.
package output

import (
	"unicode/utf8"

	"aipwatch/model"
	"aipwatch/safe"
)

// Change is one thing worth a line since the last look at the model.
type Change struct {
	Kind   ChangeKind
	Item   *model.Item // ChangeText, ChangeNotice
	Delta  string      // ChangeText: the text added since last time
	Tool   *model.Tool // ChangeTool
	Anom   model.Anomaly
	Note   string
	Cancel string // ChangeCancel: model.CancelOutcome()
}

// ChangeKind says what a Change is.
type ChangeKind int

const (
	ChangeText    ChangeKind = iota // assistant text grew
	ChangeTool                      // a tool call appeared or changed status
	ChangeNotice                    // a generic item of another connector
	ChangeAnomaly                   // a new anomaly
	ChangeNote                      // a new model note ("no reply text", …)
	ChangeCancel                    // the cancel state changed
)

// itemKey identifies an item across a model rebuild (which makes new
// pointers for the same items).
type itemKey struct {
	kind  model.ItemKind
	key   string
	index int
}

func keyOf(it *model.Item) itemKey { return itemKey{it.Kind, it.Key, it.Index} }

// Tracker remembers what was already reported.
type Tracker struct {
	printed map[itemKey]int
	// The item whose text grew last and its printed length, kept out of
	// printed until another item's text grows: a stream of one item, the
	// usual case, costs no map access per chunk.
	last       itemKey
	lastLen    int
	hasLast    bool
	out        []Change // Changes' result, reused
	notices    map[itemKey]bool
	toolStatus map[string]string
	anoms      int
	notes      map[string]bool
	cancel     string
	timeline   int // entries of the connection timeline already reported
	version    uint64
	seen       bool
}

// NewTracker returns a Tracker that has reported nothing yet.
func NewTracker() *Tracker {
	return &Tracker{
		printed:    map[itemKey]int{},
		notices:    map[itemKey]bool{},
		toolStatus: map[string]string{},
		notes:      map[string]bool{},
	}
}

// Happenings returns the connection timeline's entries added since the
// last call (Apply logs one for each connection message), with the
// timeline's masking rule applied under redact.
func (t *Tracker) Happenings(a *model.Action, redact bool) []model.Happening {
	tl := a.Timeline()
	if t.timeline >= len(tl) {
		return nil
	}
	out := append([]model.Happening(nil), tl[t.timeline:]...)
	t.timeline = len(tl)
	if redact {
		for i := range out {
			out[i] = out[i].Redacted(safe.Mask)
		}
	}
	return out
}

// printedLen is how much of k's text was reported.
func (t *Tracker) printedLen(k itemKey) int {
	if t.hasLast && k == t.last {
		return t.lastLen
	}
	return t.printed[k]
}

// setPrinted records that n bytes of k's text were reported.
func (t *Tracker) setPrinted(k itemKey, n int) {
	if t.hasLast && k != t.last {
		t.printed[t.last] = t.lastLen
	}
	t.last, t.lastLen, t.hasLast = k, n, true
}

// Changes returns what changed since the last call, in transcript order:
// text and notices item by item, then tools, notes, anomalies and cancel.
// The slice is the Tracker's, valid until the next call.
//
// Text is reported as it streamed (the deltas), by byte offset. A printed
// line cannot be taken back: if a late chunk (a gap filled after a
// reconnect) lands inside text already printed, only the growth is
// reported, and the verdict's text, which jsonl carries whole at the end,
// is the authority.
func (t *Tracker) Changes(a *model.Action) []Change {
	if t.seen && a.Version == t.version {
		return nil
	}
	t.seen, t.version = true, a.Version
	clear(t.out) // what the last call returned holds on to nothing
	out := t.out[:0]
	// Only what changed since the last look: walking every item, tool and
	// anomaly per chunk made many items or conflicts quadratic.
	items, tools := a.TakeChanged()
	for _, it := range items {
		switch it.Kind {
		case model.ItemMessage:
			k := keyOf(it)
			n, done := it.TextLen(), t.printedLen(k)
			if n > done {
				s := it.StreamedText()
				for done > 0 && !utf8.RuneStart(s[done]) {
					done-- // never cut a character in two
				}
				out = append(out, Change{Kind: ChangeText, Item: it, Delta: s[done:]})
				t.setPrinted(k, n)
			}
		case model.ItemNotice:
			if k := keyOf(it); !t.notices[k] {
				t.notices[k] = true
				out = append(out, Change{Kind: ChangeNotice, Item: it})
			}
		}
	}
	for _, tool := range tools {
		if t.toolStatus[tool.ID] != tool.Status {
			t.toolStatus[tool.ID] = tool.Status
			out = append(out, Change{Kind: ChangeTool, Tool: tool})
		}
	}
	for _, n := range a.Notes() {
		if !t.notes[n] {
			t.notes[n] = true
			out = append(out, Change{Kind: ChangeNote, Note: n})
		}
	}
	for _, an := range a.AnomaliesFrom(t.anoms) {
		out = append(out, Change{Kind: ChangeAnomaly, Anom: an})
	}
	t.anoms = a.AnomalyCount()
	if c := a.CancelOutcome(); c != t.cancel {
		t.cancel = c
		out = append(out, Change{Kind: ChangeCancel, Cancel: c})
	}
	t.out = out
	return out
}

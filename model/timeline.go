package model

import (
	"fmt"
	"time"
)

// Happening is one entry of the connection timeline: connected,
// reconnecting, resumed, the terminal frame, the result, a cancel, … Each
// entry is typed (Kind and its fields), so that every output (the TUI's log
// panel, plain, jsonl, the Markdown export) reads the same fields and
// applies the same masking rule (Redacted) instead of parsing a line. It
// never decides anything.
type Happening struct {
	At      time.Time
	Kind    HappeningKind
	Attempt int           // Resumed, Reconnecting, ResultWait
	Wait    time.Duration // Reconnecting, ResultWait: the wait; NoRecord: how long to wait for the action to appear; Unsettled: the stall
	Cursor  string        // Resumed: the cursor resumed from; Terminal: the last cursor
	Code    string        // Restart, CursorFree, ResultWait, Error: the AIP code
	Status  string        // Result: the result status
	Outcome string        // Cancel: CancelAccepted or CancelFailedOutcome
	Action  string        // NoRecord: the action ID
	Frames  int           // NoLiveChunks: the chunks read from the result's output.events
	// Detail is the entry's free text: Reconnecting's cause, a failed
	// Cancel's or an Error's message, Unsettled's reason, a Submit note, a
	// Reconcile line, a BadFrame's reason, a Note. Under --redact the kinds
	// whose detail comes from the daemon or the network mask it (Redacted).
	Detail string
}

// HappeningKind is what a timeline entry records.
type HappeningKind int

const (
	HapNote         HappeningKind = iota // Detail: a line of aipwatch's own (the raw cap)
	HapConnected                         // a follow connection opened
	HapResumed                           // a follow resumed: Attempt, Cursor
	HapReconnecting                      // Attempt, Wait, Detail (the cause; masked under --redact)
	HapRestart                           // aipd refused the cursor (Code): following from the beginning
	HapNoRecord                          // aipd has no record of Action yet: waiting at most Wait
	HapCursorFree                        // aipd refuses its own cursors (Code): reading without cursors
	HapResultWait                        // the result is not ready (Code): read Attempt in Wait
	HapTerminal                          // the stream's terminal frame (Cursor)
	HapResult                            // the result was read: Status
	HapCancel                            // a cancel reply: Outcome, Detail (a failure's message; masked under --redact)
	HapReview                            // the action had settled: a review, no live follow
	HapUnsettled                         // the run ended without a record or result: Detail (reason), Wait (stall)
	HapSubmit                            // Detail: a submission note
	HapBadFrame                          // Detail: why a frame was skipped
	HapError                             // following cannot go on: Code, Detail (masked under --redact)
	HapReconcile                         // Detail: a reconcile read's line (already redacted by its maker)
	HapNoLiveChunks                      // aipd recorded no chunk: Frames were read from the result (design §14)
)

// The outcomes of a HapCancel entry.
const (
	CancelAcceptedOutcome = "accepted"
	CancelFailedOutcome   = "failed"
)

// Redacted is the entry as --redact shows it: the detail of the kinds
// whose detail comes from the daemon or the network (a reconnect's cause,
// a failed cancel's message, an error's message) replaced by mask(detail).
// It is the one masking rule of the timeline; every output applies it.
func (h Happening) Redacted(mask func(string) string) Happening {
	if h.Kind.DetailMasked() {
		h.Detail = mask(h.Detail)
	}
	return h
}

// DetailMasked reports whether --redact masks the detail of an entry of
// this kind. The recorder, which writes messages rather than entries, asks
// it too, so the rule is written once.
func (k HappeningKind) DetailMasked() bool {
	switch k {
	case HapReconnecting, HapCancel, HapError:
		return true
	}
	return false
}

// Text is the entry as one line of the connection log (the TUI's log
// panel, the export's timeline). Apply Redacted first under --redact.
func (h Happening) Text() string {
	switch h.Kind {
	case HapConnected:
		return "connected"
	case HapResumed:
		return fmt.Sprintf("resumed (attempt %d) from %s", h.Attempt, ResumedFrom(h.Cursor))
	case HapReconnecting:
		return fmt.Sprintf("reconnecting %d in %s: %s", h.Attempt, HumanDuration(h.Wait), h.Detail)
	case HapRestart:
		return "cursor refused (" + h.Code + "): following again from the beginning"
	case HapNoRecord:
		return NoRecordLine(h.Action, h.Wait)
	case HapCursorFree:
		return CursorFreeLine(h.Code)
	case HapResultWait:
		return ResultWaitLine(h.Code, h.Attempt, h.Wait)
	case HapTerminal:
		return "stream terminal frame"
	case HapResult:
		return "result " + h.Status
	case HapCancel:
		if h.Outcome == CancelAcceptedOutcome {
			return "cancel accepted"
		}
		return "cancel failed: " + h.Detail
	case HapReview:
		return "review of a settled action"
	case HapUnsettled:
		return "unsettled: " + h.Detail
	case HapSubmit:
		return "submit: " + h.Detail
	case HapBadFrame:
		return "skipped an undecodable frame: " + h.Detail
	case HapError:
		return "error: " + h.Detail
	case HapReconcile:
		return "reconcile: " + h.Detail
	case HapNoLiveChunks:
		return NoLiveChunksLine(h.Frames)
	}
	return h.Detail
}

// The operator's lines for the run's daemon-specific turns, one wording for
// the plain output, the TUI and the connection log.

// NoRecordLine says that the action is followed although aipd has no record.
func NoRecordLine(actionID string, appear time.Duration) string {
	return "aipd has no record of " + actionID + " yet (a synchronous or streaming action has none while it runs): " +
		"waiting for its first event (at most " + appear.String() + ")"
}

// CursorFreeLine says, once, that the run reads without cursors from now on.
func CursorFreeLine(code string) string {
	return "aipd refuses its own cursors (" + code + "): reading the action without cursors from now on"
}

// ResultWaitLine says that the result is read again, and when.
func ResultWaitLine(code string, attempt int, wait time.Duration) string {
	return fmt.Sprintf("result not ready (%s): read %d in %s", code, attempt, HumanDuration(wait))
}

// Log appends an entry to the timeline.
func (a *Action) Log(h Happening) {
	a.timeline = append(a.timeline, h)
	a.Version++
}

// Timeline returns the connection timeline in order.
func (a *Action) Timeline() []Happening { return a.timeline }

// ResumedFrom says where a resumed connection started: its cursor, or the
// beginning when it had none (a loss before the first cursor frame, or a
// restart after a refused cursor).
func ResumedFrom(cursor string) string {
	if cursor == "" {
		return "the beginning"
	}
	return "cursor " + cursor
}

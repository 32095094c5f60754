package model

import "time"

// CancelState follows an explicit cancellation (design §2.9). A 200 reply
// is an acceptance, not an outcome: the outcome is the settled result.
type CancelState struct {
	Requested   bool
	RequestedAt time.Time
	Reason      string
	Accepted    bool   // the cancel route answered 200
	Err         string // the cancel route refused or failed
	EventSeen   bool   // aip.action.cancelled appeared in the event log
}

// RequestCancel records that the operator asked for cancellation.
func (a *Action) RequestCancel(reason string, at time.Time) {
	a.Cancel.Requested, a.Cancel.RequestedAt, a.Cancel.Reason = true, at, reason
	a.Version++
}

// CancelAccepted records the cancel route's 200.
func (a *Action) CancelAccepted() {
	a.Cancel.Accepted = true
	a.Version++
}

// CancelFailed records a refused or failed cancel request.
func (a *Action) CancelFailed(msg string) {
	a.Cancel.Err = msg
	a.Version++
}

// CancelOutcome is the one-line cancel state for the status bar and the
// plain output: "" when no cancel was asked for.
func (a *Action) CancelOutcome() string {
	c := a.Cancel
	switch {
	case !c.Requested:
		return ""
	case a.Settled() && a.Verdict().Word == VerdictCancelled:
		// The outcome decides, whatever the cancel route answered: its reply
		// can be an error although the cancellation happened
		// (protocol §10.6); on the fleet the host's refusal comes back
		// while the central daemon still records the cancellation
		// (protocol §13). Its error stays as a note.
		if c.Err != "" {
			return "cancelled (aipd answered the cancel with an error, yet the action was cancelled: " + c.Err + ")"
		}
		return "cancelled"
	case c.Err != "":
		return "cancel failed: " + c.Err
	case !c.Accepted:
		return "cancel requested"
	case !a.Settled():
		return "cancel accepted, waiting for the outcome"
	default:
		return "cancel came too late: the action had already " + a.outcomeWord()
	}
}

func (a *Action) outcomeWord() string {
	if a.Result != nil {
		return a.Result.Status
	}
	if a.Status != nil {
		return a.Status.State
	}
	return "settled"
}

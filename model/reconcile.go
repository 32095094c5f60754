package model

import "encoding/json"

// Reconciliation is what the operator should do when the outcome is
// uncertain (guide §12–§14): reconcile the provider record, never re-run a
// stream. It is empty for a verified action.
type Reconciliation struct {
	// ResponseGetInput is the exact response_get input for a Responses turn
	// whose verdict is not verified, e.g. {"response_id": "resp_…"}.
	ResponseGetInput string
	// SessionID is the Hermes session a Chat turn carried, when it did.
	SessionID string
	Advice    string
}

// Reconcile returns the reconciliation advice for a settled, unverified
// action, and false when there is nothing to reconcile.
func (a *Action) Reconcile() (Reconciliation, bool) {
	v := a.Verdict() // syncs
	if !v.Final || v.Word == VerdictVerified {
		return Reconciliation{}, false
	}
	if res := a.Result; res != nil && res.Error != nil && len(a.seqs) == 0 && RefusedBeforeHermes(res.Error.Code, res.Error.Message) {
		// The fleet refused it before Hermes ran (protocol §13.4): there
		// is no provider state to reconcile.
		return Reconciliation{Advice: "nothing ran: the fleet refused it before Hermes started, so there is no provider state to check; submit it again as a new submission"}, true
	}
	r := Reconciliation{Advice: "do not re-run the stream: model and tool effects may already exist; " +
		"check the provider's state by hand (aipwatch reads back only a Responses response.id or a Chat session_id)"}
	switch a.streamKind() {
	case OpResponses:
		if id := a.d.resp.ResponseID; id != "" {
			q, _ := json.Marshal(id)
			r.ResponseGetInput = `{"response_id": ` + string(q) + `}` // the guide's §14 form

			r.Advice = "call response_get once with this input to read the stored response (completed, failed or incomplete); do not re-run the stream: tool or delivery effects may precede that snapshot"
		} else {
			r.Advice = "no response.id was captured (was body.store true?), so the stored response cannot be read back; " +
				"do not re-run the stream: tool or delivery effects may already exist"
		}
	case OpChat:
		if f := a.d.chat.Finish; f != nil && f.Hermes != nil {
			r.SessionID = f.Hermes.SessionID
		}
		if r.SessionID == "" {
			r.SessionID = a.SubmittedSession
		}
		if r.SessionID != "" {
			r.Advice = "inspect the Hermes session before deciding that another action is safe; do not re-run the stream"
		} else {
			r.Advice = "no Hermes session_id was captured or submitted, so the session cannot be read back; " +
				"do not re-run the stream: model and tool effects may already exist"
		}
	}
	return r, true
}

package stream

import (
	"encoding/json"
	"time"

	"aipwatch/model"
)

// The fleet's own errors (design §14, protocol §13): refusals of the
// connector host (source component aip-connector-host) and of the central
// daemon's admission, raised before the host runs Hermes. Each reads as one
// line: what happened, and what to do. aipwatch never resends a submission
// on any of them: the operator submits again, as a new submission, once the
// fleet has room.

// FleetAdvice is the line that says what a fleet error means and what to
// do ("" for any other error). message is the daemon's message (only
// searched for the no-tenant refusal), retryAfter its retry_after_ms (0
// when it gave none), details its details object (may be nil).
func FleetAdvice(code, message string, retryAfter time.Duration, details json.RawMessage) string {
	if !model.RefusedBeforeHermes(code, message) { // the one list of them
		return ""
	}
	if retryAfter <= 0 {
		retryAfter = detailMillis(details, "retry_after_ms")
	}
	again := "submit it again as a new submission"
	if retryAfter > 0 {
		again += " after " + model.HumanDuration(retryAfter) + " or later"
	} else {
		again += " in a moment"
	}
	const nothing = "nothing ran and aipwatch resends nothing"
	switch code {
	case model.CodeHostNotReady:
		return "the connector host that runs Hermes is draining or not registered yet: " + nothing + "; " + again + ", or check the host (aip-host-hermes-agent)"
	case model.CodeHostCapacity:
		return "the connector host is running as many actions as it may: " + nothing + "; " + again
	case model.CodeSchedulerOverloaded:
		return "the fleet's admission queue is full: " + nothing + "; " + again
	case model.CodeAdmissionCapacity:
		scope := ""
		var s string
		if json.Unmarshal(details, &s) == nil && s != "" {
			scope = " (" + oneLine(s, 40) + ")"
		}
		return "an admission limit of the fleet is exhausted" + scope + ": " + nothing + "; " + again + ", or ask the daemon's operator to raise the limit"
	case model.CodeRequestRejected:
		return "the fleet's admission refused the request: " + nothing + "; check the request and the daemon's connector settings before submitting it again"
	default: // no verified tenant (model.NoTenantText)
		return "this daemon runs Hermes through a connector host, which needs a verified tenant: " + nothing +
			"; the daemon needs a tenant on its native edge (--native-tenant-id), or use a token bound to a tenant"
	}
}

// Advice is FleetAdvice of this error.
func (e *Error) Advice() string {
	if e == nil {
		return ""
	}
	return FleetAdvice(e.Code, e.Message, e.retryAfter, e.Details)
}

// detailMillis is a number of milliseconds in the error's details
// (details.retry_after_ms), 0 when absent.
func detailMillis(details json.RawMessage, key string) time.Duration {
	var m map[string]json.RawMessage
	if json.Unmarshal(details, &m) != nil {
		return 0
	}
	var n float64
	if json.Unmarshal(m[key], &n) != nil || n <= 0 || n > 24*3600*1000 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

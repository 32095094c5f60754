package model

import "strings"

// The fleet's refusals (protocol §13.4): raised by the connector host or
// the central admission before Hermes runs, so nothing ran. stream words
// them for the operator (stream.FleetAdvice); the reconcile advice reads
// them here.
const (
	CodeHostNotReady        = "connector_host.not_ready"
	CodeHostCapacity        = "connector_host.capacity"
	CodeSchedulerOverloaded = "connector.scheduler_overloaded"
	CodeAdmissionCapacity   = "connector.admission_capacity"
	CodeRequestRejected     = "connector.request_rejected"
	// NoTenantText is what the daemon's message says when remote execution
	// has no verified tenant; its wire code was not read (protocol §13.4),
	// so the message decides.
	NoTenantText = "requires a verified tenant"
)

// RefusedBeforeHermes reports whether an error (its code and message) is
// one of the fleet's refusals, raised before the connector host ran
// Hermes: nothing ran.
func RefusedBeforeHermes(code, message string) bool {
	switch code {
	case CodeHostNotReady, CodeHostCapacity, CodeSchedulerOverloaded, CodeAdmissionCapacity, CodeRequestRejected:
		return true
	}
	return strings.Contains(message, NoTenantText)
}

package sim

import "errors"

// This file is the daemon's second deployment: the released getaip-server
// reaches Hermes through a connector host instead of running the Hermes
// connector in its own process (getaip/core crates/getaip-server/Cargo.toml
// links no aip-connector-hermes-agent; the host is crates/aip-host-hermes-agent,
// reached over crates/aip-connector-remote). Short names in the comments
// below, as in docs/protocol.md: REMOTE = crates/aip-connector-remote/src/lib.rs,
// HOST = crates/aip-connector-host/src/lib.rs, RT = crates/aip-runtime/src/lib.rs,
// GW = crates/aip-gateway/src/lib.rs.
//
// The word "fleet" means two things in this package: Fleet (fleet.go) is a
// daemon hosting several actions, for the console; TopologyFleet is how one
// daemon runs each action, through a connector host. A Fleet runs on either
// topology (FleetKnobs.Topology).

// Deployments (Knobs.Topology, FleetKnobs.Topology).
const (
	// TopologyInProcess is the build with Hermes in the daemon's own process
	// (getaip-server-legacy-bundled): every chunk the connector emits is
	// recorded and published, in every mode. "" means the same.
	TopologyInProcess = "in-process"
	// TopologyFleet is the released getaip-server: the central daemon's
	// RemoteConnectorHandler sends the action to a connector host, which runs
	// Hermes in its own runtime and store (REMOTE NativeAipHttpDispatcher::invoke).
	// An action submitted async or sync records no chunk centrally; only
	// streaming carries a callback through which the host's chunks are
	// recorded centrally.
	TopologyFleet = "fleet"
)

// ModeStreaming is the third execution mode (the Hermes capabilities'
// expected_completion). It takes the synchronous path on both topologies
// (RT submit_action branches only on async): the POST is held open and
// answers the result, and there is no record while it runs.
const ModeStreaming = "streaming"

// The fleet's errors (Knobs.FleetError): what a submission meets when the
// connector host or the central admission refuses it.
const (
	// FleetErrHostNotReady: the host is draining, its lease is not valid,
	// or its connector's health probe failed (HOST host_message).
	FleetErrHostNotReady = "connector_host.not_ready"
	// FleetErrHostCapacity: the host's local concurrency is exhausted
	// (HOST host_message).
	FleetErrHostCapacity = "connector_host.capacity"
	// FleetErrSchedulerOverloaded: the central fair-admission queue is full
	// (REMOTE fair_admission_runtime_error), retry_after_ms 100.
	FleetErrSchedulerOverloaded = "connector.scheduler_overloaded"
	// FleetErrAdmissionCapacity: a hard admission counter of the registry is
	// exhausted (REMOTE registry_runtime_error).
	FleetErrAdmissionCapacity = "connector.admission_capacity"
	// FleetErrNoTenant: the native edge has no verified tenant, which remote
	// execution requires (REMOTE RemoteConnectorHandler::route_request).
	FleetErrNoTenant = "no_verified_tenant"
)

// FleetErrors are the values Knobs.FleetError takes.
var FleetErrors = []string{FleetErrHostNotReady, FleetErrHostCapacity, FleetErrSchedulerOverloaded,
	FleetErrAdmissionCapacity, FleetErrNoTenant}

// hostSource is the source of every refusal the connector host signs
// (HOST host_message, route_error, gateway_protocol_error).
func hostSource() obj { return o("component", "aip-connector-host") }

// fleetError is the ProtocolError of a Knobs.FleetError. Every one of them
// is an Err of the remote handler (REMOTE RemoteConnectorHandler::handle_with_context),
// raised before the host runs Hermes: the runtime treats it as any handler
// error (a sync or streaming submission gets it as its HTTP reply, with the
// status of its category, and nothing is persisted; an async one is acked
// and its worker stores it as a failed result, dead-lettered, since a
// Hermes stream has no retry policy: RT retry_policy_for_capability). A
// host's refusal reaches the central daemon as the error envelope of a
// non-2xx reply, which GW NativeAipHttpClient::exchange returns and REMOTE
// NativeAipHttpDispatcher::invoke passes on unchanged
// (RuntimeError::Protocol), source and all.
func fleetError(name string) (*protoErr, error) {
	switch name {
	case FleetErrHostNotReady:
		// HOST host_message: HTTP 503 from the host; retry_after_ms is the
		// host's heartbeat interval (DEFAULT_HEARTBEAT_INTERVAL_MS 10 000).
		return &protoErr{Code: name, Message: "connector host is draining or its lease is not valid",
			Category: "temporary", Retryable: true, RetryAfterMs: 10_000, Source: hostSource()}, nil
	case FleetErrHostCapacity:
		// HOST host_message: HTTP 429 from the host, retry_after_ms 100
		// (the host's own figure); the central daemon answers by the
		// category (temporary: 503).
		return &protoErr{Code: name, Message: "connector host local concurrency capacity is exhausted",
			Category: "temporary", Retryable: true, RetryAfterMs: 100, Source: hostSource()}, nil
	case FleetErrSchedulerOverloaded:
		// REMOTE fair_admission_runtime_error: the message is the
		// FairAdmissionError's (QueueFull here), no details.
		return &protoErr{Code: name, Message: "remote action queue is full",
			Category: "temporary", Retryable: true, RetryAfterMs: 100,
			Source: o("component", "aip-connector-remote.scheduler")}, nil
	case FleetErrAdmissionCapacity:
		// REMOTE registry_runtime_error of RegistryError::CapacityExceeded
		// {scope, retry_after_ms}: the message names the scope as Debug
		// prints it, the details are the scope as serde writes it
		// (AdmissionScopeKind, snake_case; Tenant here). The registry's
		// retry_after_ms is its own bounded guidance, not read: 1000 is the
		// simulator's.
		return &protoErr{Code: name, Message: "connector admission capacity is exhausted for `Tenant`",
			Category: "temporary", Retryable: true, RetryAfterMs: 1000, Details: "tenant",
			Source: o("component", "aip-connector-remote")}, nil
	case FleetErrNoTenant:
		// REMOTE route_request: RuntimeError::Authorization("remote
		// connector execution requires a verified tenant"), whose Display
		// is "authorization failed: …" (RT RuntimeError). The code the
		// runtime gives an Authorization error on the wire is not read from
		// the source ([U] in the spec): auth.not_authorized, category auth
		// (HTTP 401), is the simulator's reading, the runtime's code for a
		// refused sender.
		return &protoErr{Code: "auth.not_authorized", Message: "authorization failed: remote connector execution requires a verified tenant",
			Category: "auth", Source: runtimeSource()}, nil
	}
	return nil, errors.New("sim: FleetError must be one of connector_host.not_ready, connector_host.capacity, " +
		"connector.scheduler_overloaded, connector.admission_capacity, no_verified_tenant")
}

// hostCancelError is the host's refusal of a cancel (Knobs.CancelErrorReply
// on TopologyFleet): REMOTE cancel_with_context awaits the dispatcher's
// cancel, whose error envelope from the host comes back as
// RuntimeError::Protocol. The host answers a runtime failure of its gateway
// as connector_host.execution, category connector (HOST
// gateway_protocol_error), so the central cancel route answers HTTP 502.
// The message is the simulator's (the host's is its gateway error's text).
func hostCancelError() *protoErr {
	return &protoErr{Code: "connector_host.execution", Message: "connector host could not cancel the action",
		Category: "connector", Source: hostSource()}
}

// centralChunksLocked reports whether a chunk the connector emits is
// recorded in the daemon's store: always in-process (RT
// RuntimeActionStreamEmitter::emit); on the fleet only for a streaming
// submission, whose chunks the host posts to the central
// /aip/v1/connector-callbacks (REMOTE NativeAipHttpDispatcher::invoke keeps
// its mode and adds the callback; REMOTE ConnectorEventIngress::handle_stream_callback
// refuses a callback whose original_mode is not streaming, and HOST
// validate_pinned_route refuses a callback on a non-streaming action). An
// async action is sent to the host as sync with no callback, a sync one as
// it is: their chunks stay in the host's own store.
func (s *Server) centralChunksLocked() bool {
	return s.topology != TopologyFleet || s.streaming
}

// failErr is the error a failing handler returns: the fleet's refusal
// (Knobs.FleetError), else the Hermes connector's broken stream.
func (s *Server) failErr() *protoErr {
	if s.fleetErr != nil {
		return s.fleetErr
	}
	return transportErr()
}

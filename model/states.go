package model

// LifecycleStates are AIP's lifecycle states (protocol §6.1), in the order
// an action goes through them: the values `ls --state` takes and completes.
var LifecycleStates = []string{StateAccepted, StateQueued, StateRunning, StateStreaming, StatePendingApproval,
	StateCancelling, StateCancelled, StateCompleted, StateFailed, StateExpired, StateDeadLettered}

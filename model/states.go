package model

import "slices"

// LifecycleStates are AIP's lifecycle states (protocol §6.1), in the order
// an action goes through them: the values `ls --state` takes and completes.
var LifecycleStates = []string{StateAccepted, StateQueued, StateRunning, StateStreaming, StatePendingApproval,
	StateCancelling, StateCancelled, StateCompleted, StateFailed, StateExpired, StateDeadLettered}

// SettledStates are the lifecycle states of a settled action: those
// TerminalState reports, the console's settled filters.
var SettledStates = []string{StateCancelled, StateCompleted, StateFailed, StateExpired, StateDeadLettered}

// KnownState reports whether s is one of AIP's lifecycle states
// (ActionLifecycleState, protocol §6.1), or unknown: a word outside them
// is the daemon's, shown marked unknown (ActionRow.Cells), never taken for
// ours.
func KnownState(s string) bool { return s == StateUnknown || slices.Contains(LifecycleStates, s) }

// TerminalState reports whether a lifecycle state is terminal (settled).
func TerminalState(s string) bool { return slices.Contains(SettledStates, s) }

// Package ui is aipwatch's live terminal interface: the live view of one
// action (Live), a component that follows it through a stream.Runner (the
// stream client), folds every message into the model with stream.Apply,
// and draws the header, the transcript, the tools pane, the status bar and
// the help; the screen of `aipwatch ID` (Single), which hosts one; and the
// program shell (shell.go) that runs every full-screen view, this one, the
// split view's (ui/split) and the console's (ui/console), on the I/O it is
// given. The split view and the console host live views too (tag.go: how
// a host tells their messages apart).
//
// Rules kept here (see docs/protocol.md §12): no I/O in Update —
// the backend runs in a goroutine started by a command and its messages
// come back through a listen command, cancellation and markdown rendering
// run in commands too; View assembles only the visible rows from the
// render package's cached, pre-wrapped lines; quitting is detaching, never
// cancelling (design §2.8).
package ui

import (
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// Options configure one run of the interface.
type Options struct {
	ActionID     string
	Keys         KeyMap // every binding and its help (main builds it in keymap.go)
	Backend      stream.Runner
	Redact       bool
	NoColor      bool // also honour NO_COLOR (main passes the combined flag)
	CancelReason string
	// NoCancel, when set, is what c says instead of asking: the view may
	// not cancel (a watch key of `aipwatch serve`, design §15), and
	// nothing is sent.
	NoCancel string
	// NoExport, when set, is what e says instead of writing the export
	// (a session of `aipwatch serve`: the file would land on the server).
	NoExport   string
	AutoCancel bool                       // --cancel: send the cancel once attached, no confirmation
	Resume     func(cursor string) string // the shell command that resumes from a cursor

	// ExportPath is where e writes the Markdown export (main passes the
	// --export FILE); "" = aipwatch-<action id>-<UTC time>.md in the
	// current directory. The file is written with mode 0600.
	ExportPath string
	// Version is aipwatch's version, for the export's footer.
	Version string
	// Replay: the run is a --replay of a recording. The status bar shows
	// REVIEW from the start (a recording of a live run says "live"), and c
	// says that there is nothing to cancel instead of asking.
	Replay bool
	// RawCap is the raw diagnostics cap in bytes (model.Action.SetRawCap):
	// beyond it the oldest chunks' raw bytes are dropped with a notice.
	// 0 = model.DefaultRawCap, < 0 = no cap.
	RawCap int64
	// Reconcile is the R key (ui/reconcile.go); nil = no R.
	Reconcile ReconcileFunc
	// Notification is what the terminal is sent when the action settles
	// (design §10: the bell, OSC 9, OSC 777 where spoken; main builds it
	// with output.Notification); nil when the output is no terminal:
	// then nothing is ever sent and n is off. Notify (--notify) asks for
	// it from the start; n asks for it, or not, while the action runs.
	Notification func(*model.Action) string
	Notify       bool
	// NotifyHint, when set, is the notice shown when the notification is
	// sent instead of "notified": the multiplexer drops it, and how to let
	// it through (design §13).
	NotifyHint string
	// Session is the Hermes session_id the input carried when it was
	// submitted (model.Action.SubmittedSession).
	Session string
	// Neighbours are the other action IDs the operator sees beside this
	// one (the console's list): the cancel's confirmation asks for as many
	// of the ID's last characters as tell it from each of them.
	Neighbours []string
	// Context is the config file's context whose daemon runs the action
	// (a console across contexts): the header and the cancel's
	// confirmation name it.
	Context string
	// Pane: the view is one pane of a split view (design §12), whose host
	// draws one key line for every pane: the view's own last row shows
	// only its notices (and the search line while one is typed), and its ?
	// lists the split's keys.
	Pane bool

	// Look, when set, is the styles and Markdown renderer the view shares
	// with the others its host shows (nil: its own, NoColor's).
	Look *Look

	// Gather, when set, listens for the view's stream together with the
	// other views' of its host (ui/gather.go): the batches of one tick
	// reach the host as one message, drawn in one frame.
	Gather *Gather

	// Clock is the time source for elapsed times, ages, durations and the
	// spinner (nil = time.Now). Tests inject a fixed clock so screens are
	// stable.
	Clock func() time.Time
}

// DefaultCancelReason is sent when Options.CancelReason is empty.
const DefaultCancelReason = "cancelled by the operator from aipwatch"

// Action is the model the interface shows.
func (m *Live) Action() *model.Action { return m.action }

// Close stops the backend (if it is running) and waits for it briefly,
// then marks an unsettled action as stopped. Run does this itself.
func (m *Live) Close() {
	m.changed()
	m.run.stop()
	m.finish()
}

// finish records that the viewer stops here.
func (m *Live) finish() {
	if !m.action.Settled() && m.action.Phase() != model.PhaseStopped {
		m.action.Stop()
	}
}

// Failure is the error that stopped the following, if any (once the view
// is closed: Close).
func (m *Live) Failure() error { return m.failure() }

// failure is the error that stopped the following, if any.
func (m *Live) failure() error {
	if f := m.fatal(); f != nil {
		return f
	}
	if err := m.run.result(); err != nil && !m.run.stopped(err) {
		return err
	}
	return nil
}

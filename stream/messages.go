package stream

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"aipwatch/model"
)

// Msg is everything that crosses from the stream client to its consumer
// (the TUI, the plain and jsonl printers). All message types live in this
// file. A Sink receives them in order from one goroutine.
type Msg interface{ streamMsg() }

// Sink is the one small interface the client talks to.
type Sink interface{ Send(Msg) }

// Runner is one run to follow, for every consumer (the TUI, plain, jsonl,
// a recording): the Client, a Submission, a replay, or a test's fake.
type Runner interface {
	// Run does the whole run (status probe, follow, reconnects, drain,
	// result, final status), sending messages to sink in order from one
	// goroutine, and returns when done or when ctx ends.
	Run(ctx context.Context, sink Sink) error
	// Cancel asks aipd to cancel the action (design §2.9).
	Cancel(ctx context.Context, reason string) CancelMsg
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Msg)

// Send calls f.
func (f SinkFunc) Send(m Msg) { f(m) }

// StatusMsg is a status read: the probe at start and the re-read at the end.
type StatusMsg struct {
	At     time.Time // when it happened; zero = when it is applied (replays set it)
	Status model.ActionStatus
	Final  bool // the re-read after the result (design §2.9)
}

// ModeMsg says how the action is being read: live follow, or review of an
// action that had already settled when aipwatch attached (paging, no follow).
type ModeMsg struct {
	At     time.Time // when it happened; zero = when it is applied (replays set it)
	Review bool
}

// Attached reports whether m attaches a consumer to the action: the probe
// has decided between live follow and review (ModeMsg, sent before any
// connection). --cancel is sent then, once, by the TUI and by plain/jsonl
// alike (a review of a settled action gets "too late").
func Attached(m Msg) bool {
	_, ok := m.(ModeMsg)
	return ok
}

// ConnectedMsg: a follow connection is open (attempt 1 is the first).
type ConnectedMsg struct {
	At      time.Time // when it happened; zero = when it is applied (replays set it)
	Attempt int
	Cursor  string // the cursor it resumed from ("" = from the beginning)
	Resumed bool
}

// ReconnectingMsg: the connection was lost; the next try is in Wait.
type ReconnectingMsg struct {
	At      time.Time // when it happened; zero = when it is applied (replays set it)
	Attempt int       // the attempt that will be made after Wait
	Wait    time.Duration
	Cause   string // one line, safe to show after sanitising
}

// RestartMsg: the cursor was refused (expired / invalid); following starts
// again from the beginning, once. De-duplication makes that safe.
type RestartMsg struct {
	At   time.Time // when it happened; zero = when it is applied (replays set it)
	Code string
}

// NoRecordMsg: the first status read said `unknown`. aipd has no record of
// the action yet (a synchronous action has none until it settles,
// protocol §6.1): it is followed anyway, for at most
// AppearTimeout if nothing of it arrives (design §2 step 1).
type NoRecordMsg struct {
	At            time.Time // when it happened; zero = when it is applied (replays set it)
	ActionID      string
	AppearTimeout time.Duration
}

// CursorFreeMsg: aipd refused its own cursors again after the one restart
// (a Postgres-backed daemon always does, protocol §10.2). From now
// on the run reads the action without cursors: GET /aip/v1/actions/{id}
// with include_chunks=true, which returns every chunk (design §2 step 6).
type CursorFreeMsg struct {
	At   time.Time // when it happened; zero = when it is applied (replays set it)
	Code string
}

// ResultWaitMsg: the result is not ready yet; read number Attempt follows
// after Wait (design §2 step 7: retried visibly, and with a bound).
type ResultWaitMsg struct {
	At      time.Time // when it happened; zero = when it is applied (replays set it)
	Attempt int
	Wait    time.Duration
	Code    string
}

// UnsettledMsg: design §2 step 6b. The action has chunks but no record
// and no result, and showed no progress for StallTimeout: it will never
// settle (a synchronous run whose handler failed). The verdict is
// incomplete with Reason.
type UnsettledMsg struct {
	At     time.Time // when it happened; zero = when it is applied (replays set it)
	Reason string
	Stall  time.Duration
}

// BatchMsg carries chunks and events in arrival order since the last batch.
// Chunks arrive batched (about 30 a second at most, with an immediate flush
// on a structural chunk) so a fast stream does not cost one message a delta.
type BatchMsg struct {
	Chunks []model.StreamChunk
	Events []model.Event
	At     time.Time // when the last of them arrived
}

// CursorMsg: the id of the latest aip.stream.cursor frame.
type CursorMsg struct {
	Cursor string
}

// LivenessMsg: bytes or a keep-alive arrived (sent at most once a second).
type LivenessMsg struct {
	At        time.Time
	Keepalive bool
}

// TerminalMsg: aip.stream.terminal arrived; draining and the result follow.
type TerminalMsg struct {
	At     time.Time // when it happened; zero = when it is applied (replays set it)
	Cursor string
}

// ResultMsg: the final ActionResult.
type ResultMsg struct {
	At     time.Time // when it happened; zero = when it is applied (replays set it)
	Result model.ActionResult
}

// CancelMsg: the reply to an explicit cancel request.
type CancelMsg struct {
	At       time.Time // when it happened; zero = when it is applied (replays set it)
	Accepted bool
	Err      *Error // nil when accepted
}

// ErrorMsg: following cannot go on (exit 1). Err names the AIP code.
type ErrorMsg struct {
	At  time.Time // when it happened; zero = when it is applied (replays set it)
	Err *Error
}

// BadFrameMsg: a frame that claimed a known kind (a chunk, an event, a
// cursor, a terminal or an error frame) could not be decoded. It was skipped
// and the run goes on; Count is the number of such frames so far in the run.
type BadFrameMsg struct {
	Event  string
	ID     string
	Reason string // one line
	Count  int
	// Chunks is how many of the skipped frames or page items were chunks:
	// lost evidence, which Apply hands to the model as a conflict
	// (design §3). See LostChunks.
	Chunks int
}

// LostChunks is the number of chunks the message reports lost: Chunks, or
// for a message about one frame that did not set it, 1 when the frame was
// named aip.stream.chunk or was routed as an undecodable chunk.
func (m BadFrameMsg) LostChunks() int {
	if m.Chunks > 0 {
		return m.Chunks
	}
	if m.Event == evChunk || strings.HasPrefix(m.Reason, "undecodable chunk") {
		return 1
	}
	return 0
}

// GlobalEventsMsg carries events of the daemon's global log (design §7),
// in arrival order, from FollowEvents.
type GlobalEventsMsg struct {
	Events []model.Event
	At     time.Time
}

// GlobalLinkMsg: the state of the global-log follow changed. Live: a
// connection is open. Denied: the token may not read the global log (401 or
// 403, scope events:read:any): the follow has stopped for good. Cause says
// why it is not live.
type GlobalLinkMsg struct {
	Live   bool
	Denied bool
	Cause  string
	// Context is the daemon's context across several (Multi), "" for
	// one daemon.
	Context string
}

// GlobalProgressMsg: the global-log follow is catching up to the head
// (design §7): Read positions (or events, when the cursors are not
// positions) of Of (0 = unknown) since it started reading; FromStart: the
// daemon refused the seek, so the log is read from its beginning (only
// the last window of events is kept). GlobalLinkMsg{Live} ends it.
type GlobalProgressMsg struct {
	Read, Of  int64
	FromStart bool
}

// DoneMsg: the run is over (the result and the final status were read, or
// an ErrorMsg was sent, or the context ended). Nothing follows it.
type DoneMsg struct{}

func (StatusMsg) streamMsg()         {}
func (ModeMsg) streamMsg()           {}
func (ConnectedMsg) streamMsg()      {}
func (ReconnectingMsg) streamMsg()   {}
func (RestartMsg) streamMsg()        {}
func (NoRecordMsg) streamMsg()       {}
func (CursorFreeMsg) streamMsg()     {}
func (ResultWaitMsg) streamMsg()     {}
func (UnsettledMsg) streamMsg()      {}
func (BatchMsg) streamMsg()          {}
func (CursorMsg) streamMsg()         {}
func (LivenessMsg) streamMsg()       {}
func (TerminalMsg) streamMsg()       {}
func (ResultMsg) streamMsg()         {}
func (CancelMsg) streamMsg()         {}
func (ErrorMsg) streamMsg()          {}
func (BadFrameMsg) streamMsg()       {}
func (DoneMsg) streamMsg()           {}
func (GlobalEventsMsg) streamMsg()   {}
func (GlobalLinkMsg) streamMsg()     {}
func (GlobalProgressMsg) streamMsg() {}

// Frame is one SSE frame exactly as received (Config.OnFrame, for
// --record): its event name, its own id (never inherited from an earlier
// frame), its data lines joined with "\n", and its comment lines joined
// with "\n". A keep-alive is a frame with only Comment set. Frames taken
// from non-follow JSON pages (review and drain) are passed on too, rebuilt
// in the follow form aipd uses (an event frame per event, a chunk frame per
// chunk, a cursor frame) with Page set, so a recording replays through the
// same parser.
type Frame struct {
	At      time.Time
	Event   string
	ID      string
	Data    []byte
	Comment string
	Page    bool
}

// Page is one non-follow page of GET /aip/v1/actions/{id}/events
// (protocol §5.8). Undecodable items are left out and counted in Bad.
type Page struct {
	Events   []model.Event
	Chunks   []model.StreamChunk
	Cursor   string
	Terminal bool
	Bad      int // undecodable items, events and chunks
	// BadChunks is how many of Bad were chunks (BadFrameMsg.Chunks).
	BadChunks int

	rawEvents []json.RawMessage // beside Events; a chunk's bytes are its Raw
}

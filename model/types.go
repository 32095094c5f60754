package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ChunkKind is StreamChunk.kind (protocol §7.1). Unknown kinds are kept as
// they came and shown generically; they are never fatal.
type ChunkKind string

// The eight chunk kinds aipd defines.
const (
	KindData            ChunkKind = "data"
	KindProgress        ChunkKind = "progress"
	KindTool            ChunkKind = "tool"
	KindThought         ChunkKind = "thought"
	KindPreview         ChunkKind = "preview"
	KindPendingApproval ChunkKind = "pending_approval"
	KindError           ChunkKind = "error"
	KindDone            ChunkKind = "done"
)

// Terminal reports whether the kind ends the AIP chunk stream.
func (k ChunkKind) Terminal() bool { return k == KindDone || k == KindError }

// MessagePart is the tagged MessagePart of protocol §6.2. Only the fields a
// viewer needs are decoded; the rest stay in the raw chunk.
type MessagePart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text,omitempty"`
	Format     string          `json:"format,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// StreamChunk is one durable AIP chunk (protocol §7.1).
type StreamChunk struct {
	ActionID string          `json:"action_id"`
	Sequence uint64          `json:"sequence"`
	Kind     ChunkKind       `json:"kind"`
	Data     json.RawMessage `json:"data,omitempty"`
	Part     *MessagePart    `json:"part,omitempty"`

	// Raw is the chunk object exactly as received. It is the evidence behind
	// replay/conflict decisions and the "r" diagnostics view; never rendered
	// unless asked for.
	Raw []byte `json:"-"`

	hint *chunkHint // Data as decoded with the chunk (DecodeChunk's fast path)
}

// DecodeChunk decodes one StreamChunk object, keeping its raw bytes.
func DecodeChunk(raw []byte) (StreamChunk, error) {
	return DecodeChunkOwned(append([]byte(nil), raw...))
}

// DecodeChunkOwned is DecodeChunk for bytes the caller hands over: the
// chunk keeps raw itself as its Raw (and Data within it) instead of a
// copy, so raw must not be changed afterwards.
func DecodeChunkOwned(own []byte) (StreamChunk, error) {
	raw := own
	if c, ok := decodeChunkFast(own); ok {
		c.Raw = own
		return c, nil
	}
	var c StreamChunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return StreamChunk{}, fmt.Errorf("chunk: %w", err)
	}
	c.Raw = own
	return c, nil
}

// HermesSSE is the Hermes connector's envelope for one provider frame,
// carried as chunk.data.hermes_sse (protocol §8.1).
type HermesSSE struct {
	Event    string          `json:"event,omitempty"`
	ID       string          `json:"id,omitempty"`
	Data     json.RawMessage `json:"data"`
	RawData  string          `json:"raw_data"`
	Terminal bool            `json:"terminal"`
}

// Name is the provider event name the connector uses to classify a frame:
// the SSE event name, else data.event, else data.type.
func (h *HermesSSE) Name() string {
	if h.Event != "" {
		return h.Event
	}
	var probe struct {
		Event string `json:"event"`
		Type  string `json:"type"`
	}
	if len(h.Data) > 0 && h.Data[0] == '{' {
		_ = json.Unmarshal(h.Data, &probe)
	}
	if probe.Event != "" {
		return probe.Event
	}
	return probe.Type
}

// IsDoneMarker reports the Chat `data: [DONE]` frame. The connector compares
// after trimming (protocol §10.7), so `data: [DONE] ` is one too.
func (h *HermesSSE) IsDoneMarker() bool { return isDoneText(h.RawData) }

// isDoneText is the connector's `raw_data.trim() == "[DONE]"`.
func isDoneText(s string) bool { return len(s) <= 64 && strings.TrimSpace(s) == "[DONE]" }

// chunkData is the shape of chunk.data for the Hermes connector and for the
// connector's extra error chunk.
type chunkData struct {
	HermesSSE *HermesSSE `json:"hermes_sse"`
	Operation string     `json:"operation"`
	Reason    string     `json:"reason"`
}

// Event is a runtime event (protocol §7.2).
type Event struct {
	ID            string          `json:"id"`
	Kind          string          `json:"kind"`
	OccurredAt    string          `json:"occurred_at,omitempty"`
	SessionID     string          `json:"session_id,omitempty"`
	ActionID      string          `json:"action_id,omitempty"`
	CorrelationID string          `json:"correlation_id,omitempty"`
	Actor         json.RawMessage `json:"actor,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
	Context       string          `json:"-"` // the context whose global log it came from (never on the wire)
}

// ProtocolError is the AIP error object (protocol §7.3).
type ProtocolError struct {
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Category     string          `json:"category,omitempty"`
	Retryable    bool            `json:"retryable,omitempty"`
	RetryAfterMs uint64          `json:"retry_after_ms,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
	Source       json.RawMessage `json:"source,omitempty"`
}

func (e *ProtocolError) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// ConnectorOutput is the Hermes connector aggregate in ActionResult.output
// (protocol §8.3). Terminal and Truncated are pointers: another connector's
// output has neither, and absence is not "false".
type ConnectorOutput struct {
	EndpointID string          `json:"endpoint_id,omitempty"`
	Operation  string          `json:"operation,omitempty"`
	HTTPStatus int             `json:"http_status,omitempty"`
	Events     json.RawMessage `json:"events,omitempty"`
	Text       string          `json:"text,omitempty"`
	Terminal   *bool           `json:"terminal,omitempty"`
	Truncated  *bool           `json:"truncated,omitempty"`
}

// Result statuses (ActionResult.status).
const (
	ResultCompleted       = "completed"
	ResultFailed          = "failed"
	ResultCancelled       = "cancelled"
	ResultPendingApproval = "pending_approval"
	ResultRequiresHuman   = "requires_human"
)

// ActionResult is the final AIP result (protocol §6.2).
type ActionResult struct {
	ActionID string          `json:"action_id"`
	Status   string          `json:"status"`
	Output   json.RawMessage `json:"output,omitempty"`
	Message  []MessagePart   `json:"message,omitempty"`
	Usage    json.RawMessage `json:"usage,omitempty"`
	Error    *ProtocolError  `json:"error,omitempty"`

	// Aggregate is Output decoded as the connector aggregate, when it is one.
	Aggregate *ConnectorOutput `json:"-"`
}

// Of reports whether the result may be evidence about the action id: one
// that names another action is none (design §3); one that names none is
// taken as the action's it was asked for.
func (r ActionResult) Of(id string) bool { return r.ActionID == "" || r.ActionID == id }

// DecodeResult decodes an ActionResult object and its connector aggregate.
func DecodeResult(raw []byte) (ActionResult, error) {
	if r, ok := decodeResultFast(raw); ok {
		return r, nil
	}
	var r ActionResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return ActionResult{}, fmt.Errorf("action result: %w", err)
	}
	r.decodeAggregate()
	return r, nil
}

func (r *ActionResult) decodeAggregate() {
	if len(r.Output) == 0 || r.Output[0] != '{' {
		return
	}
	var agg ConnectorOutput
	if json.Unmarshal(r.Output, &agg) != nil {
		return
	}
	if agg.Operation == "" && agg.Terminal == nil && agg.Truncated == nil {
		return // not a connector aggregate
	}
	r.Aggregate = &agg
}

// ErrorCode is the result's protocol error code, or "".
func (r *ActionResult) ErrorCode() string {
	if r == nil || r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// Lifecycle states (protocol §6.1).
const (
	StateUnknown         = "unknown"
	StateAccepted        = "accepted"
	StateQueued          = "queued"
	StateRunning         = "running"
	StateStreaming       = "streaming"
	StatePendingApproval = "pending_approval"
	StateCancelling      = "cancelling"
	StateCancelled       = "cancelled"
	StateCompleted       = "completed"
	StateFailed          = "failed"
	StateExpired         = "expired"
	StateDeadLettered    = "dead_lettered"
)

// KnownQueuedState reports whether s is one of a queue record's states
// (ActionStatus.queued_state, protocol §6.1).
func KnownQueuedState(s string) bool {
	switch s {
	case StateQueued, StateRunning, StateCompleted, StateFailed, StateCancelled, ResultRequiresHuman, StateExpired:
		return true
	}
	return false
}

// KnownResultStatus reports whether s is one of a result's statuses
// (ActionResult.status, protocol §6.2).
func KnownResultStatus(s string) bool {
	switch s {
	case ResultCompleted, ResultFailed, ResultCancelled, ResultPendingApproval, ResultRequiresHuman:
		return true
	}
	return false
}

// ActionStatus is the status route's body (protocol §6.1), leniently decoded.
type ActionStatus struct {
	ActionID     string          `json:"action_id"`
	CapabilityID string          `json:"capability_id,omitempty"`
	SessionID    string          `json:"session_id,omitempty"`
	State        string          `json:"state"`
	QueuedState  string          `json:"queued_state,omitempty"`
	ResultStatus string          `json:"result_status,omitempty"`
	StartedAt    string          `json:"started_at,omitempty"`
	UpdatedAt    string          `json:"updated_at,omitempty"`
	CompletedAt  string          `json:"completed_at,omitempty"`
	Result       *ActionResult   `json:"result,omitempty"`
	Links        json.RawMessage `json:"links,omitempty"`
	// What a queue record adds (protocol §2.1): the worker's
	// lease and the retry bookkeeping.
	Lease *Lease `json:"lease,omitempty"`
	Retry *Retry `json:"retry,omitempty"`

	// Never on the wire: a console across contexts (design §9) says which
	// context's daemon the row was read from, and Unreachable, on a row
	// with no action ID, stands for a daemon that could not be read.
	Context     string `json:"-"`
	Unreachable string `json:"-"`
}

// Lease is a worker's claim on an async action.
type Lease struct {
	WorkerID   string `json:"worker_id,omitempty"`
	LeaseID    string `json:"lease_id,omitempty"`
	AcquiredAt string `json:"acquired_at,omitempty"`
	ExpiresAt  string `json:"expires_at,omitempty"`
}

// Retry is an async action's retry bookkeeping.
type Retry struct {
	Attempts         int    `json:"attempts"`
	NextAttemptAt    string `json:"next_attempt_at,omitempty"`
	DeadLetterReason string `json:"dead_letter_reason,omitempty"`
}

// Operation names of the Hermes connector.
const (
	OpChat      = "chat_stream"
	OpResponses = "responses_stream"
)

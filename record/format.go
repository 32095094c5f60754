// Package record writes and replays aipwatch recordings (--record FILE,
// --replay FILE): JSON lines holding a header, every frame exactly as it
// was received, connection changes, status reads, the result, cancel
// replies and the verdict. A replay feeds the same frames through the same
// routing and model, so it shows the same text and the same verdict as the
// live run, with no network.
package record

import (
	"encoding/json"
	"time"
)

// Format names the line format; a replay refuses another major version.
const Format = "aipwatch-record/1"

// Line is one line of a recording. Type says which fields are set.
type Line struct {
	Type string `json:"type"` // header, frame, conn, status, result, cancel, verdict
	At   string `json:"at,omitempty"`

	// header
	Format    string `json:"format,omitempty"`
	ActionID  string `json:"action_id,omitempty"`
	BaseURL   string `json:"base_url,omitempty"`
	StartedAt string `json:"started_at,omitempty"`
	Version   string `json:"aipwatch_version,omitempty"`
	Redacted  bool   `json:"redacted,omitempty"`

	// frame: exactly as received
	Event   string `json:"event,omitempty"`
	ID      string `json:"id,omitempty"`
	Data    string `json:"data,omitempty"`
	Comment string `json:"comment,omitempty"`
	Page    bool   `json:"page,omitempty"` // rebuilt from a JSON page (review, drain)

	// conn
	State   string `json:"state,omitempty"` // review, live, connected, reconnecting, restart, no_record, cursor_free, result_wait, unsettled, error
	Attempt int    `json:"attempt,omitempty"`
	Cursor  string `json:"cursor,omitempty"`
	WaitMs  int64  `json:"wait_ms,omitempty"`
	Cause   string `json:"cause,omitempty"`
	Code    string `json:"code,omitempty"`

	// status, result, verdict: the object as aipwatch decoded it
	Object json.RawMessage `json:"object,omitempty"`

	// cancel
	Accepted bool   `json:"accepted,omitempty"`
	Error    string `json:"error,omitempty"`
}

func stampOf(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Package journal is the submission journal of contract §6.2:
// $XDG_STATE_HOME/aipwatch/submissions.jsonl (else
// ~/.local/state/aipwatch/submissions.jsonl), one JSON object a line, mode
// 0600, each line synced to disk before Append returns, so the action ID
// and idempotency key of a submission are on disk before its first byte is
// sent (guide §2). It keeps IDs and continuity fields, never an input, a
// prompt, an output or the token.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"aipwatch/safe"
)

// Kinds of journal lines.
const (
	KindSubmit    = "submit"    // before the first POST: the stable identity
	KindResend    = "resend"    // before the one resend after an uncertain submission
	KindReply     = "reply"     // what the POST answered (ack, result status, error code, none)
	KindCursor    = "cursor"    // the follow cursor when the run ended
	KindVerdict   = "verdict"   // the verdict when the run ended
	KindReconcile = "reconcile" // a read-only reconcile action (its own ID) and what it read
)

// Entry is one journal line. Only the fields of its kind are set.
type Entry struct {
	Time           time.Time `json:"time"`
	Kind           string    `json:"kind"`
	ActionID       string    `json:"action_id"`
	CapabilityID   string    `json:"capability_id,omitempty"`
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	Mode           string    `json:"mode,omitempty"`
	BaseURL        string    `json:"base_url,omitempty"`     // without credentials
	TokenSource    string    `json:"token_source,omitempty"` // "file:PATH", "env:AIP_TOKEN" or "none"; never the token
	// The continuity fields (guide §2).
	SessionID          string `json:"session_id,omitempty"`
	SessionKey         string `json:"session_key,omitempty"`
	PreviousResponseID string `json:"previous_response_id,omitempty"`
	Conversation       string `json:"conversation,omitempty"`
	// The envelope of this POST (to explain a later replay error).
	MessageID string `json:"message_id,omitempty"`
	SentAt    string `json:"sent_at,omitempty"`

	Reply   string `json:"reply,omitempty"`   // ack:queued, result:failed, replay:completed, error:CODE, none: CAUSE
	Code    string `json:"code,omitempty"`    // the AIP code of a failed result or an error
	Cursor  string `json:"cursor,omitempty"`  // KindCursor
	Verdict string `json:"verdict,omitempty"` // KindVerdict
	// KindReconcile: the action it reconciles and the stored status read.
	Of           string `json:"of,omitempty"`
	StoredStatus string `json:"stored_status,omitempty"`
}

// FileName is the journal's file name inside its directory.
const FileName = "submissions.jsonl"

// Path is the journal's path: $XDG_STATE_HOME/aipwatch/submissions.jsonl
// when XDG_STATE_HOME is an absolute path, else under $HOME/.local/state.
func Path(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "aipwatch", FileName), nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("journal: neither XDG_STATE_HOME nor HOME is an absolute path")
	}
	return filepath.Join(home, ".local", "state", "aipwatch", FileName), nil
}

// Journal is an open journal. Append may be called from any goroutine.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// Open opens (creating) the journal for appending: its directory with mode
// 0700, the file with mode 0600, never through a symbolic link.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// 0600, no symlink, regular file: the project's one rule for the files
	// it writes (safe.OpenPrivate).
	f, err := safe.OpenPrivate(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return &Journal{f: f, path: path}, nil
}

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// Append writes one line and syncs it to disk before returning.
func (j *Journal) Append(e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("journal: closed")
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Read reads every line of a journal (tests, and finding a submission's
// identity again). A line that does not decode is skipped.
func Read(path string) ([]Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, line := range splitLines(b) {
		var e Entry
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}

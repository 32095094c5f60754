package serve

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"aipwatch/safe"
)

// The audit log (design §15): one JSON object a line, mode 0600, appended,
// each line written and synced to disk before what it records is done: a
// cancel's line before its request is sent, so no cancel reaches the
// daemon unrecorded, then a line with the daemon's answer.

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	Time        time.Time `json:"time"`
	Event       string    `json:"event"` // cancel (about to be sent), cancel_answer, reconcile, start, stop
	Name        string    `json:"name,omitempty"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	Role        Role      `json:"role,omitempty"`
	Remote      string    `json:"remote,omitempty"`
	Session     int64     `json:"session,omitempty"`
	Action      string    `json:"action,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Accepted    *bool     `json:"accepted,omitempty"`
	HTTPStatus  int       `json:"http_status,omitempty"`
	Code        string    `json:"code,omitempty"`
	Error       string    `json:"error,omitempty"`
}

// audit is the open audit log.
type audit struct {
	mu     sync.Mutex
	f      *os.File
	closed bool
}

// openAudit opens (or creates) the audit log at path for appending, its
// folder made 0700 when missing.
func openAudit(path string) (*audit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := safe.OpenPrivate(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	return &audit{f: f}, nil
}

// errAuditClosed: the server is stopping; nothing more is recorded, so
// nothing more is sent.
var errAuditClosed = errors.New("the audit log is closed (the server is stopping)")

// record appends e and syncs it; only once it returns nil may what e
// records be done.
func (a *audit) record(e AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return errAuditClosed
	}
	if _, err := a.f.Write(b); err != nil {
		return err
	}
	return a.f.Sync()
}

// close syncs and closes the log; later records fail.
func (a *audit) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	return err
}

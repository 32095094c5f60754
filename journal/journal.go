// Package journal is the submission journal of design §6.2:
// $XDG_STATE_HOME/aipwatch/submissions.jsonl (else
// ~/.local/state/aipwatch/submissions.jsonl), one JSON object a line, mode
// 0600, each line synced to disk before Append returns, so the action ID
// and idempotency key of a submission are on disk before its first byte is
// sent (guide §2). It keeps IDs and continuity fields, never an input, a
// prompt, an output or the token.
//
// Some of those fields come from the daemon (an ack's status, an error
// code, a cursor): a line is written like a record (design §5), its data
// exact but C1, DEL and bidi controls escaped as \u…, and every run of the
// token replaced by its mark (a safe.Writer; safe's route check covers
// this package). The file is opened by safe's private-file
// rule (regular, the user's, one link, never through a symlink, never
// blocking), and read bounded: the newest maxRead bytes.
package journal

import (
	"bytes"
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
	sw   *safe.Writer // every byte goes through it, as a record's do
	path string
}

// Open opens (creating) the journal for appending: its directory with mode
// 0700, the file with mode 0600 by safe's private-file rule. A symlinked
// or loosely permitted directory is refused (checkDir).
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if err := checkDir(path); err != nil {
		return nil, err
	}
	// Read and append: Append reads the last byte to start on a fresh line.
	f, err := safe.OpenPrivate(path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return &Journal{f: f, sw: safe.NewWriter(f, safe.JSONLines), path: path}, nil
}

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// checkDir refuses the journal's directory when it is a symbolic link or
// may be written by group or others, as ssh refuses a loose ~/.ssh:
// whoever can write it can replace the journal, and the journal decides
// what a resend and a reconcile send again. The error names the path and
// the fix.
func checkDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(dir)
		return fmt.Errorf("journal: the directory %s is a symbolic link (to %s): whoever controls the target can replace the journal; make it a directory of your own (rm %s && mkdir -m 700 %s)", dir, target, dir, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("journal: %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("journal: the directory %s may be written by group or others (mode %04o): another user could replace the journal; chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// Append writes one line and syncs it to disk before returning. The line
// goes through a JSONLines safe.Writer, flushed whole (design §5: the
// token scrubbed, DEL, C1 and bidi escaped). It starts on a fresh line:
// after a crash left a torn last line, the new one is not glued onto it.
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
	if torn, err := j.tornEnd(); err != nil {
		return fmt.Errorf("journal: %w", err)
	} else if torn {
		b = append([]byte{'\n'}, b...)
	}
	if _, err := j.sw.Write(b); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.sw.Flush(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// tornEnd reports whether the file's last byte is not a newline (another
// process or a crash left a line unfinished).
func (j *Journal) tornEnd() (bool, error) {
	fi, err := j.f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := j.f.ReadAt(last, fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
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

// MaxRead is how much of the journal is read: its newest 8 MiB (some
// 20,000 submissions). A longer journal is read from the end, and what
// was skipped is said.
const MaxRead = 8 << 20

// Log is what a read of the journal found.
type Log struct {
	Entries []Entry
	// Skipped is how many bytes at the start were not read (the journal
	// is longer than the read's bound).
	Skipped int64
	// Damaged is how many lines did not decode (a torn line a crash left).
	Damaged int
	// Warnings are one line each for the operator: what was skipped, the
	// damaged lines.
	Warnings []string
}

// Read reads the journal's newest lines (tests, and finding a submission's
// identity again). A line that does not decode is skipped.
func Read(path string) ([]Entry, error) {
	l, err := ReadLog(path, MaxRead)
	return l.Entries, err
}

// ReadLog reads at most limit bytes from the end of the journal, under
// safe's private-file rule (a FIFO, a device, a symlink, another user's
// file or a hard link is refused, never waited on or read without end).
func ReadLog(path string, limit int64) (Log, error) {
	if err := checkDir(path); err != nil {
		if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
			return Log{}, statErr // no journal yet: nothing to refuse
		}
		return Log{}, err
	}
	// One byte more than limit: the byte before the newest limit bytes
	// says whether their first line is whole (it follows a '\n').
	b, skipped, err := safe.LimitedReadPrivate(path, limit+1)
	if err != nil {
		return Log{}, err
	}
	l := Log{Skipped: skipped}
	if skipped > 0 || int64(len(b)) > limit {
		// Up to the first '\n' is the end of a line begun before the
		// newest limit bytes (or that byte alone): not a line.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l.Skipped += int64(i + 1)
			b = b[i+1:]
		} else {
			l.Skipped += int64(len(b))
			b = nil
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("journal: %s is longer than %d bytes: only its newest entries were read (%d bytes of older ones skipped)", path, limit, l.Skipped))
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) == nil {
			l.Entries = append(l.Entries, e)
		} else {
			l.Damaged++
		}
	}
	if l.Damaged > 0 {
		l.Warnings = append(l.Warnings, fmt.Sprintf("journal: %d damaged line(s) skipped (a write cut short, e.g. by a crash)", l.Damaged))
	}
	return l, nil
}

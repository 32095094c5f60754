package record

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Writer appends a recording to a file: mode 0600, one write per line (so
// a crash loses at most the line being written), synced when the action
// settles. It never sees the token, but a server may echo it: every line
// goes through a safe.Writer, which scrubs it and escapes DEL, C1 and
// bidi controls as \u… (encoding/json escapes C0), so the record stays
// exact JSON that replays to the same text (design §5).
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	sw     *safe.Writer
	path   string
	redact *redactor // nil = record as received
	err    error     // the first write error; later writes are skipped
}

// Header describes the run being recorded.
type Header struct {
	ActionID string
	BaseURL  string // without credentials
	Started  time.Time
	Version  string
	Redact   bool
}

// Create opens (appending to) path with mode 0600 and writes the header.
// A symlink at path is refused (O_NOFOLLOW), so a planted link cannot
// aim the recording at another file.
func Create(path string, h Header) (*Writer, error) {
	f, err := safe.OpenPrivate(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	w := &Writer{f: f, sw: safe.NewWriter(f, safe.JSONLines), path: path}
	if h.Redact {
		w.redact = newRedactor()
	}
	w.line(Line{Type: "header", At: stampOf(h.Started), Format: Format, ActionID: h.ActionID,
		BaseURL: h.BaseURL, StartedAt: stampOf(h.Started), Version: h.Version, Redacted: h.Redact})
	return w, w.err
}

// Frame records one frame exactly as received (Config.OnFrame).
func (w *Writer) Frame(f stream.Frame) {
	l := Line{Type: "frame", At: stampOf(f.At), Event: f.Event, ID: f.ID, Comment: f.Comment, Page: f.Page}
	if f.Data != nil {
		l.Data = string(f.Data)
	}
	w.mu.Lock()
	if w.redact != nil {
		l.Data = w.redact.frameData(l.Data)
		if l.Comment != "" && l.Comment != "keep-alive" && l.Comment != "keepalive" {
			l.Comment = safe.Masked
		}
	}
	w.mu.Unlock()
	w.line(l)
}

// Message records the messages a replay needs besides frames: the mode,
// connection changes, status reads, the result and cancel replies.
func (w *Writer) Message(m stream.Msg) {
	now := time.Now()
	switch m := m.(type) {
	case stream.ModeMsg:
		state := "live"
		if m.Review {
			state = "review"
		}
		w.line(Line{Type: "conn", At: stampOf(now), State: state})
	case stream.ConnectedMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "connected", Attempt: m.Attempt, Cursor: m.Cursor})
	case stream.ReconnectingMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "reconnecting", Attempt: m.Attempt,
			WaitMs: m.Wait.Milliseconds(), Cause: w.detail(model.HapReconnecting, m.Cause)})
	case stream.RestartMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "restart", Code: m.Code})
	case stream.NoRecordMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "no_record", ActionID: m.ActionID, WaitMs: m.AppearTimeout.Milliseconds()})
	case stream.CursorFreeMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "cursor_free", Code: m.Code})
	case stream.ResultWaitMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "result_wait", Attempt: m.Attempt, WaitMs: m.Wait.Milliseconds(), Code: m.Code})
	case stream.UnsettledMsg:
		w.line(Line{Type: "conn", At: stampOf(now), State: "unsettled", WaitMs: m.Stall.Milliseconds(), Cause: m.Reason})
		w.Sync() // the action settled (unverified): make the evidence durable
	case stream.ErrorMsg:
		if m.Err != nil {
			w.line(Line{Type: "conn", At: stampOf(now), State: "error", Code: m.Err.Code, Cause: w.detail(model.HapError, m.Err.Error())})
		}
	case stream.StatusMsg:
		w.object("status", now, m.Status)
	case stream.ResultMsg:
		w.object("result", now, m.Result)
		w.Sync() // the action settled: make the evidence durable
	case stream.CancelMsg:
		l := Line{Type: "cancel", At: stampOf(now), Accepted: m.Accepted}
		if m.Err != nil {
			l.Error = w.detail(model.HapCancel, m.Err.Error())
		}
		w.line(l)
	}
}

// Verdict records the verdict object (already redacted by the caller when
// asked) and syncs the file.
func (w *Writer) Verdict(rec model.VerdictRecord) {
	b, _ := json.Marshal(rec)
	w.line(Line{Type: "verdict", At: stampOf(time.Now()), Object: b})
	w.Sync()
}

func (w *Writer) object(typ string, at time.Time, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.mu.Lock()
	if w.redact != nil {
		b = w.redact.object(b)
	}
	w.mu.Unlock()
	w.line(Line{Type: typ, At: stampOf(at), Object: b})
}

// detail is a message's free text as the timeline entry of kind k would
// show it: masked under --redact when the timeline's one rule says so.
func (w *Writer) detail(k model.HappeningKind, s string) string {
	if w.redact != nil && k.DetailMasked() {
		return safe.Mask(s)
	}
	return s
}

func (w *Writer) line(l Line) {
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if _, err := w.sw.Write(b); err != nil {
		w.err = fmt.Errorf("--record %s: %w", w.path, err)
	}
}

// Sync flushes the file to disk.
func (w *Writer) Sync() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		if err := w.sw.Flush(); err != nil {
			w.err = fmt.Errorf("--record %s: %w", w.path, err)
			return
		}
		if err := w.f.Sync(); err != nil {
			w.err = fmt.Errorf("--record %s: %w", w.path, err)
		}
	}
}

// Close syncs and closes the file and returns the first error met.
func (w *Writer) Close() error {
	w.Sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// Recording wraps a runner so every message it sends is also recorded.
// Frames come separately, through the client's OnFrame hook.
type Recording struct {
	Inner stream.Runner
	W     *Writer
}

// Run records and forwards each message.
func (r Recording) Run(ctx context.Context, sink stream.Sink) error {
	return r.Inner.Run(ctx, stream.SinkFunc(func(m stream.Msg) {
		r.W.Message(m)
		sink.Send(m)
	}))
}

// Cancel records the reply.
func (r Recording) Cancel(ctx context.Context, reason string) stream.CancelMsg {
	m := r.Inner.Cancel(ctx, reason)
	r.W.Message(m)
	return m
}

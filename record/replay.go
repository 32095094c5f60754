package record

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Replay reads a recording and sends the messages its live run sent, in
// order, through the same routing (stream.FrameMsg), so every output mode
// shows the same text and verdict with no network. A corrupt or truncated
// line is reported with its line number and skipped; nothing after it is
// lost. A recording cut off mid-stream replays as far as it goes, and the
// action is then pending.
type Replay struct {
	path   string
	Header Line
	// Speed: 0 replays instantly; N > 0 replays in recorded time divided by N.
	Speed float64
	// Warn receives one line per skipped line (nil: dropped). Called from
	// Run's goroutine.
	Warn func(string)
	// Recorded is the verdict object the live run wrote, when it did.
	Recorded *model.VerdictRecord
}

// maxLine bounds one recorded line: a frame may be 16 MiB (its data
// escaped as a JSON string, several times that), a result up to the
// 512 MiB reply cap. A longer line is skipped as it is read, never held
// whole, and what follows it is replayed. A variable for tests.
var maxLine = 640 << 20

// errLineTooLong: readLine read past a line longer than maxLine.
var errLineTooLong = errors.New("line too long")

// Open reads the header of a recording.
func Open(path string) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	first, err := readLine(br)
	if err == errLineTooLong {
		return nil, fmt.Errorf("--replay %s: line 1 is longer than %d MiB", path, maxLine>>20)
	}
	if err != nil && first == nil {
		return nil, fmt.Errorf("--replay %s: empty recording", path)
	}
	var h Line
	if json.Unmarshal(first, &h) != nil || h.Type != "header" {
		return nil, fmt.Errorf("--replay %s: line 1 is not an aipwatch recording header", path)
	}
	if !strings.HasPrefix(h.Format, "aipwatch-record/1") {
		return nil, fmt.Errorf("--replay %s: unsupported format %q (this aipwatch reads %s)", path, h.Format, Format)
	}
	if !strings.HasPrefix(h.ActionID, "act_") {
		return nil, fmt.Errorf("--replay %s: the header names no act_ action", path)
	}
	// A replay loads no token, so it scrubs nothing unless told: a
	// credential the recorded URL carried (an older aipwatch took
	// ?token=… in --url, and the server may have echoed it into frames)
	// is protected for the whole replay, and the URL shown without it.
	clean, secrets := safe.URLSecrets(h.BaseURL)
	for _, s := range secrets {
		safe.Protect(s)
	}
	h.BaseURL = clean
	return &Replay{path: path, Header: h}, nil
}

// ActionID is the recorded action.
func (r *Replay) ActionID() string { return r.Header.ActionID }

// Cancel is refused: a replay has no live action.
func (r *Replay) Cancel(context.Context, string) stream.CancelMsg {
	return stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "a replay has no live action to cancel"}}
}

// Run sends the recording's messages to sink. It returns the recorded
// fatal error when the live run ended on one, ctx.Err() when stopped.
func (r *Replay) Run(ctx context.Context, sink stream.Sink) error {
	f, err := os.Open(r.path)
	if err != nil {
		return &stream.Error{Op: "replay", Message: err.Error()}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var (
		batch   stream.BatchMsg
		prevAt  time.Time
		fatal   error
		settled bool
		// settledBefore: an earlier run in the recording read the result
		// (runs append to one recording; each starts with a header line).
		settledBefore bool
		other         bool // the lines are a run of another action, since its header
		lineNo        int
		sentMode      bool
	)
	flush := func() {
		if len(batch.Chunks)+len(batch.Events) > 0 {
			sink.Send(batch)
			batch = stream.BatchMsg{}
		}
	}
	send := func(m stream.Msg) {
		flush()
		sink.Send(m)
	}
	for {
		raw, rerr := readLine(br)
		if rerr == errLineTooLong {
			lineNo++
			r.warn(fmt.Sprintf("%s line %d: longer than %d MiB, skipped", r.path, lineNo, maxLine>>20))
			continue
		}
		if raw == nil && rerr != nil {
			break
		}
		lineNo++
		if lineNo == 1 {
			continue // the header, read by Open
		}
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil || l.Type == "" {
			r.warn(fmt.Sprintf("%s line %d: corrupt or truncated line skipped (%s)", r.path, lineNo, shortErr(err)))
			continue
		}
		if l.Type == "header" {
			// Another run appended to the recording (a resumed run does).
			// A run of another action (--record given the same file for
			// two) is not this action's evidence: skipped, with a warning.
			other = l.ActionID != r.Header.ActionID
			if other {
				r.warn(fmt.Sprintf("%s line %d: a run of another action (%s) appended here is skipped", r.path, lineNo, l.ActionID))
				continue
			}
			// An earlier run's failure is not how the recording ends. Its
			// error stays in the connection log; the next run's mode
			// starts it again (model.Action.ConnReview).
			fatal, settledBefore = nil, settled
			continue
		}
		if other {
			continue
		}
		at := parseStamp(l.At)
		if err := r.pace(ctx, prevAt, at); err != nil {
			flush()
			return err
		}
		if !at.IsZero() {
			prevAt = at
		}
		switch l.Type {
		case "frame":
			fr := stream.Frame{At: at, Event: l.Event, ID: l.ID, Comment: l.Comment, Page: l.Page}
			if l.Data != "" || l.Event != "" {
				fr.Data = []byte(l.Data)
			}
			m, ok := stream.FrameMsg(fr)
			if !ok {
				continue
			}
			if b, isBatch := m.(stream.BatchMsg); isBatch {
				batch.Chunks = append(batch.Chunks, b.Chunks...)
				batch.Events = append(batch.Events, b.Events...)
				batch.At = b.At
				if len(batch.Chunks)+len(batch.Events) >= 256 || r.Speed > 0 {
					flush()
				}
				continue
			}
			send(m)
		case "conn":
			m, isErr := connMsg(l, at)
			if m == nil {
				continue
			}
			if isErr && settledBefore {
				// A run appended after the action settled (a second look
				// at it) failed: the result an earlier run read stands.
				r.warn(fmt.Sprintf("%s line %d: a later run in the recording failed (%s); the verdict is the one its earlier run settled", r.path, lineNo, m.(stream.ErrorMsg).Err.Error()))
				continue
			}
			if _, ok := m.(stream.ModeMsg); ok {
				sentMode = true
			}
			send(m)
			if isErr {
				fatal = m.(stream.ErrorMsg).Err
			}
		case "status":
			var st model.ActionStatus
			if err := json.Unmarshal(l.Object, &st); err != nil {
				r.warn(fmt.Sprintf("%s line %d: unreadable status skipped", r.path, lineNo))
				continue
			}
			send(stream.StatusMsg{Status: st, Final: settled, At: at})
		case "result":
			res, err := model.DecodeResult(l.Object)
			if err != nil {
				r.warn(fmt.Sprintf("%s line %d: unreadable result skipped", r.path, lineNo))
				continue
			}
			settled = true
			send(stream.ResultMsg{Result: res, At: at})
		case "cancel":
			m := stream.CancelMsg{Accepted: l.Accepted, At: at}
			if l.Error != "" {
				m.Err = &stream.Error{Op: "cancel", Message: l.Error}
			}
			send(m)
		case "verdict":
			var v model.VerdictRecord
			if json.Unmarshal(l.Object, &v) == nil {
				r.Recorded = &v
			}
		}
		if rerr != nil {
			break
		}
	}
	flush()
	if !sentMode {
		sink.Send(stream.ModeMsg{Review: true})
	}
	sink.Send(stream.DoneMsg{})
	return fatal
}

// connMsg rebuilds a connection message; isErr marks the recorded fatal
// error of the live run.
func connMsg(l Line, at time.Time) (stream.Msg, bool) {
	switch l.State {
	case "live", "review":
		return stream.ModeMsg{Review: l.State == "review", At: at}, false
	case "connected":
		return stream.ConnectedMsg{Attempt: l.Attempt, Cursor: l.Cursor, Resumed: l.Attempt > 1, At: at}, false
	case "reconnecting":
		return stream.ReconnectingMsg{Attempt: l.Attempt, Wait: time.Duration(l.WaitMs) * time.Millisecond, Cause: l.Cause, At: at}, false
	case "restart":
		return stream.RestartMsg{Code: l.Code, At: at}, false
	case "no_record":
		return stream.NoRecordMsg{ActionID: l.ActionID, AppearTimeout: time.Duration(l.WaitMs) * time.Millisecond, At: at}, false
	case "cursor_free":
		return stream.CursorFreeMsg{Code: l.Code, At: at}, false
	case "result_wait":
		return stream.ResultWaitMsg{Attempt: l.Attempt, Wait: time.Duration(l.WaitMs) * time.Millisecond, Code: l.Code, At: at}, false
	case "unsettled":
		return stream.UnsettledMsg{Reason: l.Cause, Stall: time.Duration(l.WaitMs) * time.Millisecond, At: at}, false
	case "error":
		return stream.ErrorMsg{Err: &stream.Error{Op: "replay", Code: l.Code, Message: "the recorded run failed: " + l.Cause}, At: at}, true
	}
	return nil, false
}

// pace sleeps the recorded gap divided by Speed.
func (r *Replay) pace(ctx context.Context, prev, at time.Time) error {
	if r.Speed <= 0 || prev.IsZero() || at.IsZero() || !at.After(prev) {
		return ctx.Err()
	}
	d := time.Duration(float64(at.Sub(prev)) / r.Speed)
	if d > 5*time.Second {
		d = 5 * time.Second // a long idle stretch is not worth waiting for
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *Replay) warn(s string) {
	if r.Warn != nil {
		r.Warn(s)
	}
}

// readLine reads one line without its newline; a last line without one is
// returned with io.EOF. A line over maxLine is read to its end without
// being kept, and errLineTooLong returned: the next call reads the line
// after it.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	tooLong := false
	for {
		part, err := br.ReadSlice('\n')
		if !tooLong {
			if len(out)+len(part) > maxLine+1 { // +1: the newline
				tooLong, out = true, nil
			} else {
				out = append(out, part...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLineTooLong
		}
		if err != nil {
			if len(out) == 0 {
				return nil, err
			}
			return out, err
		}
		return out[:len(out)-1], nil
	}
}

func shortErr(err error) string {
	if err == nil {
		return "no type"
	}
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

package output

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// JSONL writes one JSON object per line, each with a "type" (contract §4).
// The last line is the verdict object, or on exit 1/2 an error object.
// Every line goes through safe.JSON, so C1 and bidi controls are escaped
// and a terminal showing the stream obeys none of them; the bytes end in a
// safe.Writer, which scrubs the token.
type JSONL struct {
	sw   *safe.Writer
	w    *bufio.Writer
	opts Options
	tr   *Tracker
}

// NewJSONL returns a jsonl printer writing to w.
func NewJSONL(w io.Writer, opts Options) *JSONL {
	sw := safe.NewWriter(w, safe.JSONLines)
	return &JSONL{sw: sw, w: bufio.NewWriter(sw), opts: opts, tr: NewTracker()}
}

type connLine struct {
	Type    string `json:"type"`
	Attempt int    `json:"attempt,omitempty"`
	Cursor  string `json:"cursor,omitempty"`
	WaitMs  int64  `json:"wait_ms,omitempty"`
	Cause   string `json:"cause,omitempty"`
	Code    string `json:"code,omitempty"`
}

type textLine struct {
	Type  string `json:"type"`
	Item  string `json:"item"`
	Delta string `json:"delta"`
}

type toolLineJSON struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	Label  string `json:"label"`
	Status string `json:"status"`
}

type noteLine struct {
	Type     string `json:"type"`
	Kind     string `json:"kind,omitempty"`
	Sequence uint64 `json:"sequence,omitempty"`
	Text     string `json:"text"`
}

type reconcileLine struct {
	Type             string `json:"type"`
	Advice           string `json:"advice"`
	ResponseGetInput string `json:"response_get_input,omitempty"`
	SessionID        string `json:"session_id,omitempty"`
}

type errorLine struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Handle writes the lines a message caused.
func (j *JSONL) Handle(a *model.Action, m stream.Msg) {
	j.handle(a, m)
	j.w.Flush()
}

func (j *JSONL) flush() { j.w.Flush() }

// handle writes what m changed: the model's changes, then the connection
// timeline's new entries (stream.Apply logged them) as objects. m itself
// is not read: the model is the one route.
func (j *JSONL) handle(a *model.Action, _ stream.Msg) {
	j.changes(a)
	for _, h := range j.tr.Happenings(a, j.opts.Redact) {
		switch h.Kind {
		case model.HapReview:
			j.emit(connLine{Type: "review"})
		case model.HapConnected, model.HapResumed:
			j.emit(connLine{Type: "connected", Attempt: h.Attempt, Cursor: h.Cursor})
		case model.HapReconnecting:
			j.emit(connLine{Type: "reconnecting", Attempt: h.Attempt, WaitMs: h.Wait.Milliseconds(), Cause: h.Detail})
		case model.HapRestart:
			j.emit(connLine{Type: "restart", Code: h.Code})
		case model.HapNoRecord:
			j.emit(connLine{Type: "no_record", WaitMs: h.Wait.Milliseconds()})
		case model.HapCursorFree:
			j.emit(connLine{Type: "cursor_free", Code: h.Code})
		case model.HapResultWait:
			j.emit(connLine{Type: "result_wait", Attempt: h.Attempt, WaitMs: h.Wait.Milliseconds(), Code: h.Code})
		case model.HapUnsettled:
			j.emit(connLine{Type: "unsettled", WaitMs: h.Wait.Milliseconds(), Cause: h.Detail})
		case model.HapSubmit:
			j.emit(noteLine{Type: "submit", Text: h.Detail})
		case model.HapTerminal:
			j.emit(connLine{Type: "terminal", Cursor: h.Cursor})
		}
	}
}

func (j *JSONL) changes(a *model.Action) {
	for _, c := range j.tr.Changes(a) {
		switch c.Kind {
		case ChangeText:
			key := c.Item.Key
			delta := c.Delta
			if j.opts.Redact {
				key, delta = safe.Mask(key), safe.Mask(delta)
			}
			j.emit(textLine{Type: "text", Item: key, Delta: delta})
		case ChangeTool:
			t := c.Tool
			l := toolLineJSON{Type: "tool", ID: t.ID, Name: t.Name, Label: t.Label, Status: t.Status}
			if j.opts.Redact {
				l.ID, l.Label = safe.Mask(l.ID), safe.Mask(l.Label)
			}
			j.emit(l)
		case ChangeNotice:
			text := c.Item.Text()
			if j.opts.Redact {
				text = safe.Mask(text)
			}
			j.emit(noteLine{Type: "notice", Kind: c.Item.Label, Sequence: c.Item.FirstSeq, Text: text})
		case ChangeNote:
			j.emit(noteLine{Type: "note", Text: c.Note})
		case ChangeAnomaly:
			detail := c.Anom.Detail
			if j.opts.Redact {
				detail = ""
			}
			j.emit(noteLine{Type: "anomaly", Kind: string(c.Anom.Kind), Sequence: c.Anom.Sequence, Text: detail})
		case ChangeCancel:
			j.emit(noteLine{Type: "cancel", Text: c.Cancel})
		}
	}
}

// Finish writes the last line: the verdict object, or the error object.
func (j *JSONL) Finish(a *model.Action, err error) {
	if err != nil {
		j.emit(errorLine{Type: "error", Code: ErrorCode(err), Message: err.Error()})
		j.end()
		return
	}
	j.changes(a)
	if r, ok := a.Reconcile(); ok {
		l := reconcileLine{Type: "reconcile", Advice: r.Advice, ResponseGetInput: r.ResponseGetInput, SessionID: r.SessionID}
		if j.opts.Redact {
			l.ResponseGetInput, l.SessionID = safe.Mask(l.ResponseGetInput), safe.Mask(l.SessionID)
		}
		j.emit(l)
	}
	rec := a.Record()
	if j.opts.Redact {
		rec = RedactRecord(rec)
	}
	j.emit(rec)
	j.end()
}

// end writes everything, nothing held back: the output is over.
func (j *JSONL) end() {
	j.w.Flush()
	j.sw.Flush()
}

// WriteError writes a lone error object (a usage error before any run).
func WriteError(w io.Writer, err error) {
	j := NewJSONL(w, Options{})
	j.Finish(nil, err)
}

func (j *JSONL) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil { // only our own plain structs are encoded: cannot happen
		b = []byte(`{"type":"error","code":"encode","message":"internal encoding error"}`)
	}
	if _, verdict := v.(model.VerdictRecord); j.opts.Timestamps && !verdict && len(b) > 2 && b[len(b)-1] == '}' {
		b = append(b[:len(b)-1:len(b)-1], `,"at":"`+j.opts.now().Format(time.RFC3339Nano)+`"}`...)
	}
	j.w.Write(safe.JSON(b))
	j.w.WriteByte('\n')
}

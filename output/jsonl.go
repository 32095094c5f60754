package output

import (
	"encoding/json"
	"io"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// JSONL writes one JSON object per line, each with a "type" (design §4).
// The last line is the verdict object, or on exit 1/2 an error object.
// Every string field is neutralised as it is encoded (jsonenc.go: strField,
// textField, SafeRecord), so a decoded field holds placeholders, never a
// control; every line then goes through safe.JSON, so C1 and bidi controls
// are escaped and a terminal showing the stream obeys none of them; the
// bytes end in a safe.Writer, which scrubs the token (safe.Writer.JSON:
// with no token, the Writer's escaping pass is JSON's, and the bytes are
// scanned once). The lines are encoded by hand (jsonenc.go), byte for byte
// what encoding/json writes, but the verdict's.
type JSONL struct {
	sw   *safe.Writer
	out  []byte // lines not yet written to sw
	opts Options
	tr   *Tracker
}

// NewJSONL returns a jsonl printer writing to w.
func NewJSONL(w io.Writer, opts Options) *JSONL {
	return &JSONL{sw: safe.NewWriter(w, safe.JSONLines), opts: opts, tr: NewTracker()}
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
	Delta string `json:"delta" jsonl:"text"`
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
	j.flush()
}

// flush writes the lines encoded so far in one write.
func (j *JSONL) flush() {
	if len(j.out) == 0 {
		return
	}
	j.sw.Write(j.out)
	j.out = j.out[:0]
	if cap(j.out) > 1<<20 { // a huge line (the verdict's text) is not kept
		j.out = nil
	}
}

// handle writes what m changed: the model's changes, then the connection
// timeline's new entries (stream.Apply logged them) as objects. m itself
// is not read: the model is the one route.
func (j *JSONL) handle(a *model.Action, _ stream.Msg) {
	hs := j.tr.Happenings(a, j.opts.Redact)
	for _, h := range hs {
		if h.Kind == model.HapNoLiveChunks {
			// design §14: once, before the text it says where it came from.
			emit(j, noteLine{Type: "no_live_chunks", Text: h.Text()})
		}
	}
	j.changes(a)
	for _, h := range hs {
		switch h.Kind {
		case model.HapReview:
			emit(j, connLine{Type: "review"})
		case model.HapConnected, model.HapResumed:
			emit(j, connLine{Type: "connected", Attempt: h.Attempt, Cursor: h.Cursor})
		case model.HapReconnecting:
			emit(j, connLine{Type: "reconnecting", Attempt: h.Attempt, WaitMs: h.Wait.Milliseconds(), Cause: h.Detail})
		case model.HapRestart:
			emit(j, connLine{Type: "restart", Code: h.Code})
		case model.HapNoRecord:
			emit(j, connLine{Type: "no_record", WaitMs: h.Wait.Milliseconds()})
		case model.HapCursorFree:
			emit(j, connLine{Type: "cursor_free", Code: h.Code})
		case model.HapResultWait:
			emit(j, connLine{Type: "result_wait", Attempt: h.Attempt, WaitMs: h.Wait.Milliseconds(), Code: h.Code})
		case model.HapUnsettled:
			emit(j, connLine{Type: "unsettled", WaitMs: h.Wait.Milliseconds(), Cause: h.Detail})
		case model.HapSubmit:
			emit(j, noteLine{Type: "submit", Text: h.Detail})
		case model.HapTerminal:
			emit(j, connLine{Type: "terminal", Cursor: h.Cursor})
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
			emit(j, textLine{Type: "text", Item: key, Delta: delta})
		case ChangeTool:
			t := c.Tool
			l := toolLineJSON{Type: "tool", ID: t.ID, Name: t.Name, Label: t.Label, Status: t.Status}
			if j.opts.Redact {
				l.ID, l.Label = safe.Mask(l.ID), safe.Mask(l.Label)
			}
			emit(j, l)
		case ChangeNotice:
			text := c.Item.Text()
			if j.opts.Redact {
				text = safe.Mask(text)
			}
			emit(j, noteLine{Type: "notice", Kind: c.Item.Label, Sequence: c.Item.FirstSeq, Text: text})
		case ChangeNote:
			emit(j, noteLine{Type: "note", Text: c.Note})
		case ChangeAnomaly:
			detail := c.Anom.Detail
			if j.opts.Redact {
				detail = ""
			}
			emit(j, noteLine{Type: "anomaly", Kind: string(c.Anom.Kind), Sequence: c.Anom.Sequence, Text: detail})
		case ChangeCancel:
			emit(j, noteLine{Type: "cancel", Text: c.Cancel})
		}
	}
}

// Finish writes the last line: the verdict object, or the error object.
func (j *JSONL) Finish(a *model.Action, err error) {
	if a != nil { // what the model learnt last goes before the last line, as in plain
		j.changes(a)
	}
	if err != nil {
		emit(j, errorLine{Type: "error", Code: ErrorCode(err), Message: err.Error()})
		j.end()
		return
	}
	if r, ok := a.Reconcile(); ok {
		l := reconcileLine{Type: "reconcile", Advice: r.Advice, ResponseGetInput: r.ResponseGetInput, SessionID: r.SessionID}
		if j.opts.Redact {
			l.ResponseGetInput, l.SessionID = safe.Mask(l.ResponseGetInput), safe.Mask(l.SessionID)
		}
		emit(j, l)
	}
	j.record(RecordOf(a, j.opts.Redact))
	j.end()
}

// end writes everything, nothing held back: the output is over.
func (j *JSONL) end() {
	j.flush()
	j.sw.Flush()
}

// WriteError writes a lone error object (a usage error before any run).
func WriteError(w io.Writer, err error) {
	j := NewJSONL(w, Options{})
	j.Finish(nil, err)
}

// emit encodes one line (with "at" under --timestamps) after the lines
// not yet written.
func emit[L jsonLine](j *JSONL, l L) {
	start := len(j.out)
	j.out = l.appendJSON(j.out)
	if j.opts.Timestamps { // `,"at":"…"` before the closing brace
		j.out = append(j.out[:len(j.out)-1], `,"at":"`...)
		j.out = j.opts.now().AppendFormat(j.out, time.RFC3339Nano)
		j.out = append(j.out, '"', '}')
	}
	j.seal(start)
}

// record encodes the verdict object (by reflection: it is one line, and
// its keys are fixed, so no "at").
func (j *JSONL) record(rec model.VerdictRecord) {
	b, err := json.Marshal(SafeRecord(rec))
	if err != nil { // only our own plain struct is encoded: cannot happen
		b = []byte(`{"type":"error","code":"encode","message":"internal encoding error"}`)
	}
	start := len(j.out)
	j.out = append(j.out, b...)
	j.seal(start)
}

// seal passes the line encoded from start through safe.JSON (the
// Writer's JSON: its own pass may be the only one) and ends it.
func (j *JSONL) seal(start int) {
	if j.opts.Context != "" { // `,"context":"…"` before the closing brace
		j.out = strField(j.out[:len(j.out)-1], "context", j.opts.Context)
		j.out = append(j.out, '}')
	}
	j.out = append(j.out[:start], j.sw.JSON(j.out[start:])...)
	j.out = append(j.out, '\n')
}

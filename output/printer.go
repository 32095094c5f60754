package output

import (
	"errors"
	"io"
	"io/fs"
	"strconv"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// Printer is a line-oriented output. Handle is called after each stream
// message has been applied to the model; Finish once at the end with the
// run's fatal error, if any.
type Printer interface {
	Handle(a *model.Action, m stream.Msg)
	Finish(a *model.Action, err error)
}

// Options shape both printers.
type Options struct {
	Redact bool
	// Timestamps (--timestamps): plain starts each status line with the
	// local time it was printed (15:04:05.000), jsonl adds "at" (RFC 3339)
	// to every object but the verdict, whose keys are fixed.
	Timestamps bool
	Now        func() time.Time // nil = time.Now
	// Context is the config file's context of the action's daemon, when
	// the run named one: jsonl adds "context" to every object.
	Context string
	// Name, when set, is the action as plain's first line names it,
	// "action: CONTEXT/act_…": a run of one action that named a context,
	// whose lines carry no tag (several's tags name theirs).
	Name string
	// Errors, when set, is where plain writes its reconnecting lines
	// (stderr: stdout is the run's output), and plain leaves the error
	// that stopped a run to its caller, who says it there too.
	Errors io.Writer
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// RecordOf is a's verdict object as every output writes it: masked under
// --redact (RedactRecord).
func RecordOf(a *model.Action, redact bool) model.VerdictRecord {
	if redact {
		return RedactRecord(a.Record())
	}
	return a.Record()
}

// RedactRecord masks the content fields of a verdict object (design §1
// --redact): the text and provider IDs. Words, codes and counts stay.
func RedactRecord(rec model.VerdictRecord) model.VerdictRecord {
	rec.Text = safe.Mask(rec.Text)
	rec.ResponseID = safe.Mask(rec.ResponseID)
	rec.Detail = safe.Mask(rec.Detail)
	tools := make([]model.ToolRecord, len(rec.Tools))
	for i, t := range rec.Tools {
		tools[i] = model.ToolRecord{ID: safe.Mask(t.ID), Name: t.Name, Status: t.Status}
	}
	rec.Tools = tools
	return rec
}

// ErrorCode is the code for the jsonl error line: aipd's own code when it
// sent one, else the kind of failure: "usage", "http_NNN" (a reply that
// was not AIP JSON), "transport" (no reply: refused, reset, TLS, a
// timeout), "protocol" (a reply or stream aipwatch cannot use), "file" (a
// file aipwatch reads or writes), "internal", else "error".
func ErrorCode(err error) string {
	var se *stream.Error
	switch {
	case errors.As(err, &se):
		return streamErrorCode(se)
	case errors.As(err, new(UsageError)):
		return "usage"
	case errors.As(err, new(*fs.PathError)):
		return "file"
	}
	return "error"
}

// streamErrorCode is ErrorCode of the stream's errors.
func streamErrorCode(se *stream.Error) string {
	switch {
	case se.Code != "":
		return se.Code
	case se.Op == "internal":
		return "internal"
	case se.HTTPStatus != 0:
		return "http_" + strconv.Itoa(se.HTTPStatus) // a reply that was not AIP JSON
	case se.Transport():
		return "transport" // no reply: refused, reset, TLS, a timeout
	case se.Op == "replay":
		return "file" // the recording could not be read
	}
	return "protocol" // a reply or a stream aipwatch cannot use (not AIP JSON, cursors in a circle, a frame over 16 MiB)
}

// UsageError is a mistake in the invocation (exit 2).
type UsageError string

func (e UsageError) Error() string { return string(e) }

// Feed applies one stream message to the model (through stream.Apply, the
// one route) and lets the printer report it. A batch is applied chunk by
// chunk (stream.ApplyBatch) so lines come out in AIP sequence order (a tool
// completing between two deltas prints between them), which the TUI,
// redrawing whole frames, does not need.
func Feed(p Printer, a *model.Action, m stream.Msg) {
	b, ok := m.(stream.BatchMsg)
	if !ok {
		stream.Apply(a, m)
		p.Handle(a, m)
		return
	}
	lp, ok := p.(linePrinter)
	if !ok {
		stream.ApplyBatch(a, b, func() { p.Handle(a, nil) })
		return
	}
	// Lines per chunk, written out once per batch.
	stream.ApplyBatch(a, b, func() { lp.handle(a, nil) })
	lp.flush()
}

// linePrinter is a Printer whose lines can be written without flushing
// them at once: a batch of a fast stream is one write, not one a chunk
// (a batch spans at most BatchInterval, so lines still come out live).
type linePrinter interface {
	handle(a *model.Action, m stream.Msg)
	flush()
}

package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"aipwatch/stream"
)

type panickingBackend struct{}

func (panickingBackend) Run(context.Context, stream.Sink) error { panic("boom: secret-ish detail") }
func (panickingBackend) Cancel(context.Context, string) stream.CancelMsg {
	return stream.CancelMsg{}
}

// A panic in the backend goroutine ends the run as an error (terminal
// restored by the program's normal exit), never a crash, and its value is
// not echoed.
func TestBackendPanicBecomesAnError(t *testing.T) {
	r := newRunner(context.Background(), panickingBackend{})
	err := r.runBackend(stream.SinkFunc(func(stream.Msg) {}))
	var se *stream.Error
	if !errors.As(err, &se) || se.Op != "internal" || strings.Contains(se.Error(), "secret-ish") {
		t.Fatalf("err = %v", err)
	}
}

package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

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
	t.Parallel()
	r := newRunner(context.Background(), panickingBackend{})
	err := r.runBackend(stream.SinkFunc(func(stream.Msg) {}))
	var se *stream.Error
	if !errors.As(err, &se) || se.Op != "internal" || strings.Contains(se.Error(), "secret-ish") {
		t.Fatalf("err = %v", err)
	}
}

// A panic in Update or View is caught by the guard: the program quits
// normally (the terminal is restored) and Run reports an internal error.
func TestGuardCatchesUpdateAndViewPanics(t *testing.T) {
	t.Parallel()
	var quit atomic.Bool
	g := guard{m: nil, panicked: new(atomic.Bool), quit: func() { quit.Store(true) }} // nil model: any call panics
	_, cmd := g.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if !g.panicked.Load() || cmd == nil {
		t.Fatal("Update panic not caught")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("Update panic does not quit")
	}
	g2 := guard{m: nil, panicked: new(atomic.Bool), quit: func() { quit.Store(true) }}
	if v := g2.View(); v.Content != "" || !g2.panicked.Load() {
		t.Fatalf("View panic not caught: %q", v.Content)
	}
	deadline := time.Now().Add(time.Second)
	for !quit.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !quit.Load() {
		t.Fatal("View panic does not quit the program")
	}
}

package output

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// RunOptions shape a plain or jsonl run.
type RunOptions struct {
	Options             // the printer's
	ActionID     string // the action followed
	JSONL        bool   // jsonl, else plain
	RawCap       int64  // model.Action.SetRawCap
	Cancel       bool   // --cancel: send the cancel once attached, no confirmation
	CancelReason string // the cancel's reason
	Session      string // model.Action.SubmittedSession
}

// Run follows client's run with the plain or jsonl printer on w until it
// ends, and returns the model and the run's fatal error (nil when the
// viewer was stopped through ctx: a detach). The caller prints the closing
// lines and picks the exit code.
//
// The model and the printer have one owner at a time: the run's messages
// and the --cancel reply (sent from its own goroutine once attached, so the
// follow goes on reading while it is in flight) take a mutex, and every
// message goes through Feed (stream.Apply, the one route into the model).
func Run(ctx context.Context, client stream.Runner, w io.Writer, o RunOptions) (*model.Action, error) {
	a := model.NewAction(o.ActionID)
	a.SetRawCap(o.RawCap)
	a.SubmittedSession = o.Session
	var p Printer = NewPlain(w, o.Options)
	if o.JSONL {
		p = NewJSONL(w, o.Options)
	}
	var (
		mu         sync.Mutex
		cancelOnce sync.Once
		cancelWG   sync.WaitGroup
	)
	handle := func(m stream.Msg) {
		mu.Lock()
		defer mu.Unlock()
		Feed(p, a, m)
	}
	sink := stream.SinkFunc(func(m stream.Msg) {
		handle(m)
		// --cancel fires once attached (stream.Attached, as in the TUI).
		if o.Cancel && stream.Attached(m) {
			cancelOnce.Do(func() {
				mu.Lock()
				a.RequestCancel(o.CancelReason, time.Now())
				p.Handle(a, nil)
				mu.Unlock()
				cancelWG.Add(1)
				go func() { // the follow loop keeps reading while the cancel is in flight
					defer cancelWG.Done()
					defer func() {
						if r := recover(); r != nil {
							handle(stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "internal error"}})
						}
					}()
					handle(client.Cancel(ctx, o.CancelReason))
				}()
			})
		}
	})
	err := client.Run(ctx, sink)
	cancelWG.Wait()
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil {
		err = nil // the viewer was stopped (signal): a detach, not an error
	}
	if !a.Settled() {
		a.Stop()
	}
	var se *stream.Error
	if err != nil && !errors.As(err, &se) {
		err = &stream.Error{Message: err.Error()}
	}
	p.Finish(a, err)
	return a, err
}

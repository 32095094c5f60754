package ui

import (
	"context"
	"errors"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// runner owns the backend goroutine. The backend sends into ch (blocking
// while the UI is busy, which back-pressures the stream, but never after
// the runner stopped); the listen command hands what is queued to Update.
type runner struct {
	backend stream.Runner
	ctx     context.Context
	cancel  context.CancelFunc
	ch      chan tea.Msg

	once    sync.Once
	started bool
	done    chan struct{}
	wake    chan struct{} // retry now (stream.WithRetryNow)
	// ready, when the view is gathered (Gather), is told of every message
	// queued in ch; the gather's listen takes them, not the view's own.
	ready chan struct{}
	mu    sync.Mutex
	err   error
}

// maxDrain bounds how many queued messages one listen hands over at once,
// so one Update+View covers a burst without starving key presses.
const maxDrain = 64

// incomingMsg carries stream messages (and the backend's exit) in order.
type incomingMsg []tea.Msg

// backendExitMsg: the backend's Run returned.
type backendExitMsg struct{ err error }

// cancelReplyMsg: the backend's Cancel returned.
type cancelReplyMsg struct{ reply stream.CancelMsg }

func newRunner(ctx context.Context, b stream.Runner) *runner {
	ctx, cancel := context.WithCancel(ctx)
	wake := make(chan struct{}, 1)
	ctx = stream.WithRetryNow(ctx, wake)
	return &runner{backend: b, ctx: ctx, cancel: cancel, ch: make(chan tea.Msg, maxDrain), done: make(chan struct{}), wake: wake}
}

// retryNowCmd ends the backend's wait before its next try (the operator's
// "retry now"); a second press before that try is one retry.
func (r *runner) retryNowCmd() tea.Cmd {
	return func() tea.Msg {
		select {
		case r.wake <- struct{}{}:
		default:
		}
		return nil
	}
}

// startCmd starts the backend goroutine (once) and returns nothing itself.
func (r *runner) startCmd() tea.Cmd {
	if r.backend == nil {
		return nil
	}
	return func() tea.Msg {
		r.once.Do(func() {
			r.mu.Lock()
			r.started = true
			r.mu.Unlock()
			go r.loop()
		})
		return nil
	}
}

// runBackend runs the backend, turning a panic in it into an error so the
// program exits through its normal path and restores the terminal (a panic
// on this goroutine would otherwise kill the process with the terminal
// still in raw mode and the alt screen up).
func (r *runner) runBackend(sink stream.Sink) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &stream.Error{Op: "internal", Message: "internal error in the stream reader (the action keeps running)"}
		}
	}()
	return r.backend.Run(r.ctx, sink)
}

func (r *runner) loop() {
	defer close(r.done)
	sink := stream.SinkFunc(func(m stream.Msg) { r.queue(m) })
	err := r.runBackend(sink)
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	r.queue(backendExitMsg{err: err})
}

// queue hands m to the UI (blocking while ch is full), then tells the
// gather, if any.
func (r *runner) queue(m tea.Msg) {
	select {
	case r.ch <- m:
	case <-r.ctx.Done():
		return
	}
	if r.ready != nil {
		select {
		case r.ready <- struct{}{}:
		default: // a token is out already
		}
	}
}

// gathered: a Gather listens for this view (its own listen is not used).
func (r *runner) gathered() bool { return r.ready != nil }

// drain takes what is queued now (at most maxDrain), without waiting.
func (r *runner) drain() incomingMsg {
	var batch incomingMsg
	for len(batch) < maxDrain {
		select {
		case m := <-r.ch:
			batch = append(batch, m)
		default:
			return batch
		}
	}
	return batch
}

// over: nothing more comes from the backend (none, or its Run returned).
func (r *runner) over() bool {
	if r.backend == nil {
		return true
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// listen waits for the next messages (none when gathered: the gather
// listens).
func (r *runner) listen() tea.Cmd {
	if r.backend == nil || r.gathered() {
		return nil
	}
	return func() tea.Msg {
		select {
		case m := <-r.ch:
			batch := incomingMsg{m}
			for len(batch) < maxDrain {
				select {
				case m := <-r.ch:
					batch = append(batch, m)
				default:
					return batch
				}
			}
			return batch
		case <-r.ctx.Done():
			return nil
		}
	}
}

// cancelCmd asks the backend to cancel, off the UI goroutine.
func (r *runner) cancelCmd(reason string) tea.Cmd {
	if r.backend == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
		defer cancel()
		return cancelReplyMsg{reply: r.backend.Cancel(ctx, reason)}
	}
}

// stopWait bounds how long stop waits for Backend.Run to return.
const stopWait = 3 * time.Second

// stop ends the backend's context and waits (bounded) for Run to return.
func (r *runner) stop() {
	r.cancel()
	r.mu.Lock()
	started := r.started
	r.mu.Unlock()
	if !started {
		return
	}
	select {
	case <-r.done:
	case <-time.After(stopWait):
	}
}

// result is what the backend's Run returned (nil while it runs).
func (r *runner) result() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// stopped reports whether err is only the runner's context ending (a
// detach, or the caller's context), not a failure.
func (r *runner) stopped(err error) bool {
	if r.ctx.Err() == nil {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

package serve

import (
	"context"
	"sync"
	"time"

	"aipwatch/stream"
)

// A feed is one upstream read of the daemon (an action's follow, or the
// global log) kept as the list of its messages, which every session that
// shows it reads at its own pace from its own position: one reader of the
// daemon, however many sessions. Each reader runs in its session's own
// goroutine, so a slow session waits for itself and never holds the
// upstream read or another session back.
type feed struct {
	mu   sync.Mutex
	log  []stream.Msg
	base int // the position of log[0]: a bounded feed drops its oldest messages
	max  int // 0 = keep every message (an action's follow: a late joiner replays it whole)
	done bool
	err  error
	wake chan struct{} // closed and replaced when the log grows or ends
}

func newFeed(max int) *feed { return &feed{max: max, wake: make(chan struct{})} }

// add appends m, stamped with now when it carries no time of its own (a
// session that joins later sees when it happened, not when it joined).
func (f *feed) add(m stream.Msg) {
	m = stamp(m, time.Now())
	f.mu.Lock()
	f.log = append(f.log, m)
	if f.max > 0 && len(f.log) > f.max {
		drop := len(f.log) - f.max
		clear(f.log[:drop])
		f.log = f.log[drop:]
		f.base += drop
	}
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

// finish ends the feed with the upstream read's error.
func (f *feed) finish(err error) {
	f.mu.Lock()
	f.done, f.err = true, err
	close(f.wake)
	f.wake = make(chan struct{})
	f.mu.Unlock()
}

// next waits for messages from pos on: it returns them, the position
// after them, and whether the feed has ended after them (with its error).
// A position the bounded feed dropped reads from its oldest message.
func (f *feed) next(ctx context.Context, pos int) (msgs []stream.Msg, after int, done bool, err error) {
	for {
		f.mu.Lock()
		pos = max(pos, f.base)
		end := f.base + len(f.log)
		if pos < end {
			msgs = append([]stream.Msg(nil), f.log[pos-f.base:]...)
			f.mu.Unlock()
			return msgs, end, false, nil
		}
		if f.done {
			err := f.err
			f.mu.Unlock()
			return nil, pos, true, err
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, pos, true, ctx.Err()
		}
	}
}

// deliver reads f from the start into sink until it ends or ctx does; it
// returns the upstream's error (ctx's when ctx ended first).
func (f *feed) deliver(ctx context.Context, sink stream.Sink) error {
	pos := 0
	for {
		msgs, after, done, err := f.next(ctx, pos)
		for _, m := range msgs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			sink.Send(m)
		}
		pos = after
		if done {
			return err
		}
	}
}

// stamp sets a message's time to now when it has none: zero means "when
// it is applied", which for a session replaying a shared feed would be
// when the session joined.
func stamp(m stream.Msg, now time.Time) stream.Msg {
	switch v := m.(type) {
	case stream.StatusMsg:
		return stampAt(&v, &v.At, now)
	case stream.ModeMsg:
		return stampAt(&v, &v.At, now)
	case stream.ConnectedMsg:
		return stampAt(&v, &v.At, now)
	case stream.ReconnectingMsg:
		return stampAt(&v, &v.At, now)
	case stream.RestartMsg:
		return stampAt(&v, &v.At, now)
	case stream.NoRecordMsg:
		return stampAt(&v, &v.At, now)
	case stream.CursorFreeMsg:
		return stampAt(&v, &v.At, now)
	case stream.ResultWaitMsg:
		return stampAt(&v, &v.At, now)
	case stream.UnsettledMsg:
		return stampAt(&v, &v.At, now)
	case stream.TerminalMsg:
		return stampAt(&v, &v.At, now)
	case stream.ResultMsg:
		return stampAt(&v, &v.At, now)
	case stream.ErrorMsg:
		return stampAt(&v, &v.At, now)
	}
	return m
}

// stampAt is *v with *at (v's own At) set to now when it was zero.
func stampAt[T stream.Msg](v *T, at *time.Time, now time.Time) stream.Msg {
	if at.IsZero() {
		*at = now
	}
	return *v
}

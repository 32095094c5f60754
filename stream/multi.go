package stream

import (
	"context"
	"errors"
	"sync"
	"time"

	"aipwatch/model"
)

// Multi reads several daemons as one, for the console across the config
// file's contexts (design §9): each daemon with its own client (its own
// URL, token and CA: no token reaches another daemon), every row and event
// marked with its context. A daemon that cannot be read is one row of its
// own, with its error, and the others go on, whichever fails (a 401 of one
// daemon stops nothing): a poll's error is in its rows, never its own.
//
// Each daemon is polled on its own (Parts): the console runs one poll
// loop a context, so that a daemon that accepts and never answers delays
// no other's rows, at start or later (its own poll is bounded by Timeout,
// and its rows are marked stale meanwhile). Poll reads them all at once,
// for a caller that wants one window.
//
// Older pages (scrolling past the end) are one daemon's list offsets, which
// mean nothing across several: a console across contexts reads none (its
// rows are the live and recent ones of each daemon).
type Multi struct {
	Sources []MultiSource
	// Timeout bounds each daemon's part of a poll (0: multiPollTimeout).
	Timeout time.Duration
}

// multiPollTimeout bounds each daemon's part of a poll.
const multiPollTimeout = 10 * time.Second

// MultiSource is one context's daemon.
type MultiSource struct {
	Name   string
	Poller *Poller
	Err    error // the daemon could not be set up (its token file, its CA): every poll shows it
}

// MultiPart is one daemon of a Multi, polled on its own.
type MultiPart struct {
	Name    string
	src     MultiSource
	timeout time.Duration
}

// Parts are the Multi's daemons, in order, each polled on its own.
func (m *Multi) Parts() []MultiPart {
	out := make([]MultiPart, len(m.Sources))
	for i, s := range m.Sources {
		out[i] = MultiPart{Name: s.Name, src: s, timeout: m.timeout()}
	}
	return out
}

func (m *Multi) timeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return multiPollTimeout
}

// Poll reads this daemon's window within the Multi's bound, its rows
// marked with its context. Its error is the daemon's (set up, read, or no
// answer within the bound: NoAnswerError); a caller shows it as the
// daemon's row (UnreachableRow).
func (p MultiPart) Poll(ctx context.Context) (Window, error) {
	if p.src.Err != nil {
		return Window{}, p.src.Err
	}
	w, err := PollWithin(ctx, p.timeout, p.src.Poller.Poll)
	if err != nil {
		return Window{}, err
	}
	tagged(w.Live, p.Name)
	tagged(w.Recent.Rows, p.Name)
	return w, nil
}

// PollWithin is poll bounded by d: a read the bound ends is a
// NoAnswerError ("list: no answer within d"), not Go's "context deadline
// exceeded"; one ctx ended keeps ctx's error.
func PollWithin(ctx context.Context, d time.Duration, poll func(context.Context) (Window, error)) (Window, error) {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	w, err := poll(pctx)
	if err != nil && ctx.Err() == nil && pctx.Err() != nil {
		err = NoAnswerError{Op: "list", After: d}
	}
	return w, err
}

// Probe reads one action of this daemon (Client.Probe).
func (p MultiPart) Probe(ctx context.Context, id, cursor string) (Probe, error) {
	if p.src.Err != nil {
		return Probe{}, p.src.Err
	}
	return p.src.Poller.Probe(ctx, id, cursor)
}

// NoAnswerError is a read that got no answer within its bound: the daemon
// accepted and said nothing (or too slowly).
type NoAnswerError struct {
	Op    string // the read: "list"
	After time.Duration
}

// Error says the read and its bound: "list: no answer within 10s".
func (e NoAnswerError) Error() string {
	return e.Op + ": no answer within " + e.After.Round(time.Millisecond).String()
}

// UnreachableRow is the row that stands for a context's daemon that could
// not be read, with its error.
func UnreachableRow(name string, err error) model.ActionStatus {
	return model.ActionStatus{Context: name, Unreachable: err.Error(), UpdatedAt: time.Now().UTC().Format(time.RFC3339)}
}

// Each runs fn for every daemon at once, each within timeout (0: no
// bound of its own), and returns once all have: the one fan-out of the
// console's polls and of `ls --all-contexts`.
func (m *Multi) Each(ctx context.Context, timeout time.Duration, fn func(ctx context.Context, i int, s MultiSource)) {
	var wg sync.WaitGroup
	for i := range m.Sources {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sctx := ctx
			if timeout > 0 {
				var cancel context.CancelFunc
				sctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			fn(sctx, i, m.Sources[i])
		}(i)
	}
	wg.Wait()
}

// Poll reads every daemon's window at once (each within Timeout) and
// returns once all have answered or given up.
func (m *Multi) Poll(ctx context.Context) (Window, error) {
	type result struct {
		w   Window
		err error
	}
	parts := m.Parts()
	res := make([]result, len(parts))
	m.Each(ctx, 0, func(ctx context.Context, i int, _ MultiSource) {
		res[i].w, res[i].err = parts[i].Poll(ctx)
	})
	var out Window
	for i, r := range res {
		name := parts[i].Name
		if r.err != nil {
			out.Live = append(out.Live, UnreachableRow(name, r.err))
			continue
		}
		out.Live = append(out.Live, r.w.Live...)
		out.Recent.Rows = append(out.Recent.Rows, r.w.Recent.Rows...)
		out.Recent.End += r.w.Recent.End
		for _, n := range r.w.Notes {
			out.Notes = append(out.Notes, name+": "+n)
		}
	}
	return out, nil
}

// tagged marks rows with their context.
func tagged(rows []model.ActionStatus, name string) []model.ActionStatus {
	for i := range rows {
		rows[i].Context = name
	}
	return rows
}

// ListAt reads nothing: list offsets are one daemon's (see Multi).
func (m *Multi) ListAt(context.Context, ListQuery, int, int) (ListPage, error) {
	return ListPage{}, nil
}

// FollowGlobal follows every daemon's global log at once, each event
// marked with its context, each link change named after it; it returns
// when every follow has ended.
func (m *Multi) FollowGlobal(ctx context.Context, o GlobalOptions, sink Sink) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, s := range m.Sources {
		if s.Err != nil {
			continue
		}
		wg.Add(1)
		go func(s MultiSource) {
			defer wg.Done()
			err := s.Poller.FollowGlobal(ctx, o, SinkFunc(func(msg Msg) {
				switch msg := msg.(type) {
				case GlobalEventsMsg:
					for i := range msg.Events {
						msg.Events[i].Context = s.Name
					}
					sink.Send(msg)
				case GlobalLinkMsg:
					msg.Context = s.Name
					if msg.Cause != "" {
						msg.Cause = s.Name + ": " + msg.Cause
					}
					sink.Send(msg)
				default:
					sink.Send(msg)
				}
			}))
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(s)
	}
	wg.Wait()
	return errors.Join(errs...)
}

package stream

import (
	"context"
	"errors"
	"sync"
	"time"

	"aipwatch/model"
)

// Multi reads several daemons as one, for the console across the config
// file's contexts (design §9): each poll reads every daemon at once, each
// with its own client (its own URL, token and CA: no token reaches another
// daemon), and marks every row and event with its context. A daemon that
// cannot be read is one row of its own, with its error, and the others go
// on, whichever fails (a 401 of one daemon stops nothing): a poll's error
// is in its rows, never its own. Each daemon has multiPollTimeout: a slow
// one does not hold the others' rows back longer.
//
// Older pages (scrolling past the end) are one daemon's list offsets, which
// mean nothing across several: a console across contexts reads none (its
// rows are the live and recent ones of each daemon).
type Multi struct {
	Sources []MultiSource
}

// multiPollTimeout bounds each daemon's part of a poll.
const multiPollTimeout = 10 * time.Second

// MultiSource is one context's daemon.
type MultiSource struct {
	Name   string
	Poller *Poller
	Err    error // the daemon could not be set up (its token file, its CA): every poll shows it
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

// Poll reads every daemon's window at once.
func (m *Multi) Poll(ctx context.Context) (Window, error) {
	type result struct {
		w   Window
		err error
	}
	res := make([]result, len(m.Sources))
	m.Each(ctx, multiPollTimeout, func(ctx context.Context, i int, s MultiSource) {
		if s.Err != nil {
			res[i].err = s.Err
			return
		}
		res[i].w, res[i].err = s.Poller.Poll(ctx)
	})
	var out Window
	now := time.Now().UTC().Format(time.RFC3339)
	for i, r := range res {
		name := m.Sources[i].Name
		if r.err != nil {
			out.Live = append(out.Live, model.ActionStatus{Context: name, Unreachable: r.err.Error(), UpdatedAt: now})
			continue
		}
		out.Live = append(out.Live, tagged(r.w.Live, name)...)
		out.Recent.Rows = append(out.Recent.Rows, tagged(r.w.Recent.Rows, name)...)
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

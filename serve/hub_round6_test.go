package serve

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/stream"
)

// globalDaemon's global log sends n messages, then holds until its read
// is stopped; rows is what its list answers.
type globalDaemon struct {
	n       int
	rows    []model.ActionStatus
	started atomic.Int32
	stopped chan struct{}
}

func (d *globalDaemon) Poll(context.Context) (stream.Window, error) {
	return stream.Window{Live: append([]model.ActionStatus(nil), d.rows...)}, nil
}

func (d *globalDaemon) ListAt(context.Context, stream.ListQuery, int, int) (stream.ListPage, error) {
	return stream.ListPage{}, nil
}

func (d *globalDaemon) FollowGlobal(ctx context.Context, _ stream.GlobalOptions, sink stream.Sink) error {
	d.started.Add(1)
	for i := range d.n {
		sink.Send(stream.CursorMsg{Cursor: "aev_" + string(rune('a'+i%26))})
	}
	<-ctx.Done()
	d.stopped <- struct{}{}
	return ctx.Err()
}

// docs/performance.md: the shared global log keeps its last 512 messages
// for a session that joins, and a joiner reads from the oldest kept; when
// the last session leaves, the one read of the log stops, and the next
// session starts a new one.
func TestHubGlobalLogKeptAndStopped(t *testing.T) {
	d := &globalDaemon{n: 600, stopped: make(chan struct{}, 4)}
	h := newHub(t.Context(), Source{Daemon: d}, time.Hour)
	f := h.joinGlobal(stream.GlobalOptions{})
	waitUntil(t, "the 600 messages", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.base+len(f.log) == 600
	})
	msgs, after, done, err := f.next(t.Context(), 0) // a session joining now
	if len(msgs) != 512 || after != 600 || done || err != nil {
		t.Fatalf("a joiner read %d messages (to %d, done %v, %v), want the last 512", len(msgs), after, done, err)
	}
	h.leaveGlobal(f)
	select {
	case <-d.stopped:
	case <-time.After(10 * time.Second): // a hang guard
		t.Fatal("the global log's read goes on with no session")
	}
	g := h.joinGlobal(stream.GlobalOptions{})
	defer h.leaveGlobal(g)
	if g == f {
		t.Fatal("the next session joined the stopped read")
	}
	waitUntil(t, "the next session's read", func() bool { return d.started.Load() == 2 })
}

// Each console keeps what the shared poll gives it: the windows two
// sessions get share no rows (one console's change is not the other's).
func TestHubPollWindowsShareNothing(t *testing.T) {
	d := &globalDaemon{rows: []model.ActionStatus{{ActionID: "act_1", State: "running"}}}
	h := newHub(t.Context(), Source{Daemon: d}, time.Hour)
	a, err := h.daemon().Poll(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, err := h.daemon().Poll(t.Context()) // within the period: the shared answer
	if err != nil {
		t.Fatal(err)
	}
	a.Live[0].State = "changed by one console"
	if b.Live[0].State != "running" {
		t.Fatalf("one session's window changed another's: %q", b.Live[0].State)
	}
}

// failingRunner's Run fails at once (the daemon refused the follow).
type failingRunner struct{ runs *atomic.Int32 }

func (r failingRunner) Run(context.Context, stream.Sink) error {
	r.runs.Add(1)
	return &stream.Error{Op: "status", HTTPStatus: 503, Message: "unavailable"}
}

func (failingRunner) Cancel(context.Context, string) stream.CancelMsg { return stream.CancelMsg{} }

// An action's shared follow lingers after its last session leaves (a late
// viewer replays it), but not a follow that failed: the next session to
// open the action reads it again rather than the old failure.
func TestHubFailedFollowNotKept(t *testing.T) {
	var runs atomic.Int32
	h := newHub(t.Context(), Source{Daemon: &globalDaemon{}, Follow: func(string) stream.Runner { return failingRunner{&runs} }}, time.Hour)
	f := h.joinFollow("act_f_1")
	if _, _, done, err := f.next(t.Context(), 0); !done || err == nil {
		t.Fatalf("the fixture: the follow ended %v with %v", done, err)
	}
	h.leaveFollow(f)
	g := h.joinFollow("act_f_1")
	defer h.leaveFollow(g)
	if g == f {
		t.Fatal("the failed follow was kept for the next session")
	}
	waitUntil(t, "the second read", func() bool { return runs.Load() == 2 })
}

// A message the feed keeps carries when it came (a session that joins
// later sees when it happened, not when it joined); one that had its own
// time keeps it.
func TestFeedStampsWhenTheMessageCame(t *testing.T) {
	f := newFeed(0)
	own := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	before := time.Now()
	f.add(stream.StatusMsg{})
	f.add(stream.ErrorMsg{At: own})
	f.add(stream.TerminalMsg{})
	msgs, _, _, _ := f.next(t.Context(), 0)
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	if at := msgs[0].(stream.StatusMsg).At; at.Before(before) {
		t.Errorf("a status without a time kept %v, want the time it came", at)
	}
	if at := msgs[1].(stream.ErrorMsg).At; !at.Equal(own) {
		t.Errorf("an error's own time became %v, want %v", at, own)
	}
	if at := msgs[2].(stream.TerminalMsg).At; at.Before(before) {
		t.Errorf("a terminal message without a time kept %v, want the time it came", at)
	}
}

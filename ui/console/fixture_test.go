package console

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aipwatch/internal/keysrc"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// t0 is the fixed start of every scripted run (the goldens' clock).
var t0 = time.Date(2026, 9, 10, 12, 0, 0, 0, time.UTC)

type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// holdBackend stays attached without a word until a cancel arrives or ctx
// ends, and counts the cancels it was asked for.
type holdBackend struct {
	cancels  atomic.Int32
	once     sync.Once
	cancelCh chan struct{}
}

func newHold() *holdBackend { return &holdBackend{cancelCh: make(chan struct{})} }

func (f *holdBackend) Run(ctx context.Context, _ stream.Sink) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.cancelCh:
		return nil
	}
}

func (f *holdBackend) Cancel(context.Context, string) stream.CancelMsg {
	f.cancels.Add(1)
	f.once.Do(func() { close(f.cancelCh) })
	return stream.CancelMsg{Accepted: true}
}

// The console's tests press the operator's real keys (../../keymap.go,
// read through internal/keysrc as ui's tests do).
var keysOnce struct {
	sync.Once
	live    ui.KeyMap
	console ui.ConsoleKeyMap
	err     error
}

func loadKeys() {
	k := &keysOnce
	k.err = keysrc.Load("../../keymap.go", map[string]any{"keyMap": &k.live, "consoleKeyMap": &k.console})
}

func realKeys(t testing.TB) ui.KeyMap {
	t.Helper()
	keysOnce.Do(loadKeys)
	if keysOnce.err != nil {
		t.Fatal(keysOnce.err)
	}
	return keysOnce.live
}

func realConsoleKeys(t testing.TB) ui.ConsoleKeyMap {
	t.Helper()
	keysOnce.Do(loadKeys)
	if keysOnce.err != nil {
		t.Fatal(keysOnce.err)
	}
	return keysOnce.console
}

// simDaemon is a client of the simulator's console demo (sim.ConsoleFleet),
// served for the test's length.
func simDaemon(t *testing.T) *stream.Client {
	t.Helper()
	return fastClient(t, serveFleet(t)(sim.ConsoleFleet(4)))
}

// serveFleet returns a function that serves the fleet a sim constructor
// made for the test's length and returns its URL:
// serveFleet(t)(sim.ConsoleFleet(4)).
func serveFleet(t *testing.T) func(*sim.Fleet, error) string {
	return func(f *sim.Fleet, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		u, err := f.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		return u
	}
}

// fastClient is a client of the daemon at u whose retries are paced for a
// test (20-200 ms).
func fastClient(t *testing.T, u string) *stream.Client {
	t.Helper()
	c, err := stream.NewDaemon(stream.Config{BaseURL: u, BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

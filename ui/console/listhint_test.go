package console

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// A console across contexts none of whose daemons ever answered says so on
// its status line, with what to check and --demo=console (issue 46 item
// 18), as the console of one daemon does; each context's row keeps its
// error. Once one context answered, the others' failures are stale rows,
// with no hint.
func TestConsoleAcrossContextsWithNoDaemonHints(t *testing.T) {
	t.Parallel()
	const hint = "no daemon: aipwatch --demo=console"
	status := func(sources ...stream.MultiSource) string {
		t.Helper()
		var daemons []Source
		for _, s := range sources {
			daemons = append(daemons, Source{MultiSource: s})
		}
		c := New(context.Background(), Options{Sources: daemons, Keys: realConsoleKeys(t),
			LiveKeys: realKeys(t), NoColor: true, Clock: (&testClock{t: t0}).now, PollEvery: time.Millisecond,
			ListHint: "check: aipwatch contexts · " + hint})
		t.Cleanup(c.Close)
		c.update(tea.WindowSizeMsg{Width: 200, Height: 30})
		for range 2 {
			for _, m := range flatten(c.listCmd()) {
				if lm, ok := m.(listMsg); ok {
					c.update(lm)
				}
			}
		}
		s := screenOf(c)
		if !strings.Contains(s, "connection refused (127.0.0.1:1)") {
			t.Fatalf("the down context's row lacks its error:\n%s", s)
		}
		lines := strings.Split(s, "\n")
		return lines[len(lines)-2]
	}
	down := func(name string) stream.MultiSource {
		return stream.MultiSource{Name: name, Err: errors.New("list: connection refused (127.0.0.1:1)")}
	}
	if s := status(down("east"), down("west")); !strings.Contains(s, "no context answered · check") || !strings.Contains(s, hint) {
		t.Errorf("no context answered, the status line: %q", s)
	}
	if s := status(down("down"), stream.MultiSource{Name: "east", Poller: simDaemon(t).NewPoller(0)}); strings.Contains(s, hint) ||
		!strings.Contains(s, "stale: down") {
		t.Errorf("one context answered, the status line: %q", s)
	}
}

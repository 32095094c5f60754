package console

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// The journal is a file: the poll's command reads it with the list, and
// Update only takes what it read (no I/O in Update, AGENTS.md); the row
// the journal names is marked all the same.
func TestJournalReadByThePollNotInUpdate(t *testing.T) {
	t.Parallel()
	var reads atomic.Int32
	c := New(context.Background(), Options{
		Daemon: &fakeDaemon{list: consoleList()},
		Keys:   realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return newHold() },
		Journal: func() []string {
			reads.Add(1)
			return []string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72"}
		},
		Clock: (&testClock{t: t0}).now, NoColor: true,
	})
	t.Cleanup(c.Close)
	c.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	msg := c.listCmd()()
	if n := reads.Load(); n != 1 {
		t.Fatalf("the poll's command read the journal %d times, want 1", n)
	}
	c.Update(msg)
	if n := reads.Load(); n != 1 {
		t.Fatalf("Update read the journal (%d reads in all)", n)
	}
	for _, line := range strings.Split(screenOf(c), "\n") {
		if strings.Contains(line, "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f72") {
			if !strings.HasSuffix(strings.TrimRight(line, " "), "j") {
				t.Errorf("the journal's row is not marked: %q", line)
			}
			return
		}
	}
	t.Fatalf("the journal's row is not listed:\n%s", screenOf(c))
}

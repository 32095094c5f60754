package console

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/internal/frames"
	"aipwatch/stream"
	"aipwatch/ui"
)

// ctrl+z suspends the console, as other TUIs do, from the list, while
// the filter is typed and from a live view opened in it: the real
// program, whose runtime gets tea.SuspendMsg (taken by a filter here: it
// would stop the test's own process).
func TestConsoleCtrlZSuspends(t *testing.T) {
	t.Parallel()
	var suspends atomic.Int32
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		if _, ok := msg.(tea.SuspendMsg); ok {
			suspends.Add(1)
			return nil
		}
		return msg
	}
	b := newHold()
	c := New(context.Background(), Options{Daemon: &fakeDaemon{list: consoleList()}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return b }, NoColor: true})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(120, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii), tea.WithFilter(filter)))
	ctrlZ := tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}
	waitSuspends := func(n int32, where string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); suspends.Load() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("ctrl+z %s did not suspend (it was swallowed)", where)
			}
		}
	}
	fr.Wait(t, "the list", func(s string) bool { return strings.Contains(s, "e6f70") })
	tm.Send(ctrlZ)
	waitSuspends(1, "in the list")
	tm.Type("/")
	tm.Send(ctrlZ)
	waitSuspends(2, "while the filter is typed")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	fr.Wait(t, "the live view", func(s string) bool { return strings.Contains(s, "aipwatch · act_") })
	tm.Send(ctrlZ)
	waitSuspends(3, "in a live view")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	fr.Wait(t, "the list again", func(s string) bool { return strings.Contains(s, "aipwatch · console") })
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

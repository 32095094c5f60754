package ui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// suspendCatcher is a program filter that takes the runtime's suspend
// (which would stop the test's own process) and counts it.
type suspendCatcher struct{ n atomic.Int32 }

func (s *suspendCatcher) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.SuspendMsg); ok {
		s.n.Add(1)
		return nil
	}
	return msg
}

// wait waits (generously) until the program asked to suspend n times.
func (s *suspendCatcher) wait(tb testing.TB, n int32, where string) {
	tb.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.n.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("ctrl+z %s did not suspend (it was swallowed)", where)
		}
	}
}

// ctrlZ is the key as the terminal sends it.
var ctrlZ = tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}

// ctrl+z suspends the program of one action, as other TUIs do, whatever
// the view shows (the transcript, a search query being typed): the real
// program, whose runtime gets tea.SuspendMsg.
func TestCtrlZSuspends(t *testing.T) {
	t.Parallel()
	sus := &suspendCatcher{}
	m := newModel(context.Background(), Options{ActionID: testAction, Backend: newFake(settledScript(t, true), false), Keys: realKeys(t)})
	sc := &screens{}
	m.viewHook = sc.hook
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii), tea.WithFilter(sus.filter)))
	t.Cleanup(m.Close)
	sc.waitText(t, "VERIFIED")
	tm.Send(ctrlZ)
	sus.wait(t, 1, "in the transcript")
	tm.Type("/")
	sc.waitText(t, "enter find")
	tm.Send(ctrlZ)
	sus.wait(t, 2, "while typing a search")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	tm.Type("q")
	finalModel(t, tm)
}

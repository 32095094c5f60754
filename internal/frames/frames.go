// Package frames records the frames a program draws, for the tests that
// run the real Bubble Tea program (teatest) and wait for what the screen
// shows, never for a duration. It is test support only.
package frames

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Record is m, whose every frame the recorder returned sees (its text,
// escape sequences stripped): run it in place of m.
func Record(m tea.Model) (tea.Model, *Recorder) {
	r := &Recorder{}
	return recorded{m, r}, r
}

type recorded struct {
	m tea.Model
	r *Recorder
}

func (x recorded) Init() tea.Cmd { return x.m.Init() }

func (x recorded) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := x.m.Update(msg)
	return x, cmd
}

func (x recorded) View() tea.View {
	v := x.m.View()
	x.r.Add(ansi.Strip(v.Content))
	return v
}

// Recorder holds every frame drawn; Wait looks at those drawn since its
// last match.
type Recorder struct {
	mu   sync.Mutex
	all  []string
	next int
}

// Add records one frame (its text, escape sequences stripped).
func (f *Recorder) Add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.all = append(f.all, s)
}

// Wait returns the rows of the first frame since the last match that pred
// accepts; after a generous bound (a loaded machine is slow, never wrong)
// it fails the test with the last frame.
func (f *Recorder) Wait(tb testing.TB, what string, pred func(string) bool) []string {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		for ; f.next < len(f.all); f.next++ {
			if s := f.all[f.next]; pred(s) {
				f.next++
				f.mu.Unlock()
				return strings.Split(s, "\n")
			}
		}
		f.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	last := ""
	if len(f.all) > 0 {
		last = f.all[len(f.all)-1]
	}
	tb.Fatalf("timed out waiting for %s; the screen is:\n%s", what, last)
	return nil
}

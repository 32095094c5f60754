package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"aipwatch/sim"
)

// fitsWidth reports a frame whose lines are all at most w cells wide and
// that shows text.
func fitsWidth(w int, text string) func(string) bool {
	return func(frame string) bool {
		if !strings.Contains(frame, text) {
			return false
		}
		for _, l := range strings.Split(frame, "\n") {
			if ansi.StringWidth(l) > w {
				return false
			}
		}
		return true
	}
}

// The real program (teatest runs tea.Program: its event loop, the stream's
// goroutine sending batches, the renderer) with the live view's stream in
// flight: the window shrinks and grows while messages arrive, the cancel's
// confirmation is opened, survives a resize, and is answered; the action
// ends cancelled with exactly one cancel sent. Run under -race (make test)
// it holds the live view's state against the stream's goroutine. It waits
// on what the screen shows, generously, never on timing.
func TestSimResizeAndCancelInFlight(t *testing.T) {
	t.Parallel()
	c, srv := simClient(t, "long", sim.Knobs{Speed: 4, PollInterval: 20 * time.Millisecond})
	tm, _, sc := startFlow(t, c, 100, 30, func(o *Options) { o.ActionID = srv.ActionID() })
	sc.waitText(t, "Paragraph 1.")
	tm.Send(tea.WindowSizeMsg{Width: 60, Height: 20})
	sc.waitFor(t, "a frame of 60 columns while streaming", fitsWidth(60, "FOLLOWING"))
	tm.Send(tea.WindowSizeMsg{Width: 140, Height: 40})
	sc.waitFor(t, "a frame wider than 100 columns", func(f string) bool {
		for _, l := range strings.Split(f, "\n") {
			if ansi.StringWidth(l) > 100 {
				return strings.Contains(f, "FOLLOWING")
			}
		}
		return false
	})
	tm.Type("c")
	sc.waitText(t, "cooperative stop")
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24}) // the confirmation stays open through a resize
	sc.waitFor(t, "the confirmation at 80 columns", fitsWidth(80, "cooperative stop"))
	if n := srv.CancelCount(); n != 0 {
		t.Fatalf("c and a resize made %d cancel requests", n)
	}
	confirmLongCancel(t, tm, sc, srv, fitsWidth(80, "CANCELLED"))
}

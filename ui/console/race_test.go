package console

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/internal/frames"
	"aipwatch/stream"
	"aipwatch/ui"
)

// The real program (Bubble Tea's event loop, its command goroutines)
// against the simulated daemon, run under -race: live views opened and
// closed over and over while the list's polls and the VERDICT column's
// judgements are in flight. Each view opened must come to life (its own
// messages reach it: the status bar leaves "reading the action status"),
// and esc must bring the list back. Nothing here waits on a duration: each
// step waits for the screen, with a generous bound.
func TestConsoleOpensAndClosesLiveViewsInTheRealProgram(t *testing.T) {
	t.Parallel()
	client := simDaemon(t)
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		NoColor: true, PollEvery: 20 * time.Millisecond, // polls always out
		Judge: stream.NewJudge(client.Config(), stream.JudgeOptions{}),
		Follow: func(id string) stream.Runner {
			cfg := client.Config()
			cfg.ActionID = id
			s, err := stream.New(cfg)
			if err != nil {
				return nil
			}
			return s
		}})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(160, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	fr.Wait(t, "the list", func(s string) bool { return strings.Contains(s, "act_sim_console") })
	enter, esc, down := tea.KeyPressMsg{Code: tea.KeyEnter}, tea.KeyPressMsg{Code: tea.KeyEscape}, tea.KeyPressMsg{Code: tea.KeyDown}
	for i := range 16 {
		tm.Send(enter)
		fr.Wait(t, "a live view that came to life", func(s string) bool {
			return strings.Contains(s, "aipwatch · act_sim") && !strings.Contains(s, "reading the action status")
		})
		tm.Send(esc)
		fr.Wait(t, "the list again", func(s string) bool { return strings.Contains(s, "aipwatch · console") })
		if i%2 == 1 { // the next row: another action, another daemon stream
			tm.Send(down)
		}
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

package console

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/stream"
)

// The real program (Bubble Tea's event loop, its command goroutines)
// against the simulated daemon, run under -race: live views opened and
// closed over and over while the list's polls and the VERDICT column's
// judgements are in flight. Each view opened must come to life (its own
// messages reach it: the status bar leaves "reading the action status"),
// and esc must bring the list back. Nothing here waits on a duration: each
// step waits for the screen, with a generous bound.
func TestConsoleOpensAndClosesLiveViewsInTheRealProgram(t *testing.T) {
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
	fr := &frames{}
	tm := teatest.NewTestModel(t, recorded{c, fr}, teatest.WithInitialTermSize(160, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	fr.wait(t, "the list", func(s string) bool { return strings.Contains(s, "act_sim_console") })
	enter, esc, down := tea.KeyPressMsg{Code: tea.KeyEnter}, tea.KeyPressMsg{Code: tea.KeyEscape}, tea.KeyPressMsg{Code: tea.KeyDown}
	for i := range 16 {
		tm.Send(enter)
		fr.wait(t, "a live view that came to life", func(s string) bool {
			return strings.Contains(s, "aipwatch · act_sim") && !strings.Contains(s, "reading the action status")
		})
		tm.Send(esc)
		fr.wait(t, "the list again", func(s string) bool { return strings.Contains(s, "aipwatch · console") })
		if i%2 == 1 { // the next row: another action, another daemon stream
			tm.Send(down)
		}
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// recorded is the console, whose frames the test sees.
type recorded struct {
	*Console
	fr *frames
}

func (r recorded) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.Console.Update(msg)
	return r, cmd
}

func (r recorded) View() tea.View {
	v := r.Console.View()
	r.fr.add(ansi.Strip(v.Content))
	return v
}

// frames are the frames drawn; wait looks at those drawn since its last
// match.
type frames struct {
	mu   sync.Mutex
	all  []string
	next int
}

func (f *frames) add(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.all = append(f.all, s)
}

func (f *frames) wait(tb testing.TB, what string, pred func(string) bool) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		for ; f.next < len(f.all); f.next++ {
			if pred(f.all[f.next]) {
				f.next++
				f.mu.Unlock()
				return
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
}

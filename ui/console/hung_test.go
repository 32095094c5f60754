package console

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"aipwatch/internal/frames"
	"aipwatch/sim"
	"aipwatch/stream"
	"aipwatch/ui"
)

// hungDaemon accepts every request and never answers, until the test
// ends; it counts the requests it holds.
func hungDaemon(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	release := make(chan struct{})
	var held atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv, &held
}

// Issue 46 item 8: one hung context (it accepts, never answers) must not
// make the console's list stale. The healthy context's rows arrive while
// the hung one's read is still out (its bound is an hour here: a console
// that waited for every daemon before showing any would show nothing),
// the hung context is one row saying it gave no answer, and the status
// line names it stale instead of saying the global log is live. The real
// program, waiting on frames only.
func TestConsoleHungContextDelaysNoOther(t *testing.T) {
	t.Parallel()
	f, err := sim.ConsoleFleet(4)
	u := serveFleet(t)(f, err)
	hung, held := hungDaemon(t)
	poller := func(url string) *stream.Poller { return fastClient(t, url).NewPoller(0) }
	c := New(context.Background(), Options{Sources: []Source{
		{MultiSource: stream.MultiSource{Name: "hung", Poller: poller(hung.URL)}},
		{MultiSource: stream.MultiSource{Name: "east", Poller: poller(u)}},
	}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, PollEvery: 50 * time.Millisecond})
	t.Cleanup(c.Close)
	multi := c.daemon.(*stream.Multi)
	multi.Timeout = time.Hour
	c.reading(multi)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(200, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	rows := fr.Wait(t, "east's rows, and hung named stale", func(s string) bool {
		return strings.Contains(s, "act_sim_console_async_long") && strings.Contains(s, "stale: hung (no answer for")
	})
	if held.Load() == 0 {
		t.Fatal("the hung daemon was never asked")
	}
	screen := strings.Join(rows, "\n")
	status := rows[len(rows)-2]
	if strings.Contains(status, "live") || !strings.Contains(status, "stale: hung") || strings.Contains(status, "east") {
		t.Errorf("the status line while hung is stale: %q", status)
	}
	var hungRow string
	for _, l := range rows {
		if strings.HasPrefix(strings.TrimSpace(l), "hung") {
			hungRow = l
		}
	}
	if !strings.Contains(hungRow, "no answer yet") || !strings.Contains(hungRow, "(daemon not read)") {
		t.Errorf("the hung context's row: %q\n%s", hungRow, screen)
	}
	// The healthy context's rows are current (no "stale" in them), and
	// its polls go on: a row that was running still reads its state.
	for _, l := range rows {
		if strings.HasPrefix(strings.TrimSpace(l), "east") && strings.Contains(l, "stale") {
			t.Errorf("a row of the healthy context reads stale: %q", l)
		}
	}
	before := f.Stats().ListRequests
	fr.Wait(t, "east polled again while hung still hangs", func(string) bool { return f.Stats().ListRequests >= before+8 })
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// One daemon that accepts and never answers: the status line says its
// list is stale (never "live") while its read is out.
func TestConsoleHungDaemonIsStale(t *testing.T) {
	t.Parallel()
	hung, _ := hungDaemon(t)
	client, err := stream.NewDaemon(stream.Config{BaseURL: hung.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		NoColor: true, PollEvery: 50 * time.Millisecond})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(160, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	rows := fr.Wait(t, "the daemon named stale", func(s string) bool { return strings.Contains(s, "stale: the daemon (no answer for") })
	if status := rows[len(rows)-2]; strings.Contains(status, "live") {
		t.Errorf("the status line: %q", status)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

// A context whose daemon cannot be read keeps its row (its error) and its
// footer word (stale) through the other contexts' polls, each of which
// takes its own context's rows only.
func TestConsoleFailedContextStaysStaleThroughOthersPolls(t *testing.T) {
	t.Parallel()
	client := simDaemon(t)
	c := New(context.Background(), Options{Sources: []Source{
		{MultiSource: stream.MultiSource{Name: "down", Err: errors.New("context down: token_file: no such file")}},
		{MultiSource: stream.MultiSource{Name: "east", Poller: client.NewPoller(0)}},
	}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, Clock: (&testClock{t: t0}).now, PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 200, Height: 30})
	for range 3 { // each context's answer, one after the other, thrice
		for _, m := range flatten(c.listCmd()) {
			if lm, ok := m.(listMsg); ok {
				c.update(lm)
			}
		}
	}
	s := screenOf(c)
	lines := strings.Split(s, "\n")
	status := lines[len(lines)-2]
	if !strings.Contains(status, "stale: down (context down: token_file: no such file)") {
		t.Errorf("the status line: %q", status)
	}
	var down, east int
	for _, l := range lines {
		switch f := strings.Fields(l); {
		case len(f) == 0:
		case f[0] == "down" && strings.Contains(l, "(daemon not read)"):
			down++
		case f[0] == "east" && strings.Contains(l, "act_sim_console"):
			east++
			if strings.Contains(l, "stale") {
				t.Errorf("a row of the context that answered reads stale: %q", l)
			}
		}
	}
	if down != 1 || east < 5 {
		t.Errorf("%d rows of down (want its one), %d of east:\n%s", down, east, s)
	}
}

package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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

// Issue 46 item 19, design §7: the console on a production-sized daemon
// (50,000 settled actions, a sync stream and an async worker) costs a few
// list requests a poll, whatever runs beside its polls in the real program
// (the global log, the VERDICT column's reviews, the pulse): counted at the
// daemon's door over ten polls and more (a poll is one request of
// state=queued), at most five a poll.
func TestConsoleListRequestsAPollOnAProductionDaemon(t *testing.T) {
	t.Parallel()
	u := serveFleet(t)(sim.ProductionFleet(4, sim.History{Actions: 50_000, Events: 100_000}))
	var polls, lists atomic.Int64
	target, _ := url.Parse(u)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // the global log streams
	door := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/aip/v1/actions" && r.Method == http.MethodGet {
			lists.Add(1)
			if r.URL.Query().Get("state") == "queued" {
				polls.Add(1)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(door.Close)
	client, err := stream.NewDaemon(stream.Config{BaseURL: door.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := New(context.Background(), Options{Daemon: client.NewPoller(0), Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		NoColor: true, PollEvery: 20 * time.Millisecond, Judge: stream.NewJudge(client.Config(), stream.JudgeOptions{})})
	t.Cleanup(c.Close)
	rec, fr := frames.Record(ui.NewShell(c))
	tm := teatest.NewTestModel(t, rec, teatest.WithInitialTermSize(200, 50),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	fr.Wait(t, "the live actions", func(s string) bool {
		return strings.Contains(s, sim.ProductionLive[0]) && strings.Contains(s, sim.ProductionLive[1])
	})
	p0, l0 := polls.Load(), lists.Load()
	fr.Wait(t, "ten polls more", func(string) bool { return polls.Load() >= p0+10 })
	p, l := polls.Load()-p0, lists.Load()-l0
	if l > 5*p+4 { // a poll may be half-counted at either end
		t.Errorf("%d list requests over %d polls: more than 5 a poll", l, p)
	}
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(30*time.Second))
}

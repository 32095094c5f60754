package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// A console across contexts: rows of two daemons, one that cannot be read
// (stream.Multi gives it as one row with its error), the same action ID on
// both daemons as two rows.
func newContextsConsole(t *testing.T) (*Console, *[]string) {
	t.Helper()
	east := consoleList()
	west := []model.ActionStatus{east[0], {ActionID: "act_west_only", CapabilityID: "cap:hermes_agent:eu:chat_stream", State: "running",
		UpdatedAt: east[0].UpdatedAt}}
	multi := &stream.Multi{Sources: []stream.MultiSource{
		{Name: "east", Poller: nil, Err: nil},
		{Name: "west"},
		{Name: "down", Err: errors.New("list: connection refused (127.0.0.1:1)")},
	}}
	d := &contextsDaemon{multi: multi, lists: map[string][]model.ActionStatus{"east": east, "west": west}}
	var followed []string
	b := newHold()
	var sources []Source
	for _, name := range []string{"down", "east", "west"} {
		sources = append(sources, Source{MultiSource: stream.MultiSource{Name: name}, Follow: func(id string) stream.Runner {
			followed = append(followed, name+"/"+id)
			return b
		}})
	}
	c := New(context.Background(), Options{Sources: sources, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Clock: (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c.Close)
	c.reading(d)
	c.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
	c.Update(c.listCmd()())
	return c, &followed
}

// reading makes c read d in place of the stream.Multi New made of its
// Sources, which go on following, judging, reconciling and marking the
// rows of their contexts: fixed lists (contextsDaemon), or a Multi of
// another bound.
func (c *Console) reading(d Daemon) { c.daemon, c.parts = d, newParts(d) }

// contextsDaemon is stream.Multi's tagging over fixed lists (its Poll is
// Multi's own rule: rows tagged, a failed daemon one row).
type contextsDaemon struct {
	fakeDaemon
	multi *stream.Multi
	lists map[string][]model.ActionStatus
}

func (d *contextsDaemon) Poll(context.Context) (stream.Window, error) {
	var w stream.Window
	for _, s := range d.multi.Sources {
		if s.Err != nil {
			w.Live = append(w.Live, model.ActionStatus{Context: s.Name, Unreachable: s.Err.Error()})
			continue
		}
		for _, st := range d.lists[s.Name] {
			st.Context = s.Name
			w.Recent.Rows = append(w.Recent.Rows, st)
		}
	}
	return w, nil
}

func TestConsoleAcrossContexts(t *testing.T) {
	t.Parallel()
	c, followed := newContextsConsole(t)
	s := screenOf(c)
	for _, want := range []string{"CONTEXT", "every context (x: one)", "(daemon not read)", "connection refused", "unreachable", "west", "act_west_only", "x context"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70"); n != 2 {
		t.Errorf("one ID on two daemons is two rows, got %d:\n%s", n, s)
	}
	// x narrows to one context, then the next, then all again.
	press(c, "x")
	if s := screenOf(c); !strings.Contains(s, "context down") || strings.Contains(s, "act_west_only") {
		t.Errorf("narrowed to down:\n%s", s)
	}
	press(c, "x", "x")
	s = screenOf(c)
	if !strings.Contains(s, "context west") || strings.Contains(s, "cap:hermes_agent:lab") || !strings.Contains(s, "act_west_only") {
		t.Errorf("narrowed to west:\n%s", s)
	}
	// enter follows the row on its own daemon.
	for i, r := range c.rows {
		if r.ActionID == "act_west_only" {
			c.table.SetCursor(i)
		}
	}
	press(c, "enter")
	if len(*followed) != 1 || (*followed)[0] != "west/act_west_only" {
		t.Fatalf("followed %v", *followed)
	}
	if s := screenOf(c); !strings.Contains(s, "on west") {
		t.Errorf("the live view does not name its daemon's context:\n%s", s)
	}
	press(c, "esc", "x")
	if s := screenOf(c); !strings.Contains(s, "every context") {
		t.Errorf("back to every context:\n%s", s)
	}
}

// One action ID on two daemons stays two rows while the order is held
// after a key (the held order was kept by ID: each poll added the rows
// again), and narrowing shows only the chosen context's.
func TestConsoleAcrossContextsSameIDHeld(t *testing.T) {
	t.Parallel()
	c, _ := newContextsConsole(t)
	want := len(c.rows)
	press(c, "down") // holds the order for a while
	for range 3 {
		c.Update(c.listCmd()())
		if len(c.rows) != want {
			t.Fatalf("rows %d after a held poll, want %d:\n%s", len(c.rows), want, screenOf(c))
		}
	}
	press(c, "x", "x") // east
	for _, r := range c.rows {
		if r.Context != "east" {
			t.Errorf("context east shows a %q row: %+v", r.Context, r)
		}
	}
	c.Update(c.listCmd()())
	for _, r := range c.rows {
		if r.Context != "east" {
			t.Errorf("after a poll, context east shows a %q row", r.Context)
		}
	}
}

// The pulse is the whole fleet's (design §13): with the list narrowed to
// one context by x, the rows that settle in another still count, as on a
// console showing every context.
func TestConsolePulseCountsEveryContextWhenNarrowed(t *testing.T) {
	t.Parallel()
	narrowed, _ := newContextsConsole(t)
	every, _ := newContextsConsole(t)
	press(narrowed, "x", "x", "x") // west alone
	if s := screenOf(narrowed); !strings.Contains(s, "context west") {
		t.Fatalf("not narrowed to west:\n%s", s)
	}
	// Eight actions settle on east, over the last four minutes.
	for _, c := range []*Console{narrowed, every} {
		d := c.daemon.(*contextsDaemon)
		for i := range 8 {
			d.lists["east"] = append(d.lists["east"], model.ActionStatus{ActionID: fmt.Sprintf("act_east_new_%d", i),
				CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "completed", QueuedState: "completed",
				ResultStatus: "completed", UpdatedAt: t0.Add(-time.Duration(30*i) * time.Second).Format(time.RFC3339Nano)})
		}
		c.Update(c.listCmd()())
	}
	got, want := strings.Join(narrowed.pulseLines(), "\n"), strings.Join(every.pulseLines(), "\n")
	if got != want {
		t.Errorf("the pulse moved with the list's context:\nnarrowed to west %s\nevery context    %s", got, want)
	}
}

package console

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
	"aipwatch/ui"
)

// sourceProbe is a Source that records what the console asked of it.
type sourceProbe struct {
	followed   []string
	judge      *fakeJudge
	reconciles int
	journals   atomic.Int32 // the poll's command reads it
}

func (p *sourceProbe) source(name string, poller *stream.Poller) Source {
	p.judge = &fakeJudge{words: map[string]string{}}
	return Source{MultiSource: stream.MultiSource{Name: name, Poller: poller},
		Follow: func(id string) stream.Runner {
			p.followed = append(p.followed, id)
			return newHold()
		},
		Judge: p.judge,
		Reconcile: func() ui.ReconcileFunc {
			p.reconciles++
			return func(*model.Action) (string, func(context.Context) string) { return "probe", nil }
		},
		Journal: func() []string {
			p.journals.Add(1)
			return nil
		}}
}

// pollAll runs each daemon's poll once through Update.
func pollAll(c *Console) {
	for _, m := range flatten(c.listCmd()) {
		if lm, ok := m.(listMsg); ok {
			c.update(lm)
		}
	}
}

// Options.Sources across contexts: one list of the daemons in their
// order, under their context's names; a daemon that cannot be read is a
// row with its error; each row is judged, followed and reconciled by its
// own daemon's Source, its R made when its view opens, and each daemon's
// journal is read by its own poll.
func TestConsoleSourcesAcrossContexts(t *testing.T) {
	t.Parallel()
	east := &sourceProbe{}
	down := Source{MultiSource: stream.MultiSource{Name: "down", Err: errors.New("context down: token_file: no such file")}}
	c := New(context.Background(), Options{Sources: []Source{down, east.source("east", simDaemon(t).NewPoller(0))},
		Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, Clock: (&testClock{t: t0}).now, PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	if got := strings.Join(c.contexts, ","); got != "down,east" {
		t.Errorf("contexts %q, want the sources' names in order", got)
	}
	c.update(tea.WindowSizeMsg{Width: 200, Height: 30})
	pollAll(c)
	s := screenOf(c)
	if l := lineOf(s, "(daemon not read)"); !strings.HasPrefix(strings.TrimSpace(l), "down") {
		t.Errorf("down's row %q:\n%s", l, s)
	}
	const settled = "act_sim_console_done_responses"
	if l := lineOf(s, settled); !strings.HasPrefix(strings.TrimSpace(l), "east") {
		t.Fatalf("east's row %q:\n%s", l, s)
	}
	if east.journals.Load() == 0 {
		t.Error("east's journal never read by its poll")
	}
	judgeAll(t, c)
	if !strings.Contains(strings.Join(east.judge.asked, " "), settled) {
		t.Errorf("east's judge asked %v, not its settled %s", east.judge.asked, settled)
	}
	if east.reconciles != 0 {
		t.Errorf("R made %d times before a view opened", east.reconciles)
	}
	for i, r := range c.rows {
		if r.ActionID == settled {
			c.table.SetCursor(i)
		}
	}
	press(c, "enter")
	if len(east.followed) != 1 || east.followed[0] != settled {
		t.Fatalf("east followed %v, want %s", east.followed, settled)
	}
	if east.reconciles != 1 {
		t.Errorf("R made %d times for the view opened, want 1", east.reconciles)
	}
}

// One Source with no name is the console of one daemon: no CONTEXT
// column, its R made once at the start, its rows followed and judged by
// it.
func TestConsoleOneSource(t *testing.T) {
	t.Parallel()
	one := &sourceProbe{}
	c := New(context.Background(), Options{Sources: []Source{one.source("", simDaemon(t).NewPoller(0))},
		Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, Clock: (&testClock{t: t0}).now, PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	if one.reconciles != 1 {
		t.Errorf("R made %d times at the start, want 1", one.reconciles)
	}
	c.update(tea.WindowSizeMsg{Width: 200, Height: 30})
	pollAll(c)
	const settled = "act_sim_console_done_responses"
	s := screenOf(c)
	if strings.Contains(s, "CONTEXT") || lineOf(s, settled) == "" {
		t.Fatalf("one daemon's console:\n%s", s)
	}
	if one.journals.Load() == 0 {
		t.Error("the journal never read by the poll")
	}
	judgeAll(t, c)
	if !strings.Contains(strings.Join(one.judge.asked, " "), settled) {
		t.Errorf("the judge asked %v, not %s", one.judge.asked, settled)
	}
	for i, r := range c.rows {
		if r.ActionID == settled {
			c.table.SetCursor(i)
		}
	}
	press(c, "enter")
	if len(one.followed) != 1 || one.followed[0] != settled || one.reconciles != 1 {
		t.Fatalf("followed %v, R made %d times", one.followed, one.reconciles)
	}
}

// One Source with no name that cannot be read (its token file, its CA)
// is the console of one daemon saying why: its status line says the
// error, with the list's hint, and its global log's follow stops saying
// it; it is never a daemon set that holds nothing, which the first poll
// would crash on.
func TestConsoleOneSourceThatCannotBeRead(t *testing.T) {
	t.Parallel()
	const why = "token_file: open /nowhere/token: no such file or directory"
	const hint = "is aipd running at http://127.0.0.1:1?"
	c := New(context.Background(), Options{Sources: []Source{{MultiSource: stream.MultiSource{Err: errors.New(why)}}},
		ListHint: hint, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), NoColor: true, Clock: (&testClock{t: t0}).now,
		PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	c.update(tea.WindowSizeMsg{Width: 200, Height: 30})
	pollAll(c)
	s := screenOf(c)
	lines := strings.Split(s, "\n")
	if status := lines[len(lines)-2]; !strings.Contains(status, why) || !strings.Contains(status, hint) {
		t.Errorf("the status line %q, want the error and the hint", status)
	}
	if strings.Contains(s, "CONTEXT") {
		t.Errorf("one daemon's console with a CONTEXT column:\n%s", s)
	}
	c.globalCmd()()
	select {
	case m := <-c.events:
		if g, ok := m.(globalMsg); !ok || g.m != (stream.GlobalLinkMsg{Cause: "stopped: " + why}) {
			t.Errorf("the global log's follow ended with %#v, want it stopped saying why", m)
		}
	case <-time.After(30 * time.Second): // a hang guard only
		t.Fatal("the global log's follow never ended")
	}
}

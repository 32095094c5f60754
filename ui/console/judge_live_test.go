package console

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/stream"
)

// While a live view is open the console judges nothing (design §7: only
// the rows on screen are judged, and under a live view none is): the polls
// go on, their commands are run as the program runs them, and the judge is
// not asked; back in the list, the rows drawn are judged.
func TestConsoleJudgesNothingUnderALiveView(t *testing.T) {
	t.Parallel()
	j := &fakeJudge{}
	d := &fakeDaemon{list: consoleList()} // the top row is running: enter opens it
	c := New(context.Background(), Options{Daemon: d, Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Follow: func(string) stream.Runner { return newHold() }, Judge: j,
		Clock: (&testClock{t: t0}).now, NoColor: true, PollEvery: time.Millisecond})
	t.Cleanup(c.Close)
	// update, not Update: nothing is judged before the live view opens.
	c.update(tea.WindowSizeMsg{Width: 120, Height: 12})
	c.update(c.listCmd()())
	c.update(globalMsg{stream.GlobalLinkMsg{Denied: true}})
	c.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if c.split == nil {
		t.Fatal("enter opened no live view")
	}
	// Three polls under the live view, each listing settled rows; every
	// command they give is run and its message handed back (the tick, the
	// next poll, any judgement asked for).
	queue := []tea.Msg{c.listCmd()()}
	for polls := 0; len(queue) > 0 && polls < 3; {
		m := queue[0]
		queue = queue[1:]
		if _, ok := m.(listMsg); ok {
			polls++
		}
		cmd := c.Update(m)
		queue = append(queue, flatten(cmd)...)
	}
	if len(j.asked) != 0 {
		t.Fatalf("judged %v under the live view", j.asked)
	}
	c.update(tea.KeyPressMsg{Code: tea.KeyEscape}) // judgeAll asks for the judgements, and runs them
	if c.split != nil {
		t.Fatal("esc did not close the live view")
	}
	judgeAll(t, c)
	if len(j.asked) == 0 {
		t.Fatal("back in the list, no row was judged")
	}
}

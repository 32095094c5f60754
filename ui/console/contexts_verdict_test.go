package console

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// sameIDOnTwoDaemons lists one settled action, of one ID, on the contexts
// east and west.
func sameIDOnTwoDaemons() *contextsDaemon {
	settled := []model.ActionStatus{{ActionID: sameID, CapabilityID: "cap:hermes_agent:prod:chat_stream", State: "completed",
		ResultStatus: "completed", UpdatedAt: t0.Add(-time.Minute).Format(time.RFC3339Nano)}}
	return &contextsDaemon{multi: &stream.Multi{Sources: []stream.MultiSource{{Name: "east"}, {Name: "west"}}},
		lists: map[string][]model.ActionStatus{"east": settled, "west": settled}}
}

// sameID is the action ID listed on both daemons.
const sameID = "act_same_on_both"

// Across contexts each settled row is judged by its own daemon's judge
// (design §9: the VERDICT column acts on the row's own daemon, with its
// own credentials): one action ID on two daemons is two judgements, each
// asked of its own judge, each shown on its own row.
func TestConsoleAcrossContextsJudgesOnTheRowsDaemon(t *testing.T) {
	t.Parallel()
	d := sameIDOnTwoDaemons()
	judges := map[string]*fakeJudge{
		"east": {words: map[string]string{sameID: model.VerdictFailed}},
		"west": {words: map[string]string{sameID: model.VerdictVerified}},
	}
	c := New(context.Background(), Options{Sources: []Source{
		{MultiSource: stream.MultiSource{Name: "east"}, Judge: judges["east"]},
		{MultiSource: stream.MultiSource{Name: "west"}, Judge: judges["west"]},
	}, Keys: realConsoleKeys(t), LiveKeys: realKeys(t), Clock: (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c.Close)
	c.reading(d)
	c.update(tea.WindowSizeMsg{Width: 140, Height: 24})
	c.update(c.listCmd()())
	judgeAll(t, c)
	for name, j := range judges {
		if len(j.asked) != 1 || j.asked[0] != sameID {
			t.Errorf("%s's judge was asked %v, want %s once", name, j.asked, sameID)
		}
	}
	var east, west string
	for _, l := range strings.Split(screenOf(c), "\n") {
		switch {
		case strings.Contains(l, sameID) && strings.Contains(l, "east"):
			east = l
		case strings.Contains(l, sameID) && strings.Contains(l, "west"):
			west = l
		}
	}
	if !strings.Contains(east, "FAILED") || !strings.Contains(west, "VERIFIED") {
		t.Fatalf("east's row %q, west's row %q: each shows its own daemon's verdict", east, west)
	}
}

// Across contexts, the notification of an action n armed names its
// context: one ID on two daemons reads as two (issue 46 item 10).
func TestConsoleNotificationNamesTheContext(t *testing.T) {
	t.Parallel()
	d := sameIDOnTwoDaemons()
	c := New(context.Background(), Options{Keys: realConsoleKeys(t), LiveKeys: realKeys(t),
		Sources: []Source{
			{MultiSource: stream.MultiSource{Name: "east"}, Judge: &fakeJudge{}},
			{MultiSource: stream.MultiSource{Name: "west"}, Judge: &fakeJudge{}},
		},
		Notification:   func(a *model.Action) string { return "bare " + a.ID },
		NotificationAs: func(name string, _ *model.Action) string { return "named " + name },
		Clock:          (&testClock{t: t0}).now, NoColor: true})
	t.Cleanup(c.Close)
	c.reading(d)
	c.update(tea.WindowSizeMsg{Width: 140, Height: 24})
	c.update(c.listCmd()())
	for i := range c.rows {
		c.verdict.notify[c.rows[i].Key()] = true
	}
	var sent []string
	for _, m := range flatten(c.notifySettled()) {
		if n, ok := m.(notifiedMsg); ok {
			sent = append(sent, n.bytes)
		}
	}
	slices.Sort(sent)
	if strings.Join(sent, "|") != "named east/"+sameID+"|named west/"+sameID {
		t.Fatalf("notifications %q, want each naming its context", sent)
	}
}

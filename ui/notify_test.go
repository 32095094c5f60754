package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"aipwatch/model"
	"aipwatch/stream"
)

// raws runs cmd (a Raw, a Batch of them, or nil) and returns what the
// terminal would be sent.
func raws(cmd tea.Cmd) []string {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return []string{msg.Msg.(string)}
	case tea.BatchMsg:
		var out []string
		for _, c := range msg {
			out = append(out, raws(c)...)
		}
		return out
	}
	return nil
}

// feedNotify applies msgs as Update does and returns the terminal bytes
// each one asked for, with the index of the message.
func feedNotify(h *harness, msgs []stream.Msg) map[int][]string {
	sent := map[int][]string{}
	for i, x := range msgs {
		if r := raws(h.m.onStream(x)); len(r) > 0 {
			sent[i] = r
		}
		h.m.sync(true)
	}
	return sent
}

func notifyOpts(notify bool) func(*Options) {
	return func(o *Options) {
		o.Notify = notify
		o.Notification = func(a *model.Action) string { return "BELL+OSC9 " + a.Verdict().Word }
	}
}

// --notify: the notification goes out once, when the result settles the
// action, with the settled verdict.
func TestNotifyWhenItSettles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, notifyOpts(true))
	msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
	if !strings.Contains(h.feed(msgs[:3]...).screen(), "notify on settle") {
		t.Fatalf("the meters do not say a notification waits:\n%s", h.screen())
	}
	sent := feedNotify(h, msgs[3:])
	var at []int
	for i, r := range sent {
		at = append(at, i)
		if len(r) != 1 || r[0] != "BELL+OSC9 verified" {
			t.Fatalf("sent %q", r)
		}
	}
	if len(at) != 1 {
		t.Fatalf("sent at messages %v, want once", at)
	}
	if _, ok := msgs[3+at[0]].(stream.ResultMsg); !ok {
		t.Fatalf("sent at %T, want at the result that settles it", msgs[3+at[0]])
	}
	if strings.Contains(h.screen(), "notify on settle") {
		t.Fatal("still waiting after notifying")
	}
}

// n asks for it while the action runs, and n again takes it back.
func TestNotifyKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		keys []string
		want int
	}{{nil, 0}, {[]string{"n"}, 1}, {[]string{"n", "n"}, 0}} {
		h := newHarness(t, 100, 30, notifyOpts(false))
		msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
		h.feed(msgs[:3]...).press(tc.keys...)
		if got := len(feedNotify(h, msgs[3:])); got != tc.want {
			t.Errorf("keys %v: %d notifications, want %d", tc.keys, got, tc.want)
		}
	}
}

// With no terminal to notify (Notification nil), --notify and n send
// nothing.
func TestNotifyNeedsATerminal(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, func(o *Options) { o.Notify = true })
	msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
	h.feed(msgs[:3]...).press("n")
	if sent := feedNotify(h, msgs[3:]); len(sent) != 0 {
		t.Fatalf("sent %v with no terminal", sent)
	}
}

// design §13: when tmux drops the notification, the notice says how to
// let it through instead of "notified".
func TestNotifyHintWhenTheMultiplexerDropsIt(t *testing.T) {
	t.Parallel()
	hint := "tmux drops the desktop notification (allow-passthrough is off)"
	h := newHarness(t, 160, 30, notifyOpts(true), func(o *Options) { o.NotifyHint = hint })
	msgs := chatToolsDone(t, h.f, "stop", false, result(t, model.ResultCompleted, model.OpChat, "", true, false))
	h.feed(msgs[:3]...)
	if sent := feedNotify(h, msgs[3:]); len(sent) != 1 {
		t.Fatalf("sent %v", sent)
	}
	if s := h.screen(); !strings.Contains(s, hint) || strings.Contains(s, "notified: the action settled") {
		t.Fatalf("the notice:\n%s", s)
	}
}

package output

import (
	"strconv"
	"strings"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
)

// NotifyOn is --notify-on (and a context's notify_on, design §13): a
// notification when any action of the fleet settles with one of the
// verdicts, at most one each FoldWindow: the first settle of a burst
// starts the window, the ones that settle before it ends join it, and
// when it ends one notification tells them all ("3 actions failed"). It
// does no I/O and reads no clock: the caller passes the time, sends the
// bytes, and comes back when the window ends (Due).
type NotifyOn struct {
	want    [len(model.SettledVerdicts)]bool
	pending []settledNote
	keys    map[string]bool // the pending actions, by row key: one note each
	due     time.Time       // when the pending burst is told; zero: none
}

type settledNote struct {
	verdict int // index in model.SettledVerdicts
	text    string
}

// FoldWindow is how long a burst is gathered before it is told.
const FoldWindow = 3 * time.Second

// NewNotifyOn notifies on the verdicts given (model.ParseVerdicts' words);
// nil when there are none (nothing to notify on).
func NewNotifyOn(verdicts []string) *NotifyOn {
	n := &NotifyOn{keys: map[string]bool{}}
	some := false
	for _, w := range verdicts {
		if i := model.VerdictIndex(w); i >= 0 {
			n.want[i], some = true, true
		}
	}
	if !some {
		return nil
	}
	return n
}

// Wants reports whether verdict is one to notify on.
func (n *NotifyOn) Wants(verdict string) bool {
	i := model.VerdictIndex(verdict)
	return n != nil && i >= 0 && n.want[i]
}

// Settled takes an action (key: its row's) that settled with verdict at
// now, text its notification's text alone (NotifyText). It returns the
// time the burst it joined is due (zero when the verdict is not one to
// notify on, or the action is already in the burst); start reports that it
// began a burst, so the caller asks to come back at due.
func (n *NotifyOn) Settled(key, verdict, text string, now time.Time) (due time.Time, start bool) {
	if !n.Wants(verdict) || n.keys[key] {
		return time.Time{}, false
	}
	start = n.due.IsZero()
	if start {
		n.due = now.Add(FoldWindow)
	}
	n.keys[key] = true
	n.pending = append(n.pending, settledNote{verdict: model.VerdictIndex(verdict), text: text})
	return n.due, start
}

// Due is the burst's notification when its window has ended at now: its
// text (Fold), and the burst is gone; ok is false before then, or with
// nothing pending.
func (n *NotifyOn) Due(now time.Time) (text string, ok bool) {
	if n == nil || n.due.IsZero() || now.Before(n.due) {
		return "", false
	}
	text = n.fold()
	n.pending, n.due = n.pending[:0], time.Time{}
	clear(n.keys)
	return text, true
}

// fold is the text of the pending burst: one action's own text; several
// of one verdict "3 actions failed"; several verdicts "4 actions settled:
// 3 failed, 1 incomplete" (in model.SettledVerdicts' order).
func (n *NotifyOn) fold() string {
	if len(n.pending) == 1 {
		return n.pending[0].text
	}
	var by [len(model.SettledVerdicts)]int
	kinds := 0
	for _, p := range n.pending {
		if by[p.verdict] == 0 {
			kinds++
		}
		by[p.verdict]++
	}
	total := strconv.Itoa(len(n.pending)) + " actions"
	if kinds == 1 {
		return total + " " + model.SettledVerdicts[n.pending[0].verdict]
	}
	var parts []string
	for i, c := range by {
		if c > 0 {
			parts = append(parts, strconv.Itoa(c)+" "+model.SettledVerdicts[i])
		}
	}
	return total + " settled: " + strings.Join(parts, ", ")
}

// NotifyOnBytes are the bytes of a burst's notification (safe.Notification:
// the bell, OSC 9 and OSC 777 as the route says, the text one line, capped,
// no token).
func NotifyOnBytes(text string, r safe.NotifyRoute) string {
	return string(safe.Notification("aipwatch", text, r))
}

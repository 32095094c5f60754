package output

import (
	"strings"

	"aipwatch/model"
	"aipwatch/safe"
)

// NotifyText is the text of the notification sent when an action settles
// (design §10): the action and its verdict line, "act_…: verified (AIP
// result completed, …)". safe.Notification makes it one line and scrubs
// the token.
func NotifyText(a *model.Action) string { return NotifyTextOf(a.ID, a.Verdict()) }

// NotifyTextOf is NotifyText of the action id judged v (a judgement's
// verdict: the console's --notify-on reads no more than the judge did).
func NotifyTextOf(id string, v model.Verdict) string {
	return id + ": " + strings.TrimSuffix(strings.TrimPrefix(verdictLineOf(v).String(), "verdict: "), "\n")
}

// Notification is the bytes --notify and the TUI's n send a terminal when
// the action settles (safe.Notification): the bell, OSC 9, and OSC 777
// when the terminal speaks it (safe.SpeaksOSC777), wrapped for the
// multiplexer in between. Only for a terminal: the caller sends nothing to
// anything else.
func Notification(a *model.Action, r safe.NotifyRoute) string {
	return string(safe.Notification("aipwatch", NotifyText(a), r))
}

// NotificationAs is Notification naming the action name (CONTEXT/act_…
// when it has a context: the same ID on two daemons reads as two).
func NotificationAs(name string, a *model.Action, r safe.NotifyRoute) string {
	return string(safe.Notification("aipwatch", NotifyTextOf(name, a.Verdict()), r))
}

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
)

// --notify (design §10): when the action settles, the terminal rings and
// shows the verdict line as a desktop notification (output.Notification).
// The TUI sends it itself when the action settles (ui.Options.Notification,
// and n); plain and jsonl once the run is over (notifyLines).

// notification is what the TUI sends when the action settles, or nil when
// its output is no terminal (nothing is sent then; n is off), and what to
// say when it is sent and the multiplexer drops it (notifyRoute).
func notification(o *options, isTTY bool) (func(*model.Action) string, string) {
	if !isTTY {
		return nil, ""
	}
	r, hint := notifyRoute(o)
	return notifyWith(r), hint
}

// notifyWith is the notification of an action that settled, sent by r.
func notifyWith(r safe.NotifyRoute) func(*model.Action) string {
	return func(a *model.Action) string { return output.Notification(a, r) }
}

// notifyRoute is how a notification reaches the operator's terminal
// (design §10, §13): whether it reads OSC 777, and the multiplexer in
// between, whose passthrough the OSCs are wrapped for. Under tmux, whose
// allow-passthrough is asked once here (at start-up, never from the
// event loop), hint is what to say once when it is off: the wrapped OSCs
// are dropped there, the bell still rings.
func notifyRoute(o *options) (r safe.NotifyRoute, hint string) {
	r = safe.NotifyRoute{
		OSC777: safe.SpeaksOSC777(o.getenv("TERM"), o.getenv("TERM_PROGRAM")),
		Mux:    safe.DetectMultiplexer(o.getenv("TMUX"), o.getenv("STY"), o.getenv("TERM")),
	}
	// Only a tmux of this machine ($TMUX) can be asked; one at the other
	// end of an SSH session cannot, and is sent the wrapped OSCs anyway.
	if r.Mux == safe.Tmux && o.getenv("TMUX") != "" && tmuxPassthrough() == "off" {
		hint = safe.PassthroughHint
	}
	return r, hint
}

// tmuxPassthrough is tmux's allow-passthrough: "on" or "all" let a
// wrapped OSC through, "off" drops it; "" when tmux could not be asked.
// tmux before 3.3 has no such option and passes it through: "on".
var tmuxPassthrough = func() string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gv", "allow-passthrough").Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && bytes.Contains(ee.Stderr, []byte("invalid option")):
		return "on"
	case err != nil:
		return ""
	}
	return strings.TrimSpace(string(out))
}

// notifyLines sends plain's and jsonl's notification, after their last
// line, when the run ended on a settled action (a run that stopped first
// has nothing to tell). It goes to stdout when that is a terminal, else to
// stderr when that is one (jsonl piped on, the operator still at the
// terminal), else nowhere.
func notifyLines(o *options, a *model.Action, stdout, stderr io.Writer, terminal func(io.Writer) bool) {
	if !o.notify || a == nil || !a.Settled() {
		return
	}
	var w io.Writer
	switch {
	case terminal(stdout):
		w = stdout
	case terminal(stderr):
		w = stderr
	default:
		return
	}
	if sw, ok := w.(*safe.Writer); ok {
		_ = sw.Flush() // the closing lines first
	}
	// The bytes are safe.Notification's: the text in them went through
	// safe.Line; a Terminal safe.Writer would show the sequences instead
	// of sending them.
	r, hint := notifyRoute(o)
	_, _ = io.WriteString(safe.Unwrap(w), output.Notification(a, r))
	if hint != "" {
		fmt.Fprintln(stderr, "aipwatch: "+hint)
	}
}

// checkNotifyOn reads --notify-on (design §13): verdict words
// (model.ParseVerdicts), for the console only; a mistake is a usage error
// before any request.
func (o *options) checkNotifyOn(fs *pflag.FlagSet, args []string) error {
	if !fs.Changed("notify-on") {
		return nil
	}
	if _, err := model.ParseVerdicts(o.notifyOn); err != nil {
		return output.UsageError("--notify-on: " + err.Error())
	}
	if len(args) > 0 || o.replay != "" || (o.demo != "" && !isConsoleDemo(o.demo)) {
		return output.UsageError("--notify-on is the console's (aipwatch alone on a terminal); for one action: --notify")
	}
	return nil
}

// notifyOnWords are the verdicts the console notifies on: --notify-on's,
// else the context's notify_on (both checked already: checkNotifyOn,
// applyContext).
func notifyOnWords(o *options) []string {
	s := o.notifyOn
	if s == "" {
		s = o.ctx.notifyOn
	}
	if s == "" {
		return nil
	}
	words, _ := model.ParseVerdicts(s)
	return words
}

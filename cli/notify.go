package cli

import (
	"bytes"
	"context"
	"errors"
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
// and n); plain and jsonl once the run is over (aipwatch/run).

// notifyRoute is how a notification reaches the operator's terminal
// (design §10, §13): whether it reads OSC 777, and the multiplexer in
// between, whose passthrough the OSCs are wrapped for. Under tmux, whose
// allow-passthrough is asked once here (at start-up, never from the
// event loop), hint is what to say once when it is off: the wrapped OSCs
// are dropped there, the bell still rings.
func notifyRoute(getenv func(string) string) (r safe.NotifyRoute, hint string) {
	r = safe.NotifyRoute{
		OSC777: safe.SpeaksOSC777(getenv("TERM"), getenv("TERM_PROGRAM")),
		Mux:    safe.DetectMultiplexer(getenv("TMUX"), getenv("STY"), getenv("TERM")),
	}
	// Only a tmux of this machine ($TMUX) can be asked; one at the other
	// end of an SSH session cannot, and is sent the wrapped OSCs anyway.
	if r.Mux == safe.Tmux && getenv("TMUX") != "" && tmuxPassthrough() == "off" {
		hint = safe.PassthroughHint
	}
	return r, hint
}

// notifyRoute is the route to the terminal aipwatch runs on.
func (e *runEnv) notifyRoute() (safe.NotifyRoute, string) { return notifyRoute(e.getenv) }

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

// checkNotifyOn reads --notify-on (design §13): verdict words
// (model.ParseVerdicts), for the console only; a mistake is a usage error
// before any request.
func (o *follow) checkNotifyOn(fs *pflag.FlagSet, args []string) error {
	if !fs.Changed("notify-on") {
		return nil
	}
	if _, err := model.ParseVerdicts(o.f.notifyOn); err != nil {
		return output.UsageError("--notify-on: " + err.Error())
	}
	if len(args) > 0 || o.f.replay != "" || (o.w.r.demo != "" && !isConsoleDemo(o.w.r.demo)) {
		return output.UsageError("--notify-on is the console's (aipwatch alone on a terminal); for one action: --notify")
	}
	return nil
}

// notifyOnWords are the verdicts the console notifies on: --notify-on's,
// else the context's notify_on (both checked already).
func notifyOnWords(o *follow) []string {
	s := o.f.notifyOn
	if s == "" {
		s = o.w.conn.ctx.NotifyOn
	}
	if s == "" {
		return nil
	}
	words, _ := model.ParseVerdicts(s)
	return words
}

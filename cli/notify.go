package cli

import (
	"io"

	"aipwatch/model"
	"aipwatch/output"
	"aipwatch/safe"
)

// --notify (design §10): when the action settles, the terminal rings and
// shows the verdict line as a desktop notification (output.Notification).
// The TUI sends it itself when the action settles (ui.Options.Notification,
// and n); plain and jsonl once the run is over (notifyLines).

// notification is what the TUI sends when the action settles, or nil when
// its output is no terminal (nothing is sent then; n is off).
func notification(o *options, isTTY bool) func(*model.Action) string {
	if !isTTY {
		return nil
	}
	osc777 := speaksOSC777(o)
	return func(a *model.Action) string { return output.Notification(a, osc777) }
}

func speaksOSC777(o *options) bool {
	return safe.SpeaksOSC777(o.getenv("TERM"), o.getenv("TERM_PROGRAM"))
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
	w := notifyTo(stdout, stderr, terminal)
	if w == nil {
		return
	}
	if sw, ok := w.(*safe.Writer); ok {
		_ = sw.Flush() // the closing lines first
	}
	// The bytes are safe.Notification's: the text in them went through
	// safe.Line; a Terminal safe.Writer would show the sequences instead
	// of sending them.
	_, _ = io.WriteString(safe.Unwrap(w), output.Notification(a, speaksOSC777(o)))
}

// notifyTo is the first of stdout and stderr that is a terminal, or nil.
func notifyTo(stdout, stderr io.Writer, terminal func(io.Writer) bool) io.Writer {
	for _, w := range []io.Writer{stdout, stderr} {
		if terminal(w) {
			return w
		}
	}
	return nil
}

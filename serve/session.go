package serve

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
	"aipwatch/ui"
	"aipwatch/ui/console"
	"aipwatch/ui/split"
)

// One session's program (design §15): the console, or the live view of
// the action IDs the ssh command line names (several: the split view),
// built for the session's role. This file is the seam between the server
// and the views: what a session shows is decided here and nowhere else.

// Views are the settings every session's views share (keys, colour,
// version), given by the command.
type Views struct {
	Keys     ui.ConsoleKeyMap
	LiveKeys ui.KeyMap
	Version  string
	// Reconcile is the live view's R for an operator (nil: no R); a
	// watcher never has one (a reconcile read submits an action).
	Reconcile ui.ReconcileFunc
	// Notification builds what the session's terminal is sent when an
	// action n armed settles, for the session's $TERM (nil: n is off).
	Notification func(term string) func(*model.Action) string
	// PollEvery is the console's poll period, and the shared poll's age
	// limit (0: the console's default).
	PollEvery time.Duration
	// Clock, when set, is every view's clock (tests).
	Clock func() time.Time
}

// sessionInfo is who a session is.
type sessionInfo struct {
	id     int64
	person Person
	remote string
	term   string // the client's $TERM (its pty request's)
	args   []string
}

// what names what the session shows, for the log.
func (si *sessionInfo) what() string {
	if len(si.args) == 0 {
		return "console"
	}
	return strings.Join(si.args, " ")
}

// checkArgs refuses a command line that names anything but action IDs
// (at most split.MaxPanes, none twice): one line, said to the client.
func checkArgs(args []string) error {
	if len(args) > split.MaxPanes {
		return fmt.Errorf("%d action IDs: at most %d at once", len(args), split.MaxPanes)
	}
	seen := map[string]bool{}
	for _, a := range args {
		if !validActionID(a) {
			return fmt.Errorf("%q is not an action ID (act_…): this server runs no commands; ssh with no command opens the console, with act_… IDs their live views", safe.Line(a))
		}
		if seen[a] {
			return fmt.Errorf("%s is given twice", a)
		}
		seen[a] = true
	}
	return nil
}

// validActionID: act_ and then an ID's characters (safe.IDWord: letters,
// digits, '_' and '-'), at most 128 bytes: an ID goes into a URL path and
// onto the screen.
func validActionID(s string) bool {
	rest, ok := strings.CutPrefix(s, "act_")
	return ok && len(s) <= 128 && safe.IDWord(rest)
}

// The words a role's refusal says.
const (
	noCancelWatch = "no cancel: your key may watch only (an operator's key may cancel; design §15)"
	noExportServe = "no export here: e would write the file on the server; ask for it from aipwatch on your own machine"
)

// sessionViews builds the session's screen for the program shell
// (ui.Screen): the console, or the split view of the IDs given (one ID: a
// live view on the whole terminal); stop stops what it reads once the
// program has ended, and fatal is why the screen stopped on its own (the
// daemon refused the server's credentials), nil when the operator quit.
func (s *Server) sessionViews(ctx context.Context, si *sessionInfo) (screen ui.Screen, stop func(), fatal func() error) {
	v := s.views
	runner := func(id string) stream.Runner {
		return &sessionRunner{Runner: s.hub.follow(id), s: s, si: si, id: id}
	}
	reason := s.cancelReason(si)
	var notify func(*model.Action) string
	if v.Notification != nil {
		notify = v.Notification(si.term)
	}
	var reconcile ui.ReconcileFunc
	noCancel := ""
	if si.person.Role.CanCancel() {
		reconcile = s.auditedReconcile(si, v.Reconcile)
	} else {
		noCancel = noCancelWatch
	}
	if len(si.args) == 0 {
		c := console.New(ctx, console.Options{
			Daemon: s.hub.daemon(), Keys: v.Keys, LiveKeys: v.LiveKeys, Follow: runner, Judge: s.hub.judge(),
			Notification: notify, Reconcile: reconcile, CancelReason: reason,
			NoCancel: noCancel, NoExport: noExportServe, Version: v.Version, PollEvery: v.PollEvery, Clock: v.Clock,
		})
		return c, c.Close, c.Fatal
	}
	panes := make([]ui.Options, 0, len(si.args))
	for _, id := range si.args {
		panes = append(panes, ui.Options{ActionID: id, Backend: runner(id), Keys: v.LiveKeys,
			CancelReason: reason, NoCancel: noCancel, NoExport: noExportServe, Reconcile: reconcile,
			Notification: notify, Version: v.Version, Clock: v.Clock})
	}
	sp := split.New(ctx, panes)
	return sp, sp.Close, func() error { return nil }
}

// cancelReason is the reason a session's cancel carries: who sent it,
// from where (design §15).
func (s *Server) cancelReason(si *sessionInfo) string {
	return fmt.Sprintf("cancelled by %s (%s) from aipwatch serve", si.person.Name, si.person.Fingerprint)
}

// sessionRunner is an action's runner for one session: its Run is the
// shared follow; its Cancel is refused for a watcher, and for an operator
// recorded in the audit log (synced) before it is sent, with the
// operator's reason whatever the view passed, then its answer recorded.
type sessionRunner struct {
	stream.Runner
	s  *Server
	si *sessionInfo
	id string
}

func (r *sessionRunner) Cancel(ctx context.Context, _ string) stream.CancelMsg {
	p := r.si.person
	if !p.Role.CanCancel() {
		return stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "not sent: " + noCancelWatch}}
	}
	reason := r.s.cancelReason(r.si)
	entry := AuditEntry{Event: "cancel", Name: p.Name, Fingerprint: p.Fingerprint, Role: p.Role,
		Remote: r.si.remote, Session: r.si.id, Action: r.id, Reason: reason}
	if err := r.s.audit.record(entry); err != nil {
		r.s.logf("cancel of %s by %s NOT sent: the audit log failed: %v", r.id, p.Name, err)
		return stream.CancelMsg{Err: &stream.Error{Op: "cancel", Message: "not sent: the audit log could not record it: " + err.Error()}}
	}
	r.s.logf("session %d: %s (%s) cancels %s", r.si.id, p.Name, p.Fingerprint, r.id)
	reply := r.Runner.Cancel(ctx, reason)
	answer := entry
	answer.Time, answer.Event, answer.Reason = time.Time{}, "cancel_answer", ""
	accepted := reply.Accepted
	answer.Accepted = &accepted
	if reply.Err != nil {
		answer.HTTPStatus, answer.Code, answer.Error = reply.Err.HTTPStatus, safe.Line(reply.Err.Code), safe.Line(reply.Err.Error())
	}
	if err := r.s.audit.record(answer); err != nil {
		r.s.logf("the audit log failed to record the answer to the cancel of %s: %v", r.id, err)
	}
	return reply
}

// auditedReconcile is an operator's R: the read it submits is recorded
// in the audit log before it is sent.
func (s *Server) auditedReconcile(si *sessionInfo, f ui.ReconcileFunc) ui.ReconcileFunc {
	if f == nil {
		return nil
	}
	return func(a *model.Action) (string, func(context.Context) string) {
		what, read := f(a)
		if read == nil {
			return what, nil
		}
		id := a.ID
		return what, func(ctx context.Context) string {
			p := si.person
			if err := s.audit.record(AuditEntry{Event: "reconcile", Name: p.Name, Fingerprint: p.Fingerprint, Role: p.Role,
				Remote: si.remote, Session: si.id, Action: id}); err != nil {
				return "not sent: the audit log could not record it: " + err.Error()
			}
			s.logf("session %d: %s (%s) submits a reconcile read of %s", si.id, p.Name, p.Fingerprint, id)
			return read(ctx)
		}
	}
}

// activity is when a session's client last sent something (a key, a
// window change): its idle time is counted from there.
type activity struct{ at atomic.Int64 }

func newActivity() *activity {
	a := &activity{}
	a.touch()
	return a
}

func (a *activity) touch()              { a.at.Store(time.Now().UnixNano()) }
func (a *activity) idle() time.Duration { return time.Since(time.Unix(0, a.at.Load())) }

// activeReader is a session's input, each read its client's activity.
type activeReader struct {
	r io.Reader
	a *activity
}

func (ar activeReader) Read(p []byte) (int, error) {
	n, err := ar.r.Read(p)
	if n > 0 {
		ar.a.touch()
	}
	return n, err
}

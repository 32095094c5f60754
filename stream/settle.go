package stream

import (
	"context"
	"fmt"
	"time"

	"aipwatch/model"
)

// This file holds the parts of the run that depend on what the real daemon
// records (protocol §6.1, §10): the first status read, the rules for an
// action aipd has no record of (design §2 steps 1 and 6b), and the result
// read with its bound and the cancelled-without-result case (§2 step 7).

// probeTries bounds the first status read while aipd is briefly
// unreachable or answers a temporary error (about 8 s of back-off).
const probeTries = 6

// probe is the first status read (design §2 step 1), retried visibly a
// few times on a transient failure.
func (r *runner) probe(ctx context.Context) (model.ActionStatus, *Error) {
	for try := 1; ; try++ {
		st, e := r.c.status(ctx)
		if e == nil || ctx.Err() != nil || !e.Retryable || try >= probeTries {
			return st, e
		}
		wait := r.backoff(try, e.retryAfter)
		r.send(ReconnectingMsg{Attempt: try + 1, Wait: wait, Cause: cause(e)})
		if !sleep(ctx, wait) {
			return st, r.c.clean(&Error{Op: "status", Message: ctx.Err().Error()})
		}
	}
}

// saw records a chunk sequence: progress is a sequence above every one seen
// (a repeat of old chunks is no progress).
func (r *runner) saw(seq uint64, at time.Time) {
	r.seen = true
	if !r.hasSeq || seq > r.maxSeq {
		r.hasSeq, r.maxSeq, r.progress = true, seq, at
	}
}

// sawEvent records that something of the action arrived; the stall clock
// starts then if no chunk has yet.
func (r *runner) sawEvent(at time.Time) {
	r.seen = true
	if r.progress.IsZero() {
		r.progress = at
	}
}

// checkDue is when the next check of an action without a record is due, and
// whether one is due at all.
func (r *runner) checkDue() (time.Time, bool) {
	switch {
	case !r.unknown:
		return time.Time{}, false
	case !r.seen:
		return r.appearBy, true
	}
	return r.progress.Add(r.c.cfg.StallTimeout), true
}

// check applies the rules for an action aipd had no record of when it is
// due. done means the run's following part ends: endUnsettled (§2 step 6b),
// endTerminal (a result turned up), or endFatal (it never appeared, §2
// step 1).
func (r *runner) check(ctx context.Context) (connEnd, bool) {
	due, ok := r.checkDue()
	if !ok || time.Now().Before(due) {
		return connEnd{}, false
	}
	st, e := r.c.status(ctx)
	if e != nil {
		return connEnd{}, false // try again at the next check
	}
	if st.State != model.StateUnknown {
		// It has a record now (an asynchronous action was queued, a
		// synchronous one settled): the follow ends on its terminal frame.
		r.unknown = false
		r.send(StatusMsg{Status: st})
		return connEnd{}, false
	}
	if !r.seen && r.c.cfg.InFlight != nil && r.c.cfg.InFlight() {
		// Our own submission has not been answered yet (InFlight hook,
		// stream/submit.go): not "never submitted"; look again later.
		r.appearBy = time.Now().Add(r.c.cfg.AppearTimeout)
		return connEnd{}, false
	}
	if !r.seen {
		// Built from our own configuration only (a checked act_ ID, the
		// base URL without credentials): no need to cut it to one short line.
		return connEnd{kind: endFatal, err: &Error{Op: "follow", Code: codeUnknown, Message: fmt.Sprintf(
			"no event or chunk of %s within %s, and aipd at %s has no record of it: it was never submitted, "+
				"was rejected before it ran, or is a synchronous run that failed before its first chunk; "+
				"on the fleet deployment a sync run shows nothing at all until it settles: follow it again later "+
				"(check the ID, --url, and what the submitter printed)",
			r.c.cfg.ActionID, r.c.cfg.AppearTimeout, r.c.base)}}, true
	}
	// Chunks, no record, and nothing new for the stall timeout. A result
	// would have made a record, but read it once: the evidence decides.
	if res, e := r.c.result(ctx, !r.hasSeq); e == nil && res.Status != "" {
		if res.Of(r.c.cfg.ActionID) {
			r.unknown = false
			r.send(ResultMsg{Result: res})
			return connEnd{kind: endTerminal}, true
		}
	}
	r.unsettled = true
	r.send(UnsettledMsg{Reason: "no AIP result: the run ended without one", Stall: r.c.cfg.StallTimeout})
	return connEnd{kind: endUnsettled}, true
}

// checkTimer fires when the next check is due; its channel is nil while no
// check applies.
type checkTimer struct {
	r   *runner
	t   *time.Timer
	due time.Time
}

func newCheckTimer(r *runner) *checkTimer {
	ct := &checkTimer{r: r}
	ct.rearm()
	return ct
}

func (ct *checkTimer) rearm() {
	due, ok := ct.r.checkDue()
	if !ok {
		ct.stop()
		return
	}
	ct.due = due
	d := max(time.Until(due), 10*time.Millisecond)
	if ct.t == nil {
		ct.t = time.NewTimer(d)
	} else {
		ct.t.Reset(d)
	}
}

// update re-arms the timer when the next check became due earlier (the
// first chunk turns the appear deadline into the stall deadline); a later
// due time is left to the timer firing early and re-arming.
func (ct *checkTimer) update() {
	if due, ok := ct.r.checkDue(); ok && (ct.t == nil || due.Before(ct.due)) {
		ct.rearm()
	}
}

func (ct *checkTimer) c() <-chan time.Time {
	if ct.t == nil {
		return nil
	}
	return ct.t.C
}

func (ct *checkTimer) stop() {
	if ct.t != nil {
		ct.t.Stop()
		ct.t = nil
	}
}

// MaxResultReads bounds the result reads after the terminal frame (design
// §2 step 7); each one after the first is announced with a ResultWaitMsg.
const MaxResultReads = 20

// cancelledSettleAfter is how many not-ready result reads of an action whose
// state is cancelled settle it by that state: an asynchronous action
// cancelled in flight never gets a stored result (protocol §10.1).
const cancelledSettleAfter = 3

// notFoundReads is how many result reads answered action.not_found are
// retried before that answer is taken as final.
const notFoundReads = 3

// result reads the result, retrying action.result_not_ready and transient
// failures visibly and at most MaxResultReads times; action.gone /
// action.dead_lettered skip it (the final status then says expired /
// dead_lettered); a state of cancelled with no result settles by state.
func (r *runner) result(ctx context.Context) error {
	for read := 1; ; read++ {
		// With no chunk seen, its provider frames are the evidence
		// (design §14): output.events is kept.
		res, e := r.c.result(ctx, !r.hasSeq)
		if e == nil {
			if !res.Of(r.c.cfg.ActionID) {
				// Evidence about another action is no evidence (design §3).
				return r.fail(ctx, r.c.clean(&Error{Op: "result", Code: "result.foreign",
					Message: "the result names another action (" + oneLine(res.ActionID, 60) + ")"}))
			}
			r.send(ResultMsg{Result: res})
			return nil
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case e.Code == codeGone, e.Code == codeDeadLettered:
			return nil
		case e.Code == codeResultNotReady, e.Retryable:
		case e.Code == codeNotFound && read < notFoundReads:
			// A synchronous action is stored only as it settles; a result
			// read racing that store may miss it (protocol §10.7).
		default:
			return r.fail(ctx, e)
		}
		if read >= cancelledSettleAfter && e.Code == codeResultNotReady {
			if st, se := r.c.status(ctx); se == nil && st.State == model.StateCancelled {
				r.send(StatusMsg{Status: st})
				return nil
			}
		}
		if read >= MaxResultReads {
			return r.fail(ctx, r.c.clean(&Error{Op: "result", Code: e.Code,
				Message: fmt.Sprintf("no result after %d reads; last: %s", read, cause(e))}))
		}
		wait := r.backoff(read, e.retryAfter)
		r.send(ResultWaitMsg{Attempt: read + 1, Wait: wait, Code: orWord(e.Code, cause(e))})
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

func orWord(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

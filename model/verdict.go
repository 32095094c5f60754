package model

import "fmt"

// Verdict words (design §3), and the live words shown while unsettled.
const (
	VerdictVerified   = "verified"
	VerdictPartial    = "partial"
	VerdictFailed     = "failed"
	VerdictTruncated  = "truncated"
	VerdictIncomplete = "incomplete"
	VerdictCancelled  = "cancelled"
	VerdictPending    = "pending"

	LiveFollowing      = "following"
	LiveAwaitingResult = "awaiting result"
)

// Exit codes (design §3).
const (
	ExitVerified   = 0
	ExitError      = 1
	ExitUsage      = 2
	ExitPartial    = 3
	ExitFailed     = 4
	ExitTruncated  = 5
	ExitIncomplete = 6
	ExitCancelled  = 7
	ExitPending    = 8
)

// Verdict is the one outcome of an action, with its evidence.
type Verdict struct {
	// Word is the verdict; while unsettled it is a live word (following,
	// awaiting result) and Final is false, and a stopped viewer gets pending.
	Word    string
	Final   bool
	Reasons []string
	// UnconfirmedToolEffects counts tool calls whose effects the operator
	// still has to confirm: aipwatch can see that a tool ran, never what it
	// did to the world.
	UnconfirmedToolEffects int
	ExitCode               int
	Row                    int // the design §3 row that decided it (0 while unsettled)
	// Detail is why an unverified action ended, in the evidence's own
	// words (design §4: the provider's error first, else the result's
	// code and message); "" when verified, unsettled or wordless.
	// Untrusted: writers pass it through safe.Line, and --redact masks it.
	Detail string
	// DetailCode is the AIP error code Detail begins with, when Detail is
	// the result's "code: message" ("" otherwise). Reasons holds that code
	// too: a view that shows Detail may leave it out, by this field, never
	// by reading Detail (the message is the provider's or the daemon's text).
	DetailCode string
	// ToolsReason is the reason, among Reasons, that counts the tool
	// effects still to confirm ("" when there are none), for a view that
	// shows that count on a line of its own.
	ToolsReason string
}

var exitCodes = map[string]int{
	VerdictVerified: ExitVerified, VerdictPartial: ExitPartial, VerdictFailed: ExitFailed,
	VerdictTruncated: ExitTruncated, VerdictIncomplete: ExitIncomplete,
	VerdictCancelled: ExitCancelled, VerdictPending: ExitPending,
}

// Verdict decides design §3, in its order. Text never decides anything;
// the final ActionResult wins over a conflicting last chunk.
func (a *Action) Verdict() Verdict {
	a.sync()
	v := a.decide()
	v.UnconfirmedToolEffects = len(a.d.tools)
	if n := v.UnconfirmedToolEffects; n > 0 {
		v.ToolsReason = plural(n, "tool effect", "tool effects") + " to confirm"
		v.Reasons = append(v.Reasons, v.ToolsReason)
	}
	v.Detail, v.DetailCode = a.failureDetail(v)
	if code, ok := exitCodes[v.Word]; ok {
		v.ExitCode = code
	} else {
		v.ExitCode = ExitPending
	}
	return v
}

func (a *Action) decide() Verdict {
	if !a.Settled() {
		return a.liveVerdict()
	}
	final := func(row int, word string, reasons ...string) Verdict {
		return Verdict{Word: word, Final: true, Row: row, Reasons: reasons}
	}
	r := a.Result
	if r != nil && r.Status != ResultCompleted && r.Status != ResultFailed && r.Status != ResultCancelled {
		r = nil // pending_approval / requires_human is no outcome: the state decides
	}
	if r == nil { // settled without a result to read (design §3, the two state-decided cases)
		switch {
		case a.Status != nil && a.Status.State == StateCancelled:
			return final(1, VerdictCancelled, "AIP state cancelled", "no stored result (cancelled in flight)")
		case a.Status != nil && settlingState(a.Status.State):
			return final(4, VerdictFailed, "AIP state "+a.Status.State)
		}
		return final(6, VerdictIncomplete, a.Unsettled)
	}
	code := r.ErrorCode()
	switch r.Status {
	case ResultCancelled:
		return final(1, VerdictCancelled, "AIP result cancelled")
	case ResultFailed:
		switch code {
		case "connector.hermes_agent.stream_truncated":
			return final(2, VerdictTruncated, "AIP result failed", code)
		case "connector.hermes_agent.stream_incomplete":
			return final(3, VerdictIncomplete, "AIP result failed", code)
		}
		return final(4, VerdictFailed, "AIP result failed", orDefault(code, "no error code"))
	}
	// Result completed from here on. A later status read of expired or
	// dead_lettered does not undo it: that state only decides (row 4) when
	// there is no result to read.
	done := "AIP result completed"
	if agg := r.Aggregate; agg != nil {
		if agg.Truncated != nil && *agg.Truncated {
			return final(5, VerdictTruncated, done, "aggregate truncated: true")
		}
		if agg.Terminal != nil && !*agg.Terminal {
			return final(6, VerdictIncomplete, done, "aggregate terminal: false")
		}
	}
	if !a.providerTerminalSeen() {
		return final(6, VerdictIncomplete, done, "no terminal provider frame seen")
	}
	switch a.streamKind() {
	case OpChat:
		f := a.d.chat.Finish
		switch {
		case f == nil:
			return final(7, VerdictIncomplete, done, "no Chat finish chunk")
		case f.Reason == "length":
			return final(8, VerdictPartial, done, "finish_reason length")
		case f.Reason == "error":
			return final(9, VerdictFailed, done, "finish_reason error")
		case f.Error != nil:
			return final(9, VerdictFailed, done, "finish chunk carries an error object")
		case f.Hermes != nil && f.Hermes.Failed:
			return final(9, VerdictFailed, done, "hermes.failed: true")
		case f.Reason != "stop":
			// Guide §8 accepts a Chat stream only on finish_reason stop; a
			// reason the contract does not name (content_filter, tool_calls)
			// is missing stop evidence, like row 7.
			return final(7, VerdictIncomplete, done, "finish_reason "+f.Reason+" is not stop")
		}
	case OpResponses:
		rs := &a.d.resp
		switch {
		case rs.Status == "failed":
			return final(10, VerdictFailed, done, "response status failed")
		case rs.Status != "completed":
			return final(11, VerdictIncomplete, done, "response status "+orDefault(rs.Status, "unknown"))
		case rs.Mismatch:
			return final(11, VerdictIncomplete, done, "output_text.done disagrees with its deltas")
		}
	}
	if why := a.conflict(); why != "" {
		return final(12, VerdictIncomplete, done, why)
	}
	reasons := []string{done, "provider terminal frame"}
	switch a.streamKind() {
	case OpChat:
		// Name the retained finish_reason as it is: rows 8 and 9 took length
		// and error, and a reason must never claim a "stop" it did not see.
		reasons = append(reasons, "finish_reason "+a.d.chat.Finish.Reason)
	case OpResponses:
		reasons = append(reasons, "response completed")
	}
	return final(13, VerdictVerified, reasons...)
}

func (a *Action) liveVerdict() Verdict {
	v := Verdict{}
	switch {
	case a.stopped:
		v.Word = VerdictPending
		v.Reasons = []string{"viewer stopped before the action settled"}
	case a.TerminalFrameSeen:
		v.Word = LiveAwaitingResult
	default:
		v.Word = LiveFollowing
	}
	if a.Result != nil { // pending_approval / requires_human
		v.Reasons = append(v.Reasons, "AIP result "+a.Result.Status)
	}
	return v
}

// providerTerminalSeen: a retained explicit-terminal provider frame. For a
// connector without Hermes envelopes, a retained done chunk stands in.
func (a *Action) providerTerminalSeen() bool {
	if a.d.provTerm {
		return true
	}
	if a.terminalSeq != nil && a.d.op == "" && a.d.upstreamEnd == "" {
		return a.terminalChunk().Kind == KindDone
	}
	return false
}

// streamKind is Chat or Responses when the frames (or the aggregate) say so.
func (a *Action) streamKind() string {
	if a.d.op == OpChat || a.d.op == OpResponses {
		return a.d.op
	}
	if agg := a.aggregate(); agg != nil && (agg.Operation == OpChat || agg.Operation == OpResponses) {
		return agg.Operation
	}
	return ""
}

func (a *Action) aggregate() *ConnectorOutput {
	if a.Result == nil {
		return nil
	}
	return a.Result.Aggregate
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// What the turn cost (design §4): the provider's own token counts and the
// turn's timing on aipd's clock. One rule here; plain, jsonl, the TUI, the
// export and the replay read it from the Action.

// AnomalyUsage is a usage object whose figures are not sane (design §4):
// it is left out of the totals and changes no verdict (it is no conflict).
const AnomalyUsage AnomalyKind = "usage"

// maxTokens is the largest count taken as a real one: anything above is
// absurd for one turn (design §4, bad input).
const maxTokens = 1_000_000_000_000

// Usage is token usage in either naming (Chat prompt/completion, Responses
// input/output), as the provider sent it. Problem says why the figures are
// not sane ("" when they are): a negative, absurd or non-integer count, a
// value that is no number, or a total that is not input + output. Decoding
// never fails on it, so a bad usage cannot cost the frame that carries it
// (a Chat finish chunk: the verdict reads it).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	InputTokens      int
	OutputTokens     int
	TotalTokens      int
	Problem          string

	hasTotal bool
}

// In gives the input tokens whatever the naming.
func (u *Usage) In() int { return u.PromptTokens + u.InputTokens }

// Out gives the output tokens whatever the naming.
func (u *Usage) Out() int { return u.CompletionTokens + u.OutputTokens }

// Total is total_tokens when the provider sent it, else In() + Out().
func (u *Usage) Total() int {
	if u.hasTotal {
		return u.TotalTokens
	}
	return u.In() + u.Out()
}

// UnmarshalJSON reads a usage object leniently: what is not sane goes to
// Problem, never to an error (the fast decoders call it too, so both
// decodings agree).
func (u *Usage) UnmarshalJSON(b []byte) error {
	*u = parseUsage(b)
	return nil
}

func parseUsage(b []byte) Usage {
	var u Usage
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		u.Problem = "usage is not an object"
		return u
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"prompt_tokens", &u.PromptTokens}, {"completion_tokens", &u.CompletionTokens},
		{"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens},
		{"total_tokens", &u.TotalTokens},
	} {
		raw, ok := obj[f.name]
		if !ok || string(raw) == "null" {
			continue
		}
		n, why := tokenCount(raw)
		if why != "" && u.Problem == "" {
			u.Problem = fmt.Sprintf("%s %s", f.name, why)
		}
		*f.dst = n
		if f.name == "total_tokens" {
			u.hasTotal = true
		}
	}
	if u.Problem == "" && u.hasTotal && u.TotalTokens != u.In()+u.Out() {
		u.Problem = fmt.Sprintf("total_tokens %d is not input %d + output %d", u.TotalTokens, u.In(), u.Out())
	}
	return u
}

// tokenCount reads one count: a JSON number with an integer value from 0
// to maxTokens (212.0 is 212; 1e3 is 1000). why says what is wrong.
func tokenCount(raw json.RawMessage) (int, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, "is not a number"
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return checkCount(float64(n), n)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil && !math.IsInf(f, 0):
		return 0, "is not a number"
	case f != math.Trunc(f):
		return 0, "is not an integer (" + string(raw) + ")"
	}
	return checkCount(f, int64(f))
}

func checkCount(f float64, n int64) (int, string) {
	switch {
	case f < 0:
		return 0, "is negative"
	case f > maxTokens:
		return 0, "is absurd (over 10^12)"
	}
	return int(n), ""
}

// TurnUsage is what the provider said the turn cost (the jsonl verdict
// object's "usage", fixed keys). Reported is false, with zeros, when it
// sent no usage or the one it sent was not sane.
type TurnUsage struct {
	InputTokens  int  `json:"input_tokens"`
	OutputTokens int  `json:"output_tokens"`
	TotalTokens  int  `json:"total_tokens"`
	Reported     bool `json:"reported"`
}

// Counted reports whether the usage reported counts anything: a provider
// that reports 0 in, 0 out and 0 in all did not count the turn (a turn
// that streamed has at least its prompt), so those zeros are not shown as
// a measure.
func (u TurnUsage) Counted() bool {
	return u.Reported && (u.InputTokens != 0 || u.OutputTokens != 0 || u.TotalTokens != 0)
}

// TurnTiming is the turn's timing on aipd's clock (the verdict object's
// "timing", fixed keys): first token from the first chunk, and the first
// chunk to the last. The Has fields say whether the times were known (a
// chunk whose aip.stream.chunk event was not read has none); an unknown
// figure is 0 in the object.
type TurnTiming struct {
	FirstTokenMS  int64 `json:"first_token_ms"`
	DurationMS    int64 `json:"duration_ms"`
	HasFirstToken bool  `json:"-"`
	HasDuration   bool  `json:"-"`
	// OneInstant: more than one chunk had a time and all had the same
	// one, so nothing was measured (a daemon that stamps a whole turn at
	// once): no figure is given, and the cost line says so.
	OneInstant bool `json:"-"`
}

// noteUsage retains a usage object a frame carried (nil: none) as the
// latest, and flags it when its figures are not sane.
func (d *derived) noteUsage(dst **Usage, u *Usage, seq uint64) {
	if u == nil {
		return
	}
	*dst = u
	if u.Problem != "" {
		d.anomaly(AnomalyUsage, seq, "chunk %d: usage left out of the totals: %s", seq, u.Problem)
	}
}

// noteFirstToken records the chunk of the first assistant text or tool
// call: the lowest sequence, since a late chunk may come after.
func (d *derived) noteFirstToken(seq uint64) {
	if !d.hasFirstTok || seq < d.firstTok {
		d.firstTok, d.hasFirstTok = seq, true
	}
}

// Usage is what the provider said the turn cost: the last Chat chunk that
// carried usage, or the terminal Responses frame's (response.completed).
func (a *Action) Usage() TurnUsage {
	a.sync()
	u := a.d.chat.Usage
	if u == nil {
		u = a.d.resp.Usage
	}
	if u == nil || u.Problem != "" {
		return TurnUsage{}
	}
	return TurnUsage{InputTokens: u.In(), OutputTokens: u.Out(), TotalTokens: u.Total(), Reported: true}
}

// Timing measures the turn on aipd's times (the occurred_at of each
// chunk's aip.stream.chunk event), so a review or a replay of a finished
// action gives the live run's figures: first token is the first chunk with
// assistant text or a tool call, less the first chunk; duration the last
// chunk less the first. Times that go backwards give 0, never a negative.
func (a *Action) Timing() TurnTiming {
	a.sync()
	var t TurnTiming
	if !a.occFirst.set || a.occAbsurd {
		return t // no times, or none to believe (an anomaly says so)
	}
	if a.occFirstSeq != a.occLastSeq && a.occFirst == a.occLast {
		t.OneInstant = true
		return t
	}
	t.DurationMS, t.HasDuration = msBetween(a.occFirst, a.occLast), true
	if a.d.hasFirstTok {
		if tok, ok := a.occurred.get(a.d.firstTok); ok {
			t.FirstTokenMS, t.HasFirstToken = msBetween(a.occFirst, tok), true
		}
	}
	return t
}

// noteOccurred keeps the times of the lowest and highest sequences that
// have one (the first and last chunk), so Timing costs no scan.
func (a *Action) noteOccurred(seq uint64, t instant) {
	if !a.occFirst.set || seq < a.occFirstSeq {
		a.occFirst, a.occFirstSeq = t, seq
	}
	if !a.occLast.set || seq > a.occLastSeq {
		a.occLast, a.occLastSeq = t, seq
	}
	if !a.occAbsurd && absurdSpan(a.occFirst.time(), a.occLast.time()) {
		a.occAbsurd = true
		a.addIngestAnomaly(Anomaly{Kind: AnomalyTimes, Sequence: seq, Detail: "chunk " + strconv.FormatUint(seq, 10) +
			"'s time is more than " + maxTurnSpanText + " from chunk " + strconv.FormatUint(a.occFirstSeq, 10) +
			"'s (aipd's occurred_at): no duration or first-token time is given"})
	}
}

func msBetween(from, to instant) int64 {
	d := to.time().Sub(from.time()).Milliseconds()
	return max(d, 0)
}

// OutputRate is output tokens per second from the first token to the last
// chunk, on aipd's times. With usage reported it divides the provider's
// output count; before that (a Chat stream sends usage only in its last
// chunk, Responses in response.completed) it estimates the count from the
// assistant and reasoning text so far at 4 bytes a token, the usual rule
// for English with OpenAI's tokenisers: a live figure that moves with the
// stream, not a bill, so estimated says so. ok is false when there is no
// time to divide by yet.
func (a *Action) OutputRate() (perSec float64, estimated, ok bool) {
	tm := a.Timing()
	if !tm.HasFirstToken || tm.DurationMS <= tm.FirstTokenMS {
		return 0, false, false
	}
	secs := float64(tm.DurationMS-tm.FirstTokenMS) / 1000
	if u := a.Usage(); u.Reported {
		return float64(u.OutputTokens) / secs, false, true
	}
	return float64(a.d.textBytes) / bytesPerToken / secs, true, true
}

// bytesPerToken is the estimate of OutputRate before usage is reported.
const bytesPerToken = 4

package model

import (
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// timedEvent is the aip.stream.chunk event that gives chunk seq aipd's
// time at.
func timedEvent(action string, seq uint64, at time.Time) Event {
	return Event{ID: "evt_" + strconv.FormatUint(seq, 10), Kind: chunkEventKind, OccurredAt: at.Format(time.RFC3339Nano),
		ActionID: action, Data: []byte(fmt.Sprintf(`{"action_id":%q,"sequence":%d,"kind":"data"}`, action, seq))}
}

// A Chat turn with tools whose chunks come in any order, some with
// aipd's times (in any order too, some far off), some without, settled or
// not, read at any now: every tool's bar lies inside the axis, starts
// before it ends, and the bars are in the order of their starts; every
// text sample and mark is on the axis.
func TestPropertyTimelineBarsInsideTheAxis(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		id := "act_tl"
		var frames []any
		frames = append(frames, role())
		tools := rapid.IntRange(0, 5).Draw(rt, "tools")
		open := map[int]bool{}
		for i := range tools {
			frames = append(frames, content(rapid.StringN(0, 8, -1).Draw(rt, "text")))
			frames = append(frames, progress(obj{"tool": "t" + strconv.Itoa(i), "toolCallId": "call_" + strconv.Itoa(i), "status": "running", "label": "x"}))
			open[i] = true
			if rapid.Bool().Draw(rt, "interleave") && i > 0 && open[i-1] {
				frames = append(frames, progress(obj{"tool": "t" + strconv.Itoa(i-1), "toolCallId": "call_" + strconv.Itoa(i-1), "status": "completed"}))
				open[i-1] = false
			}
		}
		for i := range tools {
			if open[i] && rapid.Bool().Draw(rt, "complete") {
				frames = append(frames, progress(obj{"tool": "t" + strconv.Itoa(i), "toolCallId": "call_" + strconv.Itoa(i),
					"status": rapid.SampledFrom([]string{"completed", "failed", "odd"}).Draw(rt, "status")}))
			}
		}
		settle := rapid.Bool().Draw(rt, "settle")
		if settle {
			frames = append(frames, finish("stop", nil), "[DONE]")
		}
		chunks := chatSeq(id, frames...)
		base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		a := NewAction(id)
		order := rapid.Permutation(chunks).Draw(rt, "order")
		for _, c := range order {
			recv := base.Add(time.Duration(rapid.IntRange(0, 60_000).Draw(rt, "recv_ms")) * time.Millisecond)
			a.IngestChunk(c, recv)
			if rapid.IntRange(0, 3).Draw(rt, "timed") > 0 {
				off := time.Duration(rapid.IntRange(-5_000, 60_000).Draw(rt, "occ_ms")) * time.Millisecond
				if rapid.IntRange(0, 20).Draw(rt, "far") == 0 {
					off = 400 * 24 * time.Hour // absurd: more than MaxTurnSpan away
				}
				a.IngestEvent(timedEvent(id, c.Sequence, base.Add(off)))
			}
		}
		if rapid.Bool().Draw(rt, "reconnect") {
			at := base.Add(time.Duration(rapid.IntRange(-10_000, 90_000).Draw(rt, "loss_ms")) * time.Millisecond)
			a.Log(Happening{At: at, Kind: HapReconnecting, Attempt: 2})
			a.Log(Happening{At: at.Add(time.Second), Kind: HapResumed, Attempt: 2})
		}
		if rapid.Bool().Draw(rt, "cancel") {
			a.RequestCancel("r", base.Add(time.Duration(rapid.IntRange(0, 70_000).Draw(rt, "cancel_ms"))*time.Millisecond))
		}
		if settle {
			a.SetResult(completedResult(id, OpChat))
		}
		now := base.Add(time.Duration(rapid.IntRange(-10_000, 120_000).Draw(rt, "now_ms")) * time.Millisecond)
		tl := a.TurnTimeline(now)
		if !tl.Known {
			if len(tl.Tools)+len(tl.Text)+len(tl.Marks) > 0 {
				rt.Fatalf("an unknown axis with things on it: %+v", tl)
			}
			return
		}
		if tl.To.Before(tl.From) {
			rt.Fatalf("the axis ends %v before it starts %v", tl.To, tl.From)
		}
		on := func(what string, at time.Time) {
			if at.Before(tl.From) || at.After(tl.To) {
				rt.Fatalf("%s at %v outside the axis %v–%v", what, at, tl.From, tl.To)
			}
		}
		for i, s := range tl.Tools {
			on("tool "+s.ID+" start", s.Start)
			on("tool "+s.ID+" end", s.End)
			if s.End.Before(s.Start) {
				rt.Fatalf("tool %s ends before it starts", s.ID)
			}
			if i > 0 && s.Start.Before(tl.Tools[i-1].Start) {
				rt.Fatalf("bar %d (%s) starts before bar %d", i, s.ID, i-1)
			}
			// Its columns, at any width, are inside the chart and in order.
			for _, cells := range []int{1, 7, 67, 147} {
				sc := Scale{From: tl.From, To: tl.To, Cells: cells}
				c0, c1 := sc.Col(s.Start), sc.Col(s.End)
				if c0 < 0 || c1 >= cells || c1 < c0 {
					rt.Fatalf("tool %s at %d cells: columns %d–%d", s.ID, cells, c0, c1)
				}
				if i > 0 && c0 < sc.Col(tl.Tools[i-1].Start) {
					rt.Fatalf("bar %d's column %d is left of bar %d's", i, c0, i-1)
				}
			}
		}
		if len(tl.Tools) != len(a.Tools()) {
			rt.Fatalf("%d bars for %d tools", len(tl.Tools), len(a.Tools()))
		}
		for _, x := range tl.Text {
			on("text", x.At)
		}
		for _, m := range tl.Marks {
			on("mark", m.At)
		}
		if tl.HasFirstToken {
			on("first token", tl.FirstToken)
		}
		for _, r := range tl.RateCells(Scale{From: tl.From, To: tl.To, Cells: 60}) {
			if r < 0 || math.IsInf(r, 0) {
				rt.Fatalf("rate %v", r)
			}
		}
	})
}

// The timeline of a chat turn with two tools, on aipd's times: the axis
// from started_at to completed_at, the bars where the tools ran, the first
// token where it came.
func TestTurnTimelineChatTwoTools(t *testing.T) {
	t.Parallel()
	id := "act_tl2"
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	chunks := chatSeq(id, role(), content("hello"),
		progress(obj{"tool": "terminal", "toolCallId": "c1", "status": "running"}),
		progress(obj{"tool": "terminal", "toolCallId": "c1", "status": "completed"}),
		progress(obj{"tool": "web", "toolCallId": "c2", "status": "running"}),
		content(" more text"), finish("stop", nil), "[DONE]")
	times := []time.Duration{1, 2, 3, 6, 7, 8, 9, 9}
	a := NewAction(id)
	for i, c := range chunks {
		a.IngestChunk(c, base.Add(time.Hour)) // received much later: aipd's times win
		a.IngestEvent(timedEvent(id, c.Sequence, base.Add(times[i]*time.Second)))
	}
	a.SetStatus(ActionStatus{ActionID: id, State: StateCompleted, StartedAt: base.Format(time.RFC3339Nano),
		CompletedAt: base.Add(10 * time.Second).Format(time.RFC3339Nano)})
	a.SetResult(completedResult(id, OpChat))
	tl := a.TurnTimeline(base.Add(time.Hour))
	if !tl.From.Equal(base) || !tl.To.Equal(base.Add(10*time.Second)) || tl.Live {
		t.Fatalf("axis %v–%v live %v", tl.From, tl.To, tl.Live)
	}
	if !tl.HasFirstToken || !tl.FirstToken.Equal(base.Add(2*time.Second)) || tl.FirstTokenAfter != time.Second {
		t.Errorf("first token %v (%v after)", tl.FirstToken, tl.FirstTokenAfter)
	}
	if len(tl.Tools) != 2 {
		t.Fatalf("tools %+v", tl.Tools)
	}
	if s := tl.Tools[0]; s.Name != "terminal" || s.Outcome != ToolOutcomeCompleted || s.Duration() != 3*time.Second {
		t.Errorf("terminal %+v", s)
	}
	if s := tl.Tools[1]; s.Name != "web" || s.Outcome != ToolOutcomeUnfinished || !s.End.Equal(tl.To) {
		t.Errorf("web %+v", s)
	}
	if len(tl.Text) != 2 || tl.Text[0].Bytes != 5 || !tl.Text[1].Timed {
		t.Errorf("text %+v", tl.Text)
	}
	if tl.Verdict != VerdictVerified || !tl.Final {
		t.Errorf("verdict %q final %v", tl.Verdict, tl.Final)
	}
}

// Each mark kind has its own word for a legend and its own sentence, and
// a refused cancel reads otherwise than an accepted one: the Markdown
// chart, the HTML report and the terminal's chart all read these.
func TestMarkWordsOnePerKind(t *testing.T) {
	marks := []TimeMark{
		{Kind: MarkReconnect}, {Kind: MarkResume}, {Kind: MarkRestart}, {Kind: MarkCancelRequest},
		{Kind: MarkCancelReply, Accepted: true}, {Kind: MarkCancelReply}, {Kind: MarkCancelled},
	}
	words, sentences := map[string]bool{}, map[string]bool{}
	for _, m := range marks {
		w, s := m.Word(), m.Sentence()
		if w == "" || s == "" || words[w] || sentences[s] {
			t.Errorf("mark %+v: word %q, sentence %q: empty or shared with another kind", m, w, s)
		}
		words[w], sentences[s] = true, true
	}
	if got := (TimeMark{Kind: MarkRestart}).Word(); got != "restarted" {
		t.Errorf("a restart's word = %q, want restarted", got)
	}
	for k, conn := range map[MarkKind]bool{MarkReconnect: true, MarkResume: true, MarkRestart: true,
		MarkCancelRequest: false, MarkCancelReply: false, MarkCancelled: false} {
		if k.Connection() != conn {
			t.Errorf("MarkKind(%d).Connection() = %v, want %v", k, !conn, conn)
		}
	}
}

// A bar's columns are in order whatever the span (its end before its
// start: one cell at the start), and inside the chart.
func TestToolSpanColumnsInOrder(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sc := Scale{From: base, To: base.Add(10 * time.Second), Cells: 20}
	c0, c1 := ToolSpan{Start: base.Add(6 * time.Second), End: base.Add(2 * time.Second)}.Columns(sc)
	if c0 != 12 || c1 != 12 {
		t.Fatalf("columns %d–%d, want 12–12", c0, c1)
	}
}

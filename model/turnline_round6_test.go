package model

import (
	"errors"
	"math"
	"testing"
	"time"
)

// toolTurn is a chat turn whose one tool started and never ended, its
// chunks received a second apart from base (no aipd times).
func toolTurn(id string, base time.Time) *Action {
	a := NewAction(id)
	chunks := chatSeq(id, role(), content("hello"),
		progress(obj{"tool": "t0", "toolCallId": "call_0", "status": "running", "label": "x"}), content(" world"))
	for i, c := range chunks {
		a.IngestChunk(c, base.Add(time.Duration(i)*time.Second))
	}
	return a
}

// design §16: the marks are drawn in the order they happened, whatever
// order aipwatch learnt them in (a cancel requested before a reconnect).
func TestTimelineMarksInTimeOrder(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := toolTurn("act_m", base)
	a.Log(Happening{At: base.Add(2 * time.Second), Kind: HapReconnecting, Attempt: 2})
	a.Log(Happening{At: base.Add(2500 * time.Millisecond), Kind: HapResumed, Attempt: 2})
	a.RequestCancel("r", base.Add(time.Second))
	tl := a.TurnTimeline(base.Add(3 * time.Second))
	if len(tl.Marks) != 3 {
		t.Fatalf("marks %+v", tl.Marks)
	}
	for i := 1; i < len(tl.Marks); i++ {
		if tl.Marks[i].At.Before(tl.Marks[i-1].At) {
			t.Fatalf("mark %d before mark %d: %+v", i, i-1, tl.Marks)
		}
	}
}

// Scale.Col clamps a time before the window to the first column and one
// after it to the last (a bar cut by the zoom starts at the edge).
func TestScaleColClampedToTheChart(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sc := Scale{From: base, To: base.Add(10 * time.Second), Cells: 10}
	for at, want := range map[time.Duration]int{-time.Hour: 0, -time.Second: 0, 0: 0, 5 * time.Second: 5, 10 * time.Second: 9, time.Hour: 9} {
		if got := sc.Col(base.Add(at)); got != want {
			t.Errorf("Col(%v) = %d, want %d", at, got, want)
		}
	}
}

// A tool still running when the viewer stopped is unfinished, not running
// (nothing more of it will be seen); while the run goes on it is running.
func TestTimelineToolOfAStoppedRunIsUnfinished(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := toolTurn("act_s", base)
	if tl := a.TurnTimeline(base.Add(5 * time.Second)); len(tl.Tools) != 1 || tl.Tools[0].Outcome != ToolOutcomeRunning {
		t.Fatalf("running: %+v", tl.Tools)
	}
	a.Stop()
	if tl := a.TurnTimeline(base.Add(5 * time.Second)); len(tl.Tools) != 1 || tl.Tools[0].Outcome != ToolOutcomeUnfinished {
		t.Fatalf("stopped: %+v", tl.Tools)
	}
}

// design §16: a run that stopped on an error is no longer live: its axis
// ends at what came, not at now; a live one ends at now, unless now is
// absurdly far (more than MaxTurnSpan, a week) from its start.
func TestTimelineAxisEndsAtNowOnlyWhileLive(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	last := base.Add(3 * time.Second) // toolTurn's fourth chunk
	now := base.Add(time.Minute)
	a := toolTurn("act_l", base)
	if tl := a.TurnTimeline(now); !tl.Live || !tl.To.Equal(now) {
		t.Fatalf("live: to %v, live %v", tl.To, tl.Live)
	}
	if tl := a.TurnTimeline(base.Add(30 * 24 * time.Hour)); !tl.To.Equal(last) {
		t.Fatalf("a now a month away moved the axis to %v", tl.To)
	}
	a.ConnFailed(errors.New("status: connection refused"))
	if tl := a.TurnTimeline(now); tl.Live || !tl.To.Equal(last) {
		t.Fatalf("failed run: to %v, live %v", tl.To, tl.Live)
	}
}

// The token rate is measured over at least a second: chunks of 100 tokens
// every half second read 200 tokens a second in every column of a tenth
// of a second between them, not a spike and a zero; a column before the
// first timed chunk or after the last has no rate.
func TestRateCellsOverAtLeastASecond(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tl := TurnTimeline{From: base, To: base.Add(5 * time.Second), Known: true, TokensPerByte: 1}
	for ms := 1000; ms <= 4000; ms += 500 {
		tl.Text = append(tl.Text, TextSample{At: base.Add(time.Duration(ms) * time.Millisecond), Bytes: 100, Timed: true})
	}
	rates := tl.RateCells(Scale{From: tl.From, To: tl.To, Cells: 50})
	for i, r := range rates {
		switch {
		case i < 9 || i > 40:
			if !math.IsNaN(r) {
				t.Errorf("column %d (outside the timed chunks): rate %v", i, r)
			}
		case i >= 15 && i <= 35:
			if r < 150 || r > 250 {
				t.Errorf("column %d: rate %v, want about 200", i, r)
			}
		}
	}
}

// design §16: the text samples are in time order (the rate's sums depend
// on it) when the chunks' times run against their sequence.
func TestTimelineTextInTimeOrder(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	id := "act_o"
	a := NewAction(id)
	chunks := chatSeq(id, role(), content("a"), content("b"), content("c"), content("d"))
	for i, c := range chunks {
		a.IngestChunk(c, base.Add(time.Duration(len(chunks)-i)*time.Second)) // later sequence, earlier time
	}
	tl := a.TurnTimeline(base.Add(10 * time.Second))
	if len(tl.Text) != 4 {
		t.Fatalf("text samples %+v", tl.Text)
	}
	for i := 1; i < len(tl.Text); i++ {
		if tl.Text[i].At.Before(tl.Text[i-1].At) {
			t.Fatalf("sample %d before sample %d: %+v", i, i-1, tl.Text)
		}
	}
}

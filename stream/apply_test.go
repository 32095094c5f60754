package stream

import (
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// A stream that verifies: text, a stop finish, [DONE], and a completed result.
var (
	finishStop = chunkObj(1, "data", `{"hermes_sse":{"data":{"choices":[{"delta":{},"finish_reason":"stop"}]},"raw_data":"{}","terminal":false}}`)
	doneAt2    = chunkObj(2, "done", `{"hermes_sse":{"data":"[DONE]","raw_data":"[DONE]","terminal":true}}`)
	verifying  = chunkSSE(chunk0, 0) + chunkSSE(finishStop, 1) + chunkSSE(doneAt2, 2) +
		cursorSSE("aev_cursor_5_2") + terminalSSE("aev_cursor_5_2")
)

// Contract §3: an undecodable chunk is an anomaly and a conflict. A live run
// whose stream holds one (a chunk frame whose chunk does not decode, or a
// frame named aip.stream.chunk without a chunk) is never verified; an
// undecodable frame of another kind is only logged.
func TestUndecodableChunkFrameIsConflict(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		bad  string
		word string
	}{
		"none":                        {"", model.VerdictVerified},
		"chunk that does not decode":  {"event: aip.stream.chunk\ndata: {\"chunk\":{\"sequence\":-1}}\nid: chunk:9\n\n", model.VerdictIncomplete},
		"unnamed chunk frame":         {"data: {\"chunk\":{\"sequence\":\"x\"}}\n\n", model.VerdictIncomplete},
		"chunk frame without a chunk": {"event: aip.stream.chunk\ndata: {\"something\":1}\n\n", model.VerdictIncomplete},
		"chunk frame, not an object":  {"event: aip.stream.chunk\ndata: [1,2]\n\n", model.VerdictIncomplete},
		"undecodable event":           {"event: aip.action.updated\ndata: {\"event\":{\"id\":5}}\n\n", model.VerdictVerified},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			body := verifying
			if tc.bad != "" {
				body = strings.Replace(verifying, "event: aip.stream.cursor", tc.bad+"event: aip.stream.cursor", 1)
			}
			f.follow = stream(body)
			msgs, err := runWith(t, testConfig(f))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(find[BadFrameMsg](msgs)); (n > 0) != (tc.bad != "") {
				t.Fatalf("%d bad frames: %s", n, summary(msgs))
			}
			a := fold(msgs)
			v := a.Verdict()
			if v.Word != tc.word {
				t.Fatalf("verdict %+v, want %s", v, tc.word)
			}
			lost := false
			for _, an := range a.Anomalies() {
				lost = lost || an.Kind == model.AnomalyUndecodable
			}
			if want := tc.word != model.VerdictVerified; lost != want || want && v.Row != 12 {
				t.Fatalf("undecodable anomaly %v row %d: %+v", lost, v.Row, a.Anomalies())
			}
			// A replay takes the frame's route: the same verdict.
			b := model.NewAction("act_1")
			for _, text := range strings.Split(body, "\n\n") {
				if fr, ok := parseFrame([]byte(text), time.Time{}); ok {
					if m, ok := FrameMsg(fr); ok {
						Apply(b, m)
					}
				}
			}
			b.SetResult(*a.Result)
			if w := b.Verdict(); w.Word != v.Word || w.Row != v.Row {
				t.Fatalf("replayed verdict %s row %d, live %s row %d", w.Word, w.Row, v.Word, v.Row)
			}
		})
	}
}

// A page's undecodable chunk items reach the model as a conflict; its
// undecodable events do not.
func TestApplyBadFrameChunks(t *testing.T) {
	for _, tc := range []struct {
		m    BadFrameMsg
		lost int
	}{
		{BadFrameMsg{Reason: "2 undecodable item(s) in an events page", Chunks: 2}, 2},
		{BadFrameMsg{Reason: "1 undecodable item(s) in an events page"}, 0},
		{BadFrameMsg{Event: "aip.stream.chunk", Reason: "whatever"}, 1},
		{BadFrameMsg{Reason: "undecodable chunk: bad"}, 1},
		{BadFrameMsg{Event: "aip.stream.cursor", Reason: "cursor frame without a usable cursor"}, 0},
	} {
		if got := tc.m.LostChunks(); got != tc.lost {
			t.Fatalf("%+v: LostChunks %d, want %d", tc.m, got, tc.lost)
		}
		a := model.NewAction("act_1")
		if !Apply(a, tc.m) {
			t.Fatalf("%+v: Apply reported no change", tc.m)
		}
		n := 0
		for _, an := range a.Anomalies() {
			if an.Kind == model.AnomalyUndecodable {
				n++
			}
		}
		if (n > 0) != (tc.lost > 0) || len(a.Timeline()) != 1 {
			t.Fatalf("%+v: %d anomalies, timeline %v", tc.m, n, a.Timeline())
		}
	}
}

// The terminal frame's own cursor counts: when aipd advances it there, the
// drain reads pages from it, and the model and the resume command hold it;
// a terminal frame without a usable cursor keeps the last one.
func TestTerminalFrameCursor(t *testing.T) {
	for _, tc := range []struct {
		name, terminal, want string
	}{
		{"advanced", terminalSSE("aev_cursor_6_1"), "aev_cursor_6_1"},
		{"none", "event: aip.stream.terminal\ndata: {\"terminal\":true,\"action_id\":\"act_1\"}\nid: chunk:1\n\n", "aev_cursor_5_1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.follow = stream(partA + chunkSSE(chunk1, 1) + cursorSSE("aev_cursor_5_1") + tc.terminal)
			msgs, err := runWith(t, testConfig(f))
			if err != nil {
				t.Fatal(err)
			}
			tm := find[TerminalMsg](msgs)
			if len(tm) != 1 || tm[0].Cursor != tc.want {
				t.Fatalf("terminal messages %+v, want cursor %s", tm, tc.want)
			}
			if a := fold(msgs); a.Cursor != tc.want {
				t.Fatalf("model cursor %q", a.Cursor)
			}
			drained := false
			for _, r := range f.requests() {
				if r.Query.Get("follow") == "" && r.Query.Get("cursor") != "" && r.Path == "/aip/v1/actions/act_1/events" {
					drained = true
					if r.Query.Get("cursor") != tc.want {
						t.Fatalf("drain page from %q, want %q", r.Query.Get("cursor"), tc.want)
					}
				}
			}
			if !drained {
				t.Fatal("no drain page read")
			}
		})
	}
}

// Apply sets the connection's state (model.Connection) in the switch that
// logs the timeline; a message without a time takes ApplyAt's now, and the
// connection's own times are the consumer's clock even for a replayed
// message (its countdown runs on the clock it is replayed on).
func TestApplyConnection(t *testing.T) {
	a := model.NewAction("act_1")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := now.Add(-time.Hour) // a recording's time
	step := func(m Msg, d time.Duration) model.Connection {
		t.Helper()
		// An empty batch reports no change (ApplyBatch: it held nothing).
		if b, ok := m.(BatchMsg); !ApplyAt(a, m, now.Add(d)) && !(ok && len(b.Chunks) == 0) {
			t.Fatalf("%T: no change", m)
		}
		return a.Connection()
	}
	if c := a.Connection(); c.Phase != model.ConnConnecting || c.Answered {
		t.Fatalf("new: %+v", c)
	}
	if c := step(ModeMsg{Review: true}, 0); !c.Answered || !c.Review {
		t.Fatalf("mode: %+v", c)
	}
	if c := step(ConnectedMsg{Attempt: 1, At: rec}, time.Second); c.Phase != model.ConnLive || c.Attempt != 1 || c.Resumes != 0 ||
		!c.Since.Equal(now.Add(time.Second)) || !c.LastLive.Equal(c.Since) {
		t.Fatalf("connected: %+v", c)
	}
	// A batch with an older time of its own (a replay's): its data times
	// are its own, its sign of life is the consumer's clock.
	if c := step(BatchMsg{At: rec}, 2*time.Second); !c.FirstData.Equal(rec) || !c.LastData.Equal(rec) || !c.LastLive.Equal(now.Add(2*time.Second)) {
		t.Fatalf("an older batch: %+v", c)
	}
	if c := step(LivenessMsg{At: now.Add(5 * time.Second)}, 5*time.Second); !c.FirstData.Equal(rec) || !c.LastLive.Equal(now.Add(5*time.Second)) {
		t.Fatalf("liveness: %+v", c)
	}
	if c := step(ReconnectingMsg{Attempt: 2, Wait: 3 * time.Second, Cause: "reset"}, 6*time.Second); c.Phase != model.ConnReconnecting ||
		c.Attempt != 2 || c.Wait != 3*time.Second || c.Cause != "reset" || !c.Since.Equal(now.Add(6*time.Second)) {
		t.Fatalf("reconnecting: %+v", c)
	}
	if c := step(ConnectedMsg{Attempt: 2}, 7*time.Second); c.Phase != model.ConnLive || c.Resumes != 1 {
		t.Fatalf("reconnected: %+v", c)
	}
	if c := step(BatchMsg{}, 8*time.Second); !c.LastData.Equal(now.Add(8 * time.Second)) {
		t.Fatalf("a batch without a time: %+v", c)
	}
	if c := step(TerminalMsg{Cursor: "c"}, 9*time.Second); c.Phase != model.ConnDraining {
		t.Fatalf("terminal: %+v", c)
	}
	if tl := a.Timeline(); !tl[len(tl)-1].At.Equal(now.Add(9 * time.Second)) {
		t.Fatalf("the terminal entry is stamped %v, want ApplyAt's now", tl[len(tl)-1].At)
	}
	e := &Error{Op: "follow", Code: "x"}
	if c := step(ErrorMsg{Err: e}, 0); c.Phase != model.ConnOver || c.Err != e || c.Done {
		t.Fatalf("error: %+v", c)
	}
	if c := step(DoneMsg{}, 0); c.Phase != model.ConnOver || !c.Done || c.Err != e {
		t.Fatalf("done: %+v", c)
	}
	b := model.NewAction("act_1")
	Apply(b, ErrorMsg{})
	if c := b.Connection(); c.Err != nil || c.Phase != model.ConnOver {
		t.Fatalf("an ErrorMsg without an error: %+v", c)
	}
}

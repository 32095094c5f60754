package stream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
	"aipwatch/sim"
)

// simRun runs the client against a fresh simulator and returns the folded
// model, the messages and the simulator's request log.
func simRun(t *testing.T, scenario string, k sim.Knobs, tune func(*Config)) (*model.Action, []Msg, []sim.RequestLog) {
	t.Helper()
	s, err := sim.New(scenario, k)
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := Config{
		BaseURL:       url,
		Token:         k.Token,
		ActionID:      s.ActionID(),
		IdleTimeout:   2 * time.Second,
		BackoffMin:    time.Millisecond,
		BackoffMax:    20 * time.Millisecond,
		BatchInterval: 5 * time.Millisecond,
	}
	if tune != nil {
		tune(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A budget, not a bound under test: a run takes well under a second,
	// but byte-by-byte delivery under -race on 2 loaded cores (load 23)
	// went past 20 s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &recorder{}
	if err := c.Run(ctx, rec); err != nil {
		t.Fatalf("%s %+v: %v\n%s", scenario, k, err, summary(rec.all()))
	}
	a := model.NewAction(s.ActionID())
	for _, m := range rec.all() {
		Apply(a, m)
	}
	return a, rec.all(), s.Requests()
}

// recordJSON is the verdict record to compare runs of one scenario with,
// less its timing: that is aipd's clock (design §4), and each run of the
// script, at its speed or all at once when Finished, has its own.
func recordJSON(a *model.Action) string {
	rec := a.Record()
	rec.Timing = model.TurnTiming{}
	b, _ := json.Marshal(rec)
	return string(b)
}

// TestSimFaults: whatever the simulator does to the connection, the folded
// model ends with the same verdict record as an undisturbed run.
func TestSimFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("simulator runs")
	}
	t.Parallel()
	const speed = 40 // fast, but slow enough that the action is live when we attach
	base := sim.Knobs{Speed: speed, PollInterval: 5 * time.Millisecond, KeepaliveInterval: 50 * time.Millisecond, Token: "sim-token"}
	faults := map[string]func(*sim.Knobs){
		// A connection must be able to carry a whole page (up to about a
		// dozen frames here) to make progress at all; the shortest script
		// has about thirty frames, so each of these reconnects.
		"drop":            func(k *sim.Knobs) { k.DropAfterFrames = 14 },
		"drop cut":        func(k *sim.Knobs) { k.DropAfterFrames = 15; k.CutFrame = true },
		"repeat":          func(k *sim.Knobs) { k.RepeatFrames = true },
		"expire":          func(k *sim.Knobs) { k.ExpireCursors = 1; k.DropAfterFrames = 14 },
		"unavailable":     func(k *sim.Knobs) { k.Unavailable = 2 },
		"result not read": func(k *sim.Knobs) { k.ResultNotReady = 3 },
		// Each byte its own write, flush and timer; the timer, not the
		// delay, is the cost (30 µs to 0.5 ms each under load), so the
		// smallest delay is the same test and the quickest (as in faults/).
		"slow bytes": func(k *sim.Knobs) { k.SlowBytes = time.Microsecond },
		"all at once": func(k *sim.Knobs) {
			k.DropAfterFrames, k.CutFrame, k.RepeatFrames, k.ExpireCursors, k.Unavailable, k.ResultNotReady = 16, true, true, 1, 1, 1
		},
	}
	for _, scenario := range []string{"chat-tools", "chat-length", "chat-truncated", "chat-unterminated", "responses-tools", "responses-failed"} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			// The reference: the settled action reviewed page by page.
			ref := base
			ref.Finished = true
			refModel, refMsgs, _ := simRun(t, scenario, ref, nil)
			if m := find[ModeMsg](refMsgs); len(m) != 1 || !m[0].Review {
				t.Fatalf("reference is not a review: %s", summary(refMsgs))
			}
			want := recordJSON(refModel)

			live, msgs, reqs := simRun(t, scenario, base, nil)
			if m := find[ModeMsg](msgs); len(m) != 1 || m[0].Review {
				t.Fatalf("undisturbed run did not follow: %s", summary(msgs))
			}
			if got := recordJSON(live); got != want {
				t.Fatalf("undisturbed follow differs from the review\n got %s\nwant %s", got, want)
			}
			checkSimRequests(t, reqs)

			for name, fault := range faults {
				k := base
				fault(&k)
				a, msgs, reqs := simRun(t, scenario, k, nil)
				if got := recordJSON(a); got != want {
					t.Errorf("%s: record differs\n got %s\nwant %s\n%s", name, got, want, summary(msgs))
				}
				checkSimRequests(t, reqs)
				if strings.HasPrefix(name, "drop") && len(find[ReconnectingMsg](msgs)) == 0 {
					t.Errorf("%s: no reconnect", name)
				}
				if name == "expire" && len(find[RestartMsg](msgs)) != 1 {
					t.Errorf("%s: %s", name, summary(msgs))
				}
			}
		})
	}
}

// TestSimIdle: a stall longer than IdleTimeout is a reconnect; keep-alives
// are not. Generous for a loaded machine: keep-alives every 20 ms against
// a 1 s idle timeout, and the no-reconnect rule held only when the process
// was not starved.
func TestSimIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("simulator runs")
	}
	t.Parallel()
	base := sim.Knobs{Speed: 40, PollInterval: 5 * time.Millisecond, KeepaliveInterval: 20 * time.Millisecond}
	ref, _, _ := simRun(t, "chat-tools", base, nil)

	k := base
	k.Stall = 300 * time.Millisecond
	a, msgs, _ := simRun(t, "chat-tools", k, func(c *Config) { c.IdleTimeout = 100 * time.Millisecond })
	stalled := false
	for _, rc := range find[ReconnectingMsg](msgs) {
		stalled = stalled || strings.HasPrefix(rc.Cause, "no complete frame for")
	}
	if !stalled {
		t.Fatalf("stall: %s", summary(msgs))
	}
	if recordJSON(a) != recordJSON(ref) {
		t.Fatalf("stall: record differs")
	}

	// Keep-alives every 20 ms against a 1 s watchdog: a margin of 50x, so
	// that a loaded 2-core machine that stalls the reader for a few hundred
	// milliseconds does not see a spurious reconnect; a
	// longer stall voids the rule (the starvation gate).
	starved := watchStarvation(t, 500*time.Millisecond)
	start := time.Now()
	k = base
	k.KeepaliveOnly = 2 * time.Second
	a, msgs, _ = simRun(t, "chat-tools", k, func(c *Config) { c.IdleTimeout = time.Second })
	if rc := find[ReconnectingMsg](msgs); len(rc) != 0 {
		if !starved.since(start) {
			t.Fatalf("keep-alives: %s", summary(msgs))
		}
		t.Logf("keep-alives: %d reconnects while the process was starved", len(rc))
	}
	if live := find[LivenessMsg](msgs); len(live) == 0 {
		t.Fatal("no liveness")
	}
	if recordJSON(a) != recordJSON(ref) {
		t.Fatalf("keep-alives: record differs")
	}
}

// TestSimCancel: cancel an endless action while following; the run ends on
// the terminal frame with a cancelled result.
func TestSimCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("simulator runs")
	}
	t.Parallel()
	s, err := sim.New("long", sim.Knobs{Speed: 20, PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := New(Config{BaseURL: url, ActionID: s.ActionID(), BackoffMin: time.Millisecond, BatchInterval: 5 * time.Millisecond})
	// A budget, not a bound under test: a run takes well under a second,
	// but byte-by-byte delivery under -race on 2 loaded cores (load 23)
	// went past 20 s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &recorder{}
	sent := false
	rec.on = func(m Msg) {
		if b, ok := m.(BatchMsg); ok && len(b.Chunks) > 0 && !sent {
			sent = true
			// Cancel from the sink (as a TUI command would, but inline here).
			rec.Send(c.Cancel(ctx, "test"))
		}
	}
	if err := c.Run(ctx, rec); err != nil {
		t.Fatalf("%v\n%s", err, summary(rec.all()))
	}
	a := model.NewAction(s.ActionID())
	for _, m := range rec.all() {
		Apply(a, m)
	}
	if s.CancelCount() != 1 || a.Verdict().Word != "cancelled" || !a.Cancel.Accepted {
		t.Fatalf("cancels %d verdict %s\n%s", s.CancelCount(), a.Verdict().Word, summary(rec.all()))
	}
}

func checkSimRequests(t *testing.T, reqs []sim.RequestLog) {
	t.Helper()
	for _, r := range reqs {
		if r.LastEventID != "" {
			t.Errorf("Last-Event-ID sent: %+v", r)
		}
		if strings.Contains(r.RawQuery, "cursor=chunk") || strings.Contains(r.RawQuery, "cursor=evt_stream") {
			t.Errorf("bad cursor: %+v", r)
		}
	}
}

// TestSimFirehose: a fast stream arrives in few batches, nothing lost.
func TestSimFirehose(t *testing.T) {
	if testing.Short() {
		t.Skip("simulator runs")
	}
	t.Parallel()
	const n = 4000
	a, msgs, _ := simRun(t, "firehose", sim.Knobs{Speed: 1, FirehoseN: n, PollInterval: 5 * time.Millisecond}, func(c *Config) {
		c.BatchInterval = DefaultBatchInterval
	})
	batches := len(find[BatchMsg](msgs))
	if m := find[ModeMsg](msgs); len(m) != 1 || m[0].Review {
		t.Fatal("not followed live")
	}
	if a.ChunkCount() < n || a.Record().Verdict != "verified" || batches > a.ChunkCount()/20 {
		t.Fatalf("chunks %d verdict %s batches %d", a.ChunkCount(), a.Record().Verdict, batches)
	}
}

package stream

import (
	"strings"
	"testing"
	"time"
)

// cursorFreeFake is a daemon that refuses its own cursors (a follow with
// one chunk, then cursor_expired, twice), so the client reads without
// cursors from then on (design §2 step 6).
func cursorFreeFake(t *testing.T, chunks func(n int) (int, string)) *fake {
	f := newFake(t)
	f.follow = stream(partA, errorSSE("stream.cursor_expired", "permanent", ""))
	f.statusChunks = chunks
	return f
}

func count(f *fake, key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[key]
}

const chunksKey = "GET /aip/v1/actions/act_1 chunks"

// Transient failures of the cursor-free read are retried with a visible
// back-off, each numbered, and the count starts again after a good read;
// an undecodable chunk in a status read is reported, never dropped.
func TestCursorFreeRetriesAndReportsBadChunks(t *testing.T) {
	unavailable := func() (int, string) { return 503, envelope("storage.unavailable", "temporary", "busy") }
	f := cursorFreeFake(t, func(n int) (int, string) {
		switch n {
		case 0, 1: // the poll's read
			return unavailable()
		case 2:
			body := statusChunksJSON("streaming", 0, 1)
			return 200, strings.Replace(body, `"chunks":[`, `"chunks":[{"sequence":"not a number"},`, 1)
		case 3: // the drain's read
			return unavailable()
		}
		return 200, statusChunksJSON("streaming", 0, 2)
	})
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err, summary(msgs))
	}
	var attempts []int
	for _, m := range find[ReconnectingMsg](msgs) {
		if !strings.Contains(m.Cause, "storage.unavailable") {
			t.Fatalf("cause %q", m.Cause)
		}
		attempts = append(attempts, m.Attempt)
	}
	// Two failed poll reads (attempts 2, 3), then one failed drain read,
	// counted from 1 again (attempt 2).
	if len(attempts) != 3 || attempts[0] != 2 || attempts[1] != 3 || attempts[2] != 2 {
		t.Fatalf("reconnect attempts %v: %s", attempts, summary(msgs))
	}
	bad := find[BadFrameMsg](msgs)
	if len(bad) != 1 || bad[0].Chunks != 1 || bad[0].Count != 1 || !strings.HasPrefix(bad[0].Reason, "1 undecodable chunk(s)") {
		t.Fatalf("bad frames %+v", bad)
	}
	a := fold(msgs)
	if !a.Settled() || a.ChunkCount() != 3 {
		t.Fatalf("settled %v, %d chunks: %s", a.Settled(), a.ChunkCount(), summary(msgs))
	}
}

// MaxReconnectsWithoutProgress failed reads in a row end the run, naming
// the cause; a read refused for good ends it at once.
func TestCursorFreeGivesUp(t *testing.T) {
	t.Parallel()
	f := cursorFreeFake(t, func(int) (int, string) { return 503, envelope("storage.unavailable", "temporary", "busy") })
	msgs, err := runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "30 failed reads in a row; last: ") {
		t.Fatalf("err %v", err)
	}
	if n := count(f, chunksKey); n != MaxReconnectsWithoutProgress {
		t.Fatalf("%d reads, want %d", n, MaxReconnectsWithoutProgress)
	}
	if n := len(find[ReconnectingMsg](msgs)); n != MaxReconnectsWithoutProgress-1 {
		t.Fatalf("%d reconnect notices", n)
	}

	f = cursorFreeFake(t, func(int) (int, string) { return 404, envelope("action.not_found", "not_found", "gone") })
	_, err = runWith(t, testConfig(f))
	if err == nil || !strings.Contains(err.Error(), "action.not_found") {
		t.Fatalf("err %v", err)
	}
	if n := count(f, chunksKey); n != 1 {
		t.Fatalf("%d reads of a refused status, want 1", n)
	}
}

// Cursor-free reading keeps the stall rule of an action aipd holds no
// record of (design §2 step 6b): chunks that stop coming, the state
// still unknown and no result, settle it unsettled.
func TestCursorFreeStallOfAnUnknownAction(t *testing.T) {
	t.Parallel()
	f := cursorFreeFake(t, func(int) (int, string) { return 200, statusChunksJSON("streaming", 0, 1) })
	f.status = func(int) (int, string) { return 200, statusJSON("unknown") }
	f.result = func(int) (int, string) { return 404, envelope("action.not_found", "not_found", "no result") }
	cfg := testConfig(f)
	cfg.StallTimeout = 200 * time.Millisecond
	cfg.PollInterval = 10 * time.Millisecond
	msgs, err := runWith(t, cfg)
	if err != nil {
		t.Fatal(err, summary(msgs))
	}
	u := find[UnsettledMsg](msgs)
	if len(u) != 1 || u[0].Reason != "no AIP result: the run ended without one" || len(find[CursorFreeMsg](msgs)) != 1 {
		t.Fatalf("unsettled %+v: %s", u, summary(msgs))
	}
}

package sim

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkFrame asserts the axum byte layout of a data frame.
func checkFrame(t *testing.T, f sseFrame) {
	t.Helper()
	want := []string{"event", "data", "id"}
	if !f.hasID {
		want = want[:2]
	}
	if !slices.Equal(f.fields, want) || !strings.HasSuffix(f.raw, "\n\n") || !json.Valid([]byte(f.data)) {
		t.Fatalf("frame layout %q", f.raw)
	}
}

func TestFollowFraming(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{})
	full := everything(t, s, u)
	st := openFollow(t, followURL(u, s.ActionID(), ""))
	if ct := st.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	frames := st.all()
	if st.err != io.EOF {
		t.Fatalf("body ended with %v", st.err)
	}
	ne, nc := len(full.Events), len(full.Chunks)
	if len(frames) != ne+nc+2 {
		t.Fatalf("%d frames, want %d events + %d chunks + cursor + terminal", len(frames), ne, nc)
	}
	for i, f := range frames {
		checkFrame(t, f)
		switch {
		case i < ne:
			e := full.Events[i]
			if f.event != e.Kind || f.id != e.ID || !strings.HasPrefix(f.data, `{"event":{"id":"`+e.ID) {
				t.Fatalf("frame %d: %q", i, f.raw)
			}
		case i < ne+nc:
			c := frameChunk(t, f)
			if f.event != "aip.stream.chunk" || f.id != "chunk:"+strconv.Itoa(i-ne) || c.Sequence != uint64(i-ne) {
				t.Fatalf("frame %d: %q", i, f.raw)
			}
		}
	}
	cur := full.Cursor
	if got := frames[ne+nc].raw; got != "event: aip.stream.cursor\ndata: {\"next_cursor\":\""+cur+"\"}\nid: "+cur+"\n\n" {
		t.Fatalf("cursor frame %q", got)
	}
	if got := frames[ne+nc+1].raw; got != "event: aip.stream.terminal\ndata: {\"terminal\":true,\"action_id\":\""+s.ActionID()+"\"}\nid: "+cur+"\n\n" {
		t.Fatalf("terminal frame %q", got)
	}

	// Resuming from the terminal cursor: nothing new, just the terminal frame.
	frames, _ = followAll(t, followURL(u, s.ActionID(), "cursor="+cur))
	if len(frames) != 1 || frames[0].event != "aip.stream.terminal" || frames[0].id != cur {
		t.Fatalf("resume at the end: %+v", frames)
	}
	// Last-Event-ID works on follow too.
	frames, _ = followAll(t, followURL(u, s.ActionID(), ""), "Last-Event-ID", cur)
	if len(frames) != 1 {
		t.Fatalf("Last-Event-ID resume: %d frames", len(frames))
	}
}

// A terminal action with more than limit unread items closes after one
// page; the rest is drained with JSON pages (docs/protocol.md §5.4 caveat 1).
func TestFollowTerminalWithDataLeft(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-tools", Knobs{})
	frames, _ := followAll(t, eventsURL(u, s.ActionID(), "follow=true&include_chunks=true&limit=5"))
	if len(frames) != 7 || frames[5].event != "aip.stream.cursor" || frames[6].event != "aip.stream.terminal" {
		t.Fatalf("%d frames", len(frames))
	}
	if frames[6].id != "aev_cursor_5_none" {
		t.Fatalf("terminal id %s", frames[6].id)
	}
	p, _ := readPageT(t, u, s.ActionID(), "include_chunks=true&limit=1000&cursor="+frames[6].id)
	if len(p.Chunks) == 0 {
		t.Fatal("nothing left to drain")
	}
}

func TestFollowLive(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-error", Knobs{Speed: 4, PollInterval: 20 * time.Millisecond})
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	var seqs []uint64
	cursors := 0
	lastCursor := ""
	for _, f := range frames {
		checkFrame(t, f)
		switch {
		case strings.HasPrefix(f.id, "chunk:"):
			seqs = append(seqs, frameChunk(t, f).Sequence)
		case f.event == "aip.stream.cursor":
			cursors++
			lastCursor = f.id
		}
	}
	if cursors < 3 {
		t.Fatalf("only %d cursor frames: the action was not followed live", cursors)
	}
	for i, q := range seqs {
		if q != uint64(i) {
			t.Fatalf("chunk sequences %v", seqs)
		}
	}
	if last := frames[len(frames)-1]; last.event != "aip.stream.terminal" || last.id != lastCursor {
		t.Fatalf("last frame %q", last.raw)
	}
	// Each poll after the first carried the previous page's cursor? No: one
	// connection keeps its cursor server-side; only one request was made.
	n := 0
	for _, r := range s.Requests() {
		if strings.Contains(r.RawQuery, "follow=true") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d follow requests", n)
	}
}

func TestKeepalive(t *testing.T) {
	t.Parallel()
	// An unknown action is never terminal: the follow polls forever.
	_, u := start(t, "late-cancel", Knobs{PollInterval: 10 * time.Millisecond, KeepaliveInterval: 40 * time.Millisecond})
	st := openFollow(t, followURL(u, "act_nobody_here", ""))
	t0 := time.Now()
	for i := range 3 {
		f, ok := st.next()
		if !ok || f.raw != ": keep-alive\n\n" {
			t.Fatalf("block %d: %q (%v)", i, f.raw, st.err)
		}
	}
	if d := time.Since(t0); d < 100*time.Millisecond {
		t.Fatalf("3 keep-alives in %v: faster than the interval", d)
	}
}

func TestFollowCursorErrorsAreFrames(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{})
	for cur, code := range map[string]string{
		"bogus":                  "query.invalid_cursor",
		"aev_cursor_99999_none":  "stream.cursor_expired",
		"chunk:1":                "query.invalid_cursor",
		"evt_cursor_99999999999": "stream.cursor_expired",
	} {
		st := openFollow(t, followURL(u, s.ActionID(), "cursor="+cur))
		if st.resp.StatusCode != http.StatusOK || st.resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%s: %d %s", cur, st.resp.StatusCode, st.resp.Header.Get("Content-Type"))
		}
		frames := st.all()
		if len(frames) != 1 || frames[0].event != "aip.error" || frames[0].hasID {
			t.Fatalf("%s: %+v", cur, frames)
		}
		checkFrame(t, frames[0])
		var d struct {
			E protocolError `json:"error"`
		}
		mustJSON(t, []byte(frames[0].data), &d)
		if d.E.Code != code || d.E.Details["cursor"] != cur {
			t.Fatalf("%s: %+v", cur, d.E)
		}
	}
}

func TestFollowStopsWhenClientLeaves(t *testing.T) {
	s, err := New("long", Knobs{PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	st := openFollow(t, followURL(u, s.ActionID(), ""))
	for range 5 {
		if _, ok := st.next(); !ok {
			t.Fatal(st.err)
		}
	}
	st.close()
	// The handler notices on its own, before Close.
	waitGone(t, "aipwatch/sim.(*Server).follow")
	s.Close()
	noLeaks(t)
}

func TestCloseEndsOpenFollows(t *testing.T) {
	s, err := New("long", Knobs{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	var streams []*stream
	for range 3 {
		st := openFollow(t, followURL(u, s.ActionID(), ""))
		if _, ok := st.next(); !ok {
			t.Fatal(st.err)
		}
		streams = append(streams, st)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs with open follows")
	}
	for _, st := range streams {
		st.all()
		if st.err == nil {
			t.Fatal("stream still open")
		}
	}
	noLeaks(t)
	s.Close() // twice is fine
}

func TestDropAfterFrames(t *testing.T) {
	t.Parallel()
	for _, cut := range []bool{false, true} {
		t.Run("cut="+strconv.FormatBool(cut), func(t *testing.T) {
			s, u := start(t, "chat-tools", Knobs{DropAfterFrames: 4, CutFrame: cut})
			for conn := range 2 {
				st := openFollow(t, followURL(u, s.ActionID(), ""))
				frames := st.all()
				if !errors.Is(st.err, io.ErrUnexpectedEOF) {
					t.Fatalf("connection %d ended with %v, want an abrupt close", conn, st.err)
				}
				if len(frames) != 4 {
					t.Fatalf("connection %d: %d frames", conn, len(frames))
				}
				for _, f := range frames[:3] {
					checkFrame(t, f)
				}
				if last := frames[3]; last.partial != cut {
					t.Fatalf("last frame partial=%v: %q", last.partial, last.raw)
				}
			}
		})
	}
}

func TestRepeatFrames(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{RepeatFrames: true})
	full := everything(t, s, u)
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	seen := map[string]int{}
	cursorAt := -1
	for i, f := range frames {
		seen[f.id]++
		if f.event == "aip.stream.cursor" {
			cursorAt = i
		}
	}
	for _, e := range full.Events {
		if seen[e.ID] != 2 {
			t.Fatalf("event %s sent %d times", e.ID, seen[e.ID])
		}
	}
	for _, c := range full.Chunks {
		if id := "chunk:" + strconv.FormatUint(c.Sequence, 10); seen[id] != 2 {
			t.Fatalf("%s sent %d times", id, seen[id])
		}
	}
	if n := len(full.Events) + len(full.Chunks); cursorAt != n || len(frames) != 2*n+2 {
		t.Fatalf("cursor frame at %d of %d", cursorAt, len(frames))
	}
	if frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("no terminal frame")
	}
}

func TestExpireCursors(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{ExpireCursors: 1})
	// A follow without a cursor is not affected and does not count.
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	if frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("follow without cursor failed")
	}
	cur := frames[len(frames)-1].id
	frames, _ = followAll(t, followURL(u, s.ActionID(), "cursor="+cur))
	if len(frames) != 1 || frames[0].event != "aip.error" || !strings.Contains(frames[0].data, `"code":"stream.cursor_expired"`) ||
		!strings.Contains(frames[0].data, `"available_events"`) {
		t.Fatalf("first cursor follow: %+v", frames)
	}
	frames, _ = followAll(t, followURL(u, s.ActionID(), ""), "Last-Event-ID", cur)
	if len(frames) != 1 || frames[0].event != "aip.stream.terminal" {
		t.Fatalf("second cursor follow: %+v", frames)
	}
}

func TestKeepaliveOnly(t *testing.T) {
	const hold = 300 * time.Millisecond
	s, u := start(t, "late-cancel", Knobs{KeepaliveOnly: hold, KeepaliveInterval: 40 * time.Millisecond})
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	i := slices.IndexFunc(frames, func(f sseFrame) bool { return f.event == "aip.stream.cursor" })
	tail := frames[i+1:]
	last := tail[len(tail)-1]
	if last.event != "aip.stream.terminal" || len(tail) < 4 {
		t.Fatalf("after the cursor frame: %d blocks", len(tail))
	}
	for _, f := range tail[:len(tail)-1] {
		if f.raw != ": keep-alive\n\n" {
			t.Fatalf("during the hold: %q", f.raw)
		}
	}
	if gap := last.at.Sub(frames[i].at); gap < hold-20*time.Millisecond {
		t.Fatalf("data held back for only %v", gap)
	}
	// Only once.
	t0 := time.Now()
	frames, _ = followAll(t, followURL(u, s.ActionID(), ""))
	if time.Since(t0) > hold || frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("the hold happened twice")
	}
}

func TestStall(t *testing.T) {
	const stall = 300 * time.Millisecond
	s, u := start(t, "late-cancel", Knobs{Stall: stall, KeepaliveInterval: 20 * time.Millisecond})
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	i := slices.IndexFunc(frames, func(f sseFrame) bool { return f.event == "aip.stream.cursor" })
	if len(frames) != i+2 || frames[i+1].event != "aip.stream.terminal" {
		t.Fatalf("something was sent during the stall: %+v", frames[i+1:])
	}
	if gap := frames[i+1].at.Sub(frames[i].at); gap < stall-20*time.Millisecond {
		t.Fatalf("stalled for only %v", gap)
	}
	// A client whose watchdog fires simply leaves; the next connection is
	// served at once.
	t0 := time.Now()
	followAll(t, followURL(u, s.ActionID(), ""))
	if time.Since(t0) > stall {
		t.Fatal("stalled twice")
	}
}

func TestSlowBytes(t *testing.T) {
	t.Parallel()
	const delay = 3 * time.Millisecond
	s, u := start(t, "late-cancel", Knobs{SlowBytes: delay})
	st := openFollow(t, followURL(u, s.ActionID(), ""))
	t0 := time.Now()
	buf := make([]byte, 64)
	got, reads := 0, 0
	for got < 60 {
		n, err := st.resp.Body.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		if n > 4 {
			t.Fatalf("read %d bytes at once", n)
		}
		got += n
		reads++
	}
	if d := time.Since(t0); d < 50*delay {
		t.Fatalf("60 bytes in %v", d)
	}
	if reads < 15 {
		t.Fatalf("only %d reads", reads)
	}
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	// A storage failure on the follow route arrives as HTTP 200 and an
	// aip.error frame (protocol §10.8 B6).
	s, u := start(t, "late-cancel", Knobs{Unavailable: 2})
	for i := range 2 {
		frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
		if len(frames) != 1 || frames[0].event != "aip.error" || !strings.Contains(frames[0].data, `"code":"storage.unavailable"`) ||
			!strings.Contains(frames[0].data, `"retry_after_ms":1000`) || !strings.Contains(frames[0].data, `"category":"temporary"`) {
			t.Fatalf("follow %d: %+v", i, frames)
		}
	}
	// JSON pages are not affected.
	readPageT(t, u, s.ActionID(), "")
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	if frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("third follow failed")
	}
}

func TestPollInterval(t *testing.T) {
	t.Parallel()
	// late-cancel's first frame is 300 ms in; the first poll finds nothing.
	for _, c := range []struct {
		poll     time.Duration
		min, max time.Duration
	}{
		{1200 * time.Millisecond, 1100 * time.Millisecond, 5 * time.Second},
		{20 * time.Millisecond, 250 * time.Millisecond, 1000 * time.Millisecond},
	} {
		t.Run(c.poll.String(), func(t *testing.T) {
			t.Parallel()
			s, u := start(t, "late-cancel", Knobs{Speed: 1, PollInterval: c.poll})
			t0 := time.Now()
			st := openFollow(t, followURL(u, s.ActionID(), ""))
			f, ok := st.next()
			if !ok {
				t.Fatal(st.err)
			}
			if d := f.at.Sub(t0); d < c.min || d > c.max {
				t.Fatalf("poll %v: first frame after %v", c.poll, d)
			}
		})
	}
}

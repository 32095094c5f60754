package stream

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heapUse runs fn and reports how far the heap in use rose above where it
// was at the start, at its peak (sampled every 5 ms) and after fn once
// garbage is collected.
func heapUse(fn func()) (peak, kept int64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := int64(ms.HeapInuse)
	var top atomic.Int64
	top.Store(before)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var s runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&s)
				if v := int64(s.HeapInuse); v > top.Load() {
					top.Store(v)
				}
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return top.Load() - before, int64(ms.HeapInuse) - before
}

const mib = 1 << 20

// writeUntil writes the prefix, then repeats fill until total bytes or the
// first failed write (the client hung up); it returns the bytes written.
func writeUntil(w http.ResponseWriter, prefix string, fill byte, total int, suffix string) int64 {
	sseOK(w)
	n, _ := w.Write([]byte(prefix))
	written := int64(n)
	buf := []byte(strings.Repeat(string(fill), 64<<10))
	for left := total; left > 0; left -= len(buf) {
		n, err := w.Write(buf[:min(len(buf), left)])
		written += int64(n)
		if err != nil {
			return written
		}
	}
	n, _ = w.Write([]byte(suffix))
	w.(http.Flusher).Flush()
	return written + int64(n)
}

// tooBig checks a run that met a frame over the limit: one fatal error
// naming the limit, no retry.
func tooBig(t *testing.T, f *fake, msgs []Msg, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Error() != "follow: a frame is larger than 16 MiB" || e.Retryable {
		t.Fatalf("error %v (%+v)", err, e)
	}
	if em := find[ErrorMsg](msgs); len(em) != 1 || em[0].Err != e {
		t.Fatalf("messages: %s", summary(msgs))
	}
	if _, ok := msgs[len(msgs)-1].(DoneMsg); !ok {
		t.Fatalf("not ended: %s", summary(msgs))
	}
	if n := len(f.follows()); n != 1 {
		t.Fatalf("%d follow requests: a frame over the limit is not retried", n)
	}
}

// slowFrameConfig gives a huge frame time to arrive on a loaded machine:
// the idle watchdog counts complete frames, and these tests are about the
// size limit, not about idleness.
func slowFrameConfig(f *fake) Config {
	cfg := testConfig(f)
	cfg.IdleTimeout = time.Minute
	return cfg
}

// A single frame of 17 MiB (complete, with its blank line) is refused with
// a clear error; the client never holds much more than the 16 MiB limit.
func TestLimitFrameOver16MiB(t *testing.T) {
	f := newFake(t)
	var written atomic.Int64
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		written.Store(writeUntil(w, partA+"event: aip.stream.chunk\ndata: {\"chunk\":\"", 'x', 17*mib, "\"}\n\n"+partB))
	}
	var msgs []Msg
	var err error
	peak, kept := heapUse(func() { msgs, err = runWith(t, slowFrameConfig(f)) })
	tooBig(t, f, msgs, err)
	if a := fold(msgs); a.ChunkCount() != 1 {
		t.Fatalf("the frames before the big one: %d chunks", a.ChunkCount())
	}
	t.Logf("17 MiB frame: heap peak +%d MiB, kept %+d KiB, server wrote %d MiB", peak/mib, kept>>10, written.Load()/mib)
	if peak > 96*mib || kept > 8*mib {
		t.Fatalf("heap peak +%d MiB, kept %+d KiB", peak/mib, kept>>10)
	}
}

// A data line that never ends: the client stops reading at the limit and
// says so; it neither buffers the rest nor retries.
func TestLimitDataLineWithoutEnd(t *testing.T) {
	f := newFake(t)
	var written atomic.Int64
	done := make(chan struct{})
	f.follow = func(w http.ResponseWriter, r *http.Request, n int) {
		defer close(done)
		written.Store(writeUntil(w, "data: ", 'y', 256*mib, ""))
	}
	var msgs []Msg
	var err error
	peak, kept := heapUse(func() { msgs, err = runWith(t, slowFrameConfig(f)) })
	tooBig(t, f, msgs, err)
	<-done
	t.Logf("endless line: heap peak +%d MiB, kept %+d KiB, server wrote %d MiB before the client hung up",
		peak/mib, kept>>10, written.Load()/mib)
	if peak > 96*mib || kept > 8*mib {
		t.Fatalf("heap peak +%d MiB, kept %+d KiB", peak/mib, kept>>10)
	}
	// What the server got out is the limit plus what the socket buffers
	// hold, nowhere near the 256 MiB it tried.
	if w := written.Load(); w > 64*mib {
		t.Fatalf("the client read %d MiB of one line", w/mib)
	}
}

// A million tiny frames (keep-alive comments, unknown events, id-only
// frames), written as they go: the run ends normally, none of them turns
// into a message of its own, and memory does not grow with their number.
func TestLimitMillionTinyFrames(t *testing.T) {
	const n = 1_000_000
	f := newFake(t)
	f.follow = func(w http.ResponseWriter, r *http.Request, _ int) {
		sseOK(w)
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteString(partA)
		for i := 0; i < n; i++ {
			var err error
			switch i % 3 {
			case 0:
				_, err = bw.WriteString(": k\n\n")
			case 1:
				_, err = bw.WriteString("event: x.tiny\ndata: 1\n\n")
			default:
				_, err = bw.WriteString("id: 7\n\n")
			}
			if err != nil {
				return
			}
		}
		bw.WriteString(partB)
		bw.Flush()
	}
	var msgs []Msg
	var err error
	start := time.Now()
	peak, kept := heapUse(func() {
		// -race on a busy machine needs far longer than runWith's 10 s.
		c, _ := New(testConfig(f))
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		rec := &recorder{}
		err = c.Run(ctx, rec)
		msgs = rec.all()
	})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(msgs); got != cannedSummary {
		t.Fatalf("got  %s\nwant %s", got, cannedSummary)
	}
	if live := len(find[LivenessMsg](msgs)); live > int(took/time.Second)+3 {
		t.Fatalf("%d liveness messages in %s", live, took)
	}
	t.Logf("%d tiny frames in %s: %d messages, heap peak +%d KiB, kept %+d KiB", n, took.Round(time.Millisecond), len(msgs), peak>>10, kept>>10)
	if peak > 32*mib || kept > 4*mib {
		t.Fatalf("heap peak +%d KiB, kept %+d KiB", peak>>10, kept>>10)
	}
}

package stream

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"
)

// TestReadFramesHandsOverBeforeWaiting: the frames are handed on in order,
// and before the reader waits for more bytes: a frame is never held back
// by a stream that goes quiet after it.
func TestReadFramesHandsOverBeforeWaiting(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan []readItem, 16)
	var last atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		readFrames(ctx, pr, &last, out)
	}()
	recv := func() []readItem {
		t.Helper()
		select {
		case items := <-out:
			return items
		case <-time.After(30 * time.Second):
			t.Fatal("frames held back while the stream is quiet")
		}
		return nil
	}
	// Three frames in one write, then nothing: all three arrive, in
	// order, while the writer is still holding the stream open.
	go func() {
		if _, err := pw.Write([]byte("id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"a\":2}\n\nid: 3\ndata: {\"a\":3}\n\n")); err != nil {
			t.Error(err)
		}
	}()
	var got []readItem
	for len(got) < 3 {
		got = append(got, recv()...)
	}
	for i, it := range got {
		if it.err != nil || it.frame.ID != string(rune('1'+i)) {
			t.Fatalf("frame %d: %+v", i, it)
		}
	}
	// One more frame later, then the end of the body.
	go func() {
		if _, err := pw.Write([]byte("id: 4\ndata: {}\n\n")); err != nil {
			t.Error(err)
		}
		pw.Close()
	}()
	var rest []readItem
	for len(rest) == 0 || rest[len(rest)-1].err == nil {
		rest = append(rest, recv()...)
	}
	if len(rest) != 2 || rest[0].frame.ID != "4" || rest[1].err != io.EOF {
		t.Fatalf("after the pause: %+v", rest)
	}
	<-done
}

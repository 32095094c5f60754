package serve

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A session's output (design §15: a slow or stalled client loses frames,
// never grows the server): the program writes its frames into a bounded
// buffer that one goroutine copies to the SSH channel. A write that would
// pass the bound is dropped whole, and every write after it until the
// client has taken what is queued; then the program is asked for a whole
// new frame (tea.ClearScreen), so what the client shows is right again.
// The program itself never waits for the client: its messages, polls and
// follows go on.

// maxPending bounds a session's queued output: a few whole frames at the
// largest size a session gets (maxWidth × maxHeight cells, styled).
const maxPending = 2 << 20

// resync starts the first bytes after a gap: CAN ends an escape sequence
// a dropped write may have cut, ST a string (OSC, DCS).
const resync = "\x18\x1b\\"

type frameWriter struct {
	w io.Writer

	mu      sync.Mutex
	pending []byte
	spare   []byte
	gap     bool // writes were dropped since the client last caught up
	closed  bool
	wake    chan struct{}
	repaint func() // asks the program for a whole frame

	dropped atomic.Int64 // writes dropped (tests, the benchmark)
	written atomic.Int64 // bytes written to the client
	last    atomic.Int64 // when the client last took bytes (unix nanos)
}

func newFrameWriter(w io.Writer) *frameWriter {
	fw := &frameWriter{w: w, wake: make(chan struct{}, 1)}
	fw.last.Store(time.Now().UnixNano())
	go fw.loop()
	return fw
}

// Write queues p, or drops it when the queue is full; it never blocks on
// the client.
func (fw *frameWriter) Write(p []byte) (int, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.closed {
		return len(p), nil
	}
	// A write is dropped when it would take the queue past its bound;
	// one frame larger than the bound is taken when the queue is empty
	// (else a huge window's frame would be dropped for ever).
	if fw.gap || (len(fw.pending) > 0 && len(fw.pending)+len(p) > maxPending) {
		fw.gap = true
		fw.dropped.Add(1)
		return len(p), nil
	}
	fw.pending = append(fw.pending, p...)
	select {
	case fw.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// loop copies the queue to the client, a batch at a time.
func (fw *frameWriter) loop() {
	for range fw.wake {
		for {
			fw.mu.Lock()
			if fw.closed {
				fw.mu.Unlock()
				return
			}
			batch := fw.pending
			fw.pending, fw.spare = fw.spare[:0], nil
			if len(batch) == 0 {
				gap := fw.gap
				fw.gap = false
				repaint := fw.repaint
				fw.mu.Unlock()
				if gap {
					// The client took everything queued: start the next
					// bytes clean, and ask for a whole frame.
					fw.mu.Lock()
					fw.pending = append(fw.pending, resync...)
					fw.mu.Unlock()
					if repaint != nil {
						go repaint()
					}
					continue
				}
				break
			}
			fw.mu.Unlock()
			n, err := fw.w.Write(batch)
			fw.written.Add(int64(n))
			fw.last.Store(time.Now().UnixNano())
			fw.mu.Lock()
			fw.spare = batch[:0]
			fw.mu.Unlock()
			if err != nil {
				fw.close()
				return
			}
		}
	}
}

// flush waits (at most d) for the queue to reach the client: the last
// frame before the session's closing line.
func (fw *frameWriter) flush(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		fw.mu.Lock()
		empty := len(fw.pending) == 0 || fw.closed
		fw.mu.Unlock()
		if empty {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (fw *frameWriter) close() {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if !fw.closed {
		fw.closed = true
		fw.pending = nil
		close(fw.wake)
	}
}

func (fw *frameWriter) setRepaint(f func()) {
	fw.mu.Lock()
	fw.repaint = f
	fw.mu.Unlock()
}

// The largest window a session is drawn at; a bigger one is drawn at
// this size (a hostile client's 100000×100000 costs no more than a wall
// screen).
const (
	maxWidth  = 500
	maxHeight = 200
)

func clampSize(w, h int) (int, int) {
	return min(max(w, 1), maxWidth), min(max(h, 1), maxHeight)
}

// resizeGap is the least time between two sizes given to a session's
// program: a storm of window changes costs at most one layout a gap, the
// last size always given.
const resizeGap = 50 * time.Millisecond

// resizeFlushMsg gives the program the last size held back.
type resizeFlushMsg struct{}

// sizer clamps and paces a session's window sizes (the program's filter).
type sizer struct {
	mu      sync.Mutex
	last    time.Time
	pending *tea.WindowSizeMsg
	timer   bool
	send    func(tea.Msg)
	touch   func() // a window change is the client's activity
}

func (s *sizer) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch m := msg.(type) {
	case tea.SuspendMsg:
		// There is no shell to suspend to: the session goes on.
		return tea.ResumeMsg{}
	case tea.WindowSizeMsg:
		if s.touch != nil {
			s.touch()
		}
		m.Width, m.Height = clampSize(m.Width, m.Height)
		s.mu.Lock()
		defer s.mu.Unlock()
		since := time.Since(s.last)
		if since >= resizeGap && !s.timer {
			s.last = time.Now()
			return m
		}
		s.pending = &m
		if !s.timer && s.send != nil {
			s.timer = true
			send := s.send
			time.AfterFunc(resizeGap-min(since, resizeGap), func() { send(resizeFlushMsg{}) })
		}
		return nil
	case resizeFlushMsg:
		s.mu.Lock()
		defer s.mu.Unlock()
		s.timer = false
		p := s.pending
		s.pending = nil
		s.last = time.Now()
		if p == nil {
			return nil
		}
		return *p
	}
	return msg
}

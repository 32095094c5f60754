package ui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"aipwatch/stream"
)

// countingWriter is the terminal: it counts what the renderer writes and
// signals every write.
type countingWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	n     int64
	calls int
	wrote chan struct{}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n += int64(len(p))
	w.calls++
	w.buf.Reset() // keep nothing: only the count matters
	w.mu.Unlock()
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *countingWriter) count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// BenchmarkTerminalBytes (bytes to the terminal): Bubble Tea's own
// renderer draws the model into a buffer (no TTY, 120x40, ANSI colours)
// while a long reply streams in follow mode, one word a delta, each delta
// its own batch and given time for its own frame (the worst case: the
// client's 30 Hz batching only merges deltas). bytes/delta is what the
// terminal receives per delta on average, the clock's once-a-second
// status updates included.
func BenchmarkTerminalBytes(b *testing.B) {
	w := &countingWriter{wrote: make(chan struct{}, 1)}
	m := newModel(context.Background(), Options{ActionID: testAction, Keys: realKeys(b)})
	p := tea.NewProgram(m, tea.WithOutput(w), tea.WithInput(nil), tea.WithWindowSize(120, 40),
		tea.WithColorProfile(colorprofile.ANSI), tea.WithFPS(120), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() { _, _ = p.Run(); close(done) }()
	defer func() { p.Quit(); <-done }()

	f := newFx(b)
	f.at = time.Now()
	p.Send(status("streaming", false))
	p.Send(stream.ConnectedMsg{Attempt: 1})
	p.Send(f.batch(f.role()))
	// A reply several screens long already, so every new line scrolls.
	// Prose: lines do not repeat (the renderer's scroll optimisation
	// matches lines by content, as a terminal's would; a text of one
	// paragraph over and over would defeat it unlike any real reply).
	p.Send(f.batch(f.delta(prose(0, 400))))
	settle := func() {
		for {
			select {
			case <-w.wrote:
			case <-time.After(60 * time.Millisecond):
				return
			}
		}
	}
	settle()
	words := strings.SplitAfter(prose(400, 100000), " ")
	start := w.count()
	w.mu.Lock()
	c0 := w.calls
	w.mu.Unlock()
	n := 0
	for b.Loop() {
		f.at = time.Now()
		p.Send(f.batch(f.delta(words[n%len(words)])))
		n++
		select { // its frame
		case <-w.wrote:
		case <-time.After(50 * time.Millisecond):
		}
	}
	settle()
	b.ReportMetric(float64(w.count()-start)/float64(n), "bytes/delta")
	w.mu.Lock()
	b.ReportMetric(float64(w.calls-c0)/float64(n), "writes/delta")
	w.mu.Unlock()
}

// prose is sentences from..to of a reply: numbered, so no two lines are
// alike, with a paragraph break every fifth.
func prose(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "Sentence %d of the reply says what the tool found and why it matters. ", i)
		if i%5 == 4 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

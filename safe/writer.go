package safe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Kind says what a Writer's bytes are, and so what it must guard.
type Kind int

const (
	// Terminal is human text for a terminal or a file read like one
	// (plain output, error lines, the resume command, a Markdown export):
	// any control a printer let through (C0 but newline and tab, DEL, C1,
	// bidi, invalid UTF-8) is shown as its placeholder, as Text does.
	Terminal Kind = iota
	// JSONLines is JSON text (jsonl, records): DEL, C1 and bidi controls
	// are escaped as \u… (JSON does), which keeps the meaning.
	JSONLines
)

// Writer is the last step of every byte aipwatch writes (design §5):
// it scrubs every 12-character substring of a protected secret, even one
// split across writes (the end of a write that could begin one is held
// back until the next write or Flush), and it neutralises what its Kind
// forbids. It holds back an incomplete UTF-8 sequence too, so a character
// split across writes is never mistaken for invalid text. Safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	kind Kind
	held []byte
	err  error
}

// NewWriter returns a Writer over w. A Writer given a Writer returns it
// (one guard is enough).
func NewWriter(w io.Writer, kind Kind) *Writer {
	if sw, ok := w.(*Writer); ok && sw.kind == kind {
		return sw
	}
	return &Writer{w: w, kind: kind}
}

// Write guards p and writes what can be written now. It reports len(p)
// written unless the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if len(w.held) == 0 && secrets.Load() == nil && incompleteRune(p) == 0 && w.clean(p) {
		// Nothing to hold, scrub or neutralise: p as it is, no copy.
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	buf := append(w.held, p...)
	inc := incompleteRune(buf)
	out := w.neutral(buf[:len(buf)-inc])
	var tail string
	if sc := secrets.Load(); sc != nil {
		// What could still grow into a secret, or into a longer run of
		// one, waits for what follows it.
		// So does a run that reaches the end, and one that what is held
		// back would cut in two: written in part, its windows that cross
		// the cut would never be seen whole.
		cut := len(out) - sc.holdBack(out)
		spans := sc.spans(out)
		for _, sp := range spans {
			if sp[1] > cut || sp[1] == len(out) {
				cut = min(cut, sp[0])
			}
		}
		out, tail = sc.scrubBefore(out, spans, cut), out[cut:]
	}
	w.held = append([]byte(tail), buf[len(buf)-inc:]...)
	if out != "" {
		if _, err := io.WriteString(w.w, out); err != nil {
			w.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// JSON is JSON(b) for bytes to be written to w, scanned once: a JSONLines
// Writer with no secret registered escapes what JSON would (DEL, C1 and
// bidi controls, and nothing else: no secret to scrub) as it writes, so
// b is returned as it is and w's own pass is the only one. Written to w,
// the result gives the bytes JSON(b) would.
func (w *Writer) JSON(b []byte) []byte {
	if w.kind == JSONLines && secrets.Load() == nil {
		return b
	}
	return JSON(b)
}

// WriteString is Write of a string.
func (w *Writer) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush writes what was held back (the end of the output: nothing follows
// that could complete a secret).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || len(w.held) == 0 {
		return w.err
	}
	out := Scrub(w.neutral(w.held))
	w.held = nil
	if _, err := io.WriteString(w.w, out); err != nil {
		w.err = err
	}
	return w.err
}

// clean reports whether p needs nothing from neutral.
func (w *Writer) clean(p []byte) bool {
	if len(p) == 0 {
		return true
	}
	// firstUnsafe only reads its argument: no copy of p is needed.
	return firstUnsafe(view(p), true, false) < 0
}

// neutral neutralises what the Writer's kind forbids (secrets aside),
// copying b once.
func (w *Writer) neutral(b []byte) string {
	switch w.kind {
	case JSONLines:
		return string(escapeJSON(b))
	default:
		return clean(string(b), true, false)
	}
}

// incompleteRune is the length of an incomplete UTF-8 sequence at the end
// of b (0 when b ends on a whole character or on bytes that can never
// become one).
func incompleteRune(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			want := 0
			switch {
			case c&0xE0 == 0xC0:
				want = 2
			case c&0xF0 == 0xE0:
				want = 3
			case c&0xF8 == 0xF0:
				want = 4
			}
			if want > n {
				return n
			}
			return 0
		}
	}
	return 0
}

// Unwrap returns the writer under a Writer (w itself for any other): what
// must see the terminal itself, such as the TUI's renderer, whose frames
// are scrubbed before they are drawn.
func Unwrap(w io.Writer) io.Writer {
	if sw, ok := w.(*Writer); ok {
		return sw.w
	}
	return w
}

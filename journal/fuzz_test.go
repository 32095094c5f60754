package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadLog reads any bytes as a journal, whole and bounded: it never
// fails on its content, a bounded read gives the newest entries of the
// whole (a suffix of them), and every line that lies wholly in the last
// limit bytes is read, as an entry or a damaged line (design §6.2: the
// newest entries are found again however the file was cut).
func FuzzReadLog(f *testing.F) {
	f.Add([]byte(`{"kind":"submit","action_id":"act_1","idempotency_key":"k"}`+"\n"+`{"kind":"verdict","action_id":"act_1","verdict":"verified"}`+"\n"), uint16(70))
	f.Add([]byte(`{"kind":"submit","action_id":"act_1"}`+"\n"+`{"kind":"subm`), uint16(10))
	f.Add([]byte(`{"kind":"reconcile","action_id":"act_r","of":"act_1","stored_status":"completed"}`), uint16(1000))
	// At the window's edges: a file of exactly the bound (every line
	// read), and one a byte longer (its first line is not in the window).
	f.Add([]byte("{}\n{}\n"), uint16(5))
	f.Add([]byte("x\n{}\n"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		dir := filepath.Join(t.TempDir(), "aipwatch")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		whole, err := ReadLog(path, MaxRead)
		if err != nil || whole.Skipped != 0 {
			t.Fatalf("whole read: %v, skipped %d", err, whole.Skipped)
		}
		lim := int64(limit) + 1
		part, err := ReadLog(path, lim)
		if err != nil {
			t.Fatalf("bounded read: %v", err)
		}
		for _, w := range append(whole.Warnings, part.Warnings...) {
			if strings.ContainsAny(w, "\r\n") {
				t.Fatalf("a warning of more than one line: %q", w)
			}
		}
		if part.Skipped < 0 || part.Skipped > int64(len(data)) || (int64(len(data)) <= lim) != (part.Skipped == 0) {
			t.Fatalf("skipped %d of %d bytes read within %d", part.Skipped, len(data), lim)
		}
		n := len(part.Entries)
		if n > len(whole.Entries) || (n > 0 && !reflect.DeepEqual(part.Entries, whole.Entries[len(whole.Entries)-n:])) {
			t.Fatalf("the bounded read's %d entries are not the newest of the whole's %d", n, len(whole.Entries))
		}
		// The lines that start within the last lim bytes: each is read,
		// and what comes before the first of them is what was skipped.
		from := int64(len(data)) - lim
		want, first := 0, int64(len(data))
		for off, line := range linesAt(data) {
			if int64(off) >= from {
				first = min(first, int64(off))
				if len(bytes.TrimSpace(line)) > 0 {
					want++
				}
			}
		}
		if from > 0 && part.Skipped != first {
			t.Fatalf("skipped %d bytes, the first line in the last %d bytes starts at %d", part.Skipped, lim, first)
		}
		if got := n + part.Damaged; got != want {
			t.Fatalf("%d lines lie wholly in the last %d bytes, %d read (%d entries, %d damaged)", want, lim, got, n, part.Damaged)
		}
	})
}

// linesAt maps each line's start offset to the line (without its '\n').
func linesAt(data []byte) map[int][]byte {
	out := map[int][]byte{}
	start := 0
	for i, c := range data {
		if c == '\n' {
			out[start] = data[start:i]
			start = i + 1
		}
	}
	if start < len(data) {
		out[start] = data[start:]
	}
	return out
}

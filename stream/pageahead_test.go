package stream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCursorAhead(t *testing.T) {
	for body, want := range map[string]string{
		`{"action_events":{"events":[],"cursor":"aev_cursor_2_0","terminal":false}}`:  "aev_cursor_2_0",
		`{"events":[{"data":{"cursor":"aev_cursor_9_9"}}],"cursor":"aev_cursor_3_1"}`: "aev_cursor_3_1",
		`{"cursor":"aev_cursor_3_1","events":[{"data":{"cursor":"aev_cursor_9_9"}}]}`: "aev_cursor_9_9", // a wrong guess: the loop checks
		`{"cursor":"chunk:4"}`:    "",
		`{"cursor":"a\"b"}`:       "",
		`{"cursor":""}`:           "",
		`{"events":[]}`:           "",
		`{"cursor":"aev_cursor_1`: "",
	} {
		got, ok := cursorAhead([]byte(body))
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", body, got, ok, want)
		}
	}
}

// aheadPage is a page big enough to have its successor asked for early,
// holding chunk seq and naming next as its cursor.
func aheadPage(next string, seq int) string {
	pad := strings.Repeat("x", aheadMin)
	return pageJSON(next, true, chunkObj(seq, "data", fmt.Sprintf(`{"pad":%q}`, pad)))
}

// TestPagesAskedForAhead: draining pages, the next page is asked for
// before the one before it is applied. The sink holds each page's batch
// until aipd has seen the request for the page after it (in sequence,
// that request would only come once the sink returned: the test would
// wait out its bound and fail). Every page is still read once, in order,
// and a page whose early read failed is read again.
func TestPagesAskedForAhead(t *testing.T) {
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	const n = 6
	cursor := func(i int) string { return fmt.Sprintf("aev_cursor_%d_%d", i+1, i) }
	var mu sync.Mutex
	asked := map[string]int{}
	f.page = func(c string, k int) (int, string) {
		mu.Lock()
		asked[c]++
		tries := asked[c]
		mu.Unlock()
		if c == cursor(2) && tries == 1 {
			return 503, envelope("storage.unavailable", "temporary", "later")
		}
		for i := range n {
			if (i == 0 && c == "") || (i > 0 && c == cursor(i-1)) {
				return 200, aheadPage(cursor(i), i)
			}
		}
		return 200, pageJSON(c, true) // the end: an empty page
	}
	c, err := New(testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := 0
	rec := &recorder{on: func(m Msg) {
		b, ok := m.(BatchMsg)
		if !ok || len(b.Chunks) == 0 || seen >= n-1 {
			return
		}
		seen++
		want := cursor(int(b.Chunks[0].Sequence)) // the cursor this page names
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			got := asked[want]
			mu.Unlock()
			if got > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("page %d applied before the page after it was asked for", b.Chunks[0].Sequence)
				return
			}
		}
	}}
	if err := c.Run(ctx, rec); err != nil {
		t.Fatal(err)
	}
	a := fold(rec.all())
	if a.ChunkCount() != n || a.ReplayCount() != 0 {
		t.Fatalf("chunks %d replays %d", a.ChunkCount(), a.ReplayCount())
	}
	mu.Lock()
	defer mu.Unlock()
	if asked[""] != 1 {
		t.Fatalf("asked %v", asked)
	}
	for i := range n {
		want := 1
		if i == 2 { // its first read failed
			want = 2
		}
		if asked[cursor(i)] != want {
			t.Fatalf("cursor %s asked %d times, want %d: %v", cursor(i), asked[cursor(i)], want, asked)
		}
	}
}

// TestPageAheadWrongGuess: a body whose last "cursor" key is not the
// page's own (another key order, and a cursor inside an event's data)
// has the wrong page asked for early; it is dropped unread, and the page
// the decoded cursor names is read instead.
func TestPageAheadWrongGuess(t *testing.T) {
	f := newFake(t)
	f.status = func(int) (int, string) { return 200, statusJSON("completed") }
	pad := strings.Repeat("x", aheadMin)
	f.page = func(c string, k int) (int, string) {
		switch c {
		case "":
			return 200, `{"action_events":{"action_id":"act_1","cursor":"aev_cursor_2_0","chunks":[` +
				chunkObj(0, "data", fmt.Sprintf(`{"cursor":"aev_cursor_99_9","pad":%q}`, pad)) + `],"terminal":true}}`
		case "aev_cursor_2_0":
			return 200, pageJSON("aev_cursor_3_1", true, chunkObj(1, "data", `{"x":1}`))
		case "aev_cursor_99_9":
			return 200, pageJSON("aev_cursor_100_99", true, chunkObj(99, "data", `{"decoy":true}`))
		}
		return 200, pageJSON(c, true)
	}
	msgs, err := runWith(t, testConfig(f))
	if err != nil {
		t.Fatal(err)
	}
	a := fold(msgs)
	if a.ChunkCount() != 2 || a.Cursor != "aev_cursor_3_1" {
		t.Fatalf("chunks %d cursor %s: %s", a.ChunkCount(), a.Cursor, summary(msgs))
	}
	if _, ok := a.ChunkAt(99); ok {
		t.Fatal("the decoy page was applied")
	}
}

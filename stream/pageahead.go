package stream

import (
	"bytes"
	"context"
	"runtime"
)

// Draining pages, aipwatch asks for the next page while it decodes and
// applies the one before it. In sequence, each page was a wait on aipd
// and then a burst of work: aipd idle while aipwatch worked and the
// other way round, and every wait put aipwatch's threads to sleep and
// woke them again, which on the firehose's 200 pages cost more CPU than
// the waits saved (docs/performance.md).

// aheadMin: a page shorter than this is likely the last (an empty page
// is about 150 bytes), so the page after it is not asked for early.
const aheadMin = 512

// pageAhead is a page asked for early, at the cursor its predecessor's
// body names.
type pageAhead struct {
	cursor string
	done   chan struct{}
	data   []byte
	err    *Error
	cancel context.CancelFunc
}

// fetchAhead starts reading the page at cursor in the background.
func (c *Client) fetchAhead(ctx context.Context, cursor string) *pageAhead {
	ctx, cancel := context.WithCancel(ctx)
	a := &pageAhead{cursor: cursor, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(a.done)
		a.data, a.err = c.fetchPage(ctx, cursor)
	}()
	// On one processor (the line modes) the request goes out now, not
	// when this page's work is done.
	runtime.Gosched()
	return a
}

// take waits for the page.
func (a *pageAhead) take() ([]byte, *Error) {
	<-a.done
	a.cancel()
	return a.data, a.err
}

// stop abandons the page (nil: nothing asked for) and waits for its
// goroutine to end.
func (a *pageAhead) stop() {
	if a == nil {
		return
	}
	a.cancel()
	<-a.done
}

// cursorAhead guesses an events page's cursor from its bytes, without
// decoding them: aipd writes "cursor" after "events" and "chunks", so it
// is the last such key in the body. The guess only asks for the next page
// early: the loop takes that page only when the decoded cursor is the
// same (a wrong guess costs one request, never a wrong page).
func cursorAhead(data []byte) (string, bool) {
	const key = `"cursor":"`
	i := bytes.LastIndex(data, []byte(key))
	if i < 0 {
		return "", false
	}
	rest := data[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return "", false
	}
	if cur := string(rest[:j]); validCursor(cur) {
		return cur, true
	}
	return "", false
}

package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"aipwatch/model"
)

// Reading a production daemon's list without reading it whole (design §7):
// the list is ordered by updated_at ascending and offset-paged
// (protocol §2.1), so its most recently updated rows are its
// tail, whose offset total_size gives. A poll reads the live states whole
// (state filter) and the tail; older pages only when asked for.

// LiveStates are the lifecycle states a poll reads whole: an action in one
// of them may change at any moment (design §7).
var LiveStates = []string{model.StateQueued, model.StateRunning, model.StatePendingApproval}

// maxLiveRows bounds the rows of one live state a poll reads: a daemon
// with more running actions than this shows the first ones, and says so.
const maxLiveRows = 10 * pageLimit

// maxTailReads bounds the requests of one tail read while the list's end
// keeps moving or its total_size does not match its pages.
const maxTailReads = 6

// ListPage is one page of the list.
type ListPage struct {
	Rows   []model.ActionStatus // in the daemon's order: oldest update first
	Offset int                  // the list offset of Rows[0]
	Total  int                  // total_size as this page said it
	Next   string               // the page's cursor, "" on the last page
}

// ListAt reads the n rows (at most pageLimit) from offset of the list q
// filters.
func (c *Client) ListAt(ctx context.Context, q ListQuery, offset, n int) (ListPage, error) {
	p, e := c.listPage(ctx, q, offset, n)
	if e != nil {
		return p, ctxErr(ctx, e)
	}
	return p, nil
}

func (c *Client) listPage(ctx context.Context, q ListQuery, offset, n int) (ListPage, *Error) {
	v := url.Values{"limit": {strconv.Itoa(min(max(n, 1), pageLimit))}}
	if q.State != "" {
		v.Set("state", q.State)
	}
	if q.CapabilityID != "" {
		v.Set("capability_id", q.CapabilityID)
	}
	if offset > 0 {
		v.Set("cursor", "offset:"+strconv.Itoa(offset))
	}
	out := ListPage{Offset: offset}
	data, e := c.doJSON(ctx, "list", http.MethodGet, c.daemonURL("/aip/v1/actions", v), nil)
	if e != nil {
		return out, e
	}
	var p listPage
	if err := decodeBody(data, "action_list", func(b []byte) error { p = listPage{}; return json.Unmarshal(b, &p) }); err != nil {
		return out, badReply("list", "an action list", err)
	}
	out.Rows, out.Total, out.Next = p.Actions, p.TotalSize, p.Cursor
	return out, nil
}

// listOffset reads an `offset:<n>` cursor.
func listOffset(cursor string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(cursor, "offset:"))
	return n, err == nil && n >= 0 && strings.HasPrefix(cursor, "offset:")
}

// Tail is the end of the list: its most recently updated rows.
type Tail struct {
	Rows   []model.ActionStatus // oldest update first, as the daemon orders them
	Offset int                  // the list offset of Rows[0]
	End    int                  // where the list ends (the offset after its last row)
	// Note names a fault met on the way (total_size past the last row,
	// cursors going backwards, an end that kept moving); "" = none.
	Note string
}

// ReadTail reads the last n rows (at most pageLimit) of the list q
// filters. hint is where an earlier read found the end (0 = unknown): the
// next read starts there, one request when nothing changed. total_size
// names the last page's offset; when it points past the last row (it lies,
// or the list shrank), the end is found by bisection instead; every step
// is bounded.
func (c *Client) ReadTail(ctx context.Context, q ListQuery, n, hint int) (Tail, error) {
	n = min(max(n, 1), pageLimit)
	off := max(0, hint-n)
	var t Tail
	var last ListPage
	for range maxTailReads {
		p, e := c.listPage(ctx, q, off, n)
		if e != nil {
			return t, ctxErr(ctx, e)
		}
		end := off + len(p.Rows)
		switch {
		case len(p.Rows) == 0 && off > 0:
			// Past the last row: total_size lied, or the list shrank.
			realEnd, e := c.findListEnd(ctx, q, off)
			if e != nil {
				return t, ctxErr(ctx, e)
			}
			if p.Total != realEnd {
				t.Note = fmt.Sprintf("the list's total_size (%d) is past its last row (%d): its end is found by reading pages", p.Total, realEnd)
			}
			off = max(0, realEnd-n)
			continue
		case p.Next == "":
			// The last page. One that holds fewer than n rows although
			// earlier ones exist is read again from n rows before its end.
			if len(p.Rows) < n && off > 0 {
				last, off = p, max(0, end-n)
				continue
			}
			t.Rows, t.Offset, t.End = p.Rows, off, end
			return t, nil
		case p.Total-n > off:
			last, off = p, p.Total-n // trust total_size: the last page
			continue
		}
		// Rows after this page, and total_size does not say where they
		// end: walk on by the cursor, which must move forward.
		k, ok := listOffset(p.Next)
		if !ok || k <= off {
			t.Note = "the list's cursors go backwards (" + oneLine(p.Next, 40) + " after offset:" + strconv.Itoa(off) + "): its tail may be incomplete"
			t.Rows, t.Offset, t.End = p.Rows, off, end
			return t, nil
		}
		last, off = p, max(k, end-n)
	}
	// The end kept moving: keep the last page read.
	if t.Note == "" {
		t.Note = "the list's end kept moving while it was read"
	}
	t.Rows, t.Offset, t.End = last.Rows, last.Offset, last.Offset+len(last.Rows)
	return t, nil
}

// findListEnd bisects for the list's end below off (where a page is
// empty): about log2(off) one-row requests, only when total_size is wrong.
func (c *Client) findListEnd(ctx context.Context, q ListQuery, off int) (int, *Error) {
	lo, hi := 0, off // a row at lo-1 (or lo = 0); none at hi
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		p, e := c.listPage(ctx, q, mid, 1)
		if e != nil {
			return 0, e
		}
		if len(p.Rows) > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < hi {
		p, e := c.listPage(ctx, q, lo, 1)
		if e != nil {
			return 0, e
		}
		if len(p.Rows) > 0 {
			lo = hi
		}
	}
	return lo, nil
}

// ReadState reads every row of one state (a live one: there are few),
// following the offset cursors, at most maxLiveRows. note says when rows
// were left out or the cursors went wrong.
func (c *Client) ReadState(ctx context.Context, q ListQuery) (rows []model.ActionStatus, note string, err error) {
	off := 0
	for {
		p, e := c.listPage(ctx, q, off, pageLimit)
		if e != nil {
			return rows, note, ctxErr(ctx, e)
		}
		rows = append(rows, p.Rows...)
		if p.Next == "" || len(p.Rows) == 0 {
			return rows, note, nil
		}
		if len(rows) >= maxLiveRows {
			return rows, fmt.Sprintf("more than %d actions %s: the first %d shown", maxLiveRows, q.State, len(rows)), nil
		}
		k, ok := listOffset(p.Next)
		if !ok || k <= off {
			return rows, "the list's cursors go backwards (" + oneLine(p.Next, 40) + " after offset:" + strconv.Itoa(off) + ")", nil
		}
		off = k
	}
}

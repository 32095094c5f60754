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
// filters, on by the cursors when a page holds fewer (see ReadRange).
func (c *Client) ListAt(ctx context.Context, q ListQuery, offset, n int) (ListPage, error) {
	p, _, e := c.readRange(ctx, q, offset, offset+max(n, 1))
	return p, ctxErr(ctx, e)
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
	// Partial: Rows may not be the list's last rows (Note says why). A
	// poll shows them with the note; a listing must not print them as if
	// they were the whole tail.
	Partial bool
	// TotalPast: total_size pointed past the last row (the read found the
	// end by other means). A later read of the same list trusts it no
	// more (ReadTailDistrusting): a poll would otherwise pay the search
	// again each time.
	TotalPast bool
}

// ReadTail reads the last n rows (at most pageLimit) of the list q
// filters. hint is where an earlier read found the end (0 = unknown): the
// next read starts there, one request when nothing changed. total_size
// names the last page's offset; when it points past the last row (it lies,
// or the list shrank), the end is found by bisection instead. A page may
// hold fewer rows than asked (protocol §2.1: the cursor says where the
// next begins), so the tail is read on by the cursors to the list's end,
// keeping the last n rows; every step is bounded, and a tail not read
// whole within the bound comes back Partial.
func (c *Client) ReadTail(ctx context.Context, q ListQuery, n, hint int) (Tail, error) {
	return c.readTail(ctx, q, n, hint, false)
}

// ReadTailDistrusting is ReadTail on a list whose total_size an earlier
// read found past its last row (Tail.TotalPast): from hint it follows the
// cursors, never total_size's jumps, which on a daemon whose cursors go on
// to that total cost a search for the end at every read.
func (c *Client) ReadTailDistrusting(ctx context.Context, q ListQuery, n, hint int) (Tail, error) {
	return c.readTail(ctx, q, n, hint, true)
}

func (c *Client) readTail(ctx context.Context, q ListQuery, n, hint int, distrust bool) (Tail, error) {
	n = min(max(n, 1), pageLimit)
	off := max(0, hint-n)
	budget := maxTailReads + n // a page holds at least one row, or ends the list
	reads, end := 0, 0
	var t Tail
	read := func(at int) (ListPage, *Error) {
		reads++
		return c.listPage(ctx, q, at, n)
	}
attempt:
	for reads < budget {
		p, e := read(off)
		if e != nil {
			return t, ctxErr(ctx, e)
		}
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
			// total_size lies: from here on the cursors say where the
			// tail is, never it (a jump back to it would search again).
			t.TotalPast, distrust = true, true
			off = max(0, realEnd-n)
			continue
		case !distrust && p.Next != "" && p.Total-n >= off+len(p.Rows):
			off = p.Total - n // trust total_size: the tail is further on
			continue
		}
		t.Rows = append(t.Rows[:0], p.Rows...)
		end = off + len(p.Rows)
		for p.Next != "" {
			// Rows after this page: read on by its cursor, which must
			// move forward.
			if reads >= budget {
				t.Note = fmt.Sprintf("the list's tail was not read to its end in %d requests", reads)
				break attempt
			}
			next, e := c.pageAfter(ctx, q, p, n, &reads)
			if e != nil {
				return t, ctxErr(ctx, e)
			}
			if next == nil {
				t.Note = "the list's cursors go backwards (" + oneLine(p.Next, 40) + " after offset:" + strconv.Itoa(p.Offset) + "): its tail may be incomplete"
				t.Rows, t.Offset, t.End, t.Partial = lastRows(t.Rows, n), end-min(len(t.Rows), n), end, true
				return t, nil
			}
			p = *next
			if len(p.Rows) == 0 {
				break // the list shrank under the read: it ends here
			}
			t.Rows = lastRows(append(t.Rows, p.Rows...), n)
			end = p.Offset + len(p.Rows)
			if !distrust && p.Next != "" && p.Total-n >= end {
				off = p.Total - n // total_size says where the tail is
				continue attempt
			}
		}
		if len(t.Rows) < n && off > 0 {
			// Fewer rows than asked although earlier ones exist: read
			// again from n rows before the end.
			off = max(0, end-n)
			continue
		}
		t.Offset, t.End = end-len(t.Rows), end
		return t, nil
	}
	// The end kept moving, or the pages were too short to reach it: keep
	// what was read last, and say that it may not be the tail.
	if t.Note == "" {
		t.Note = "the list's end kept moving while it was read"
	}
	t.Offset, t.End, t.Partial = end-len(t.Rows), end, true
	return t, nil
}

// pageAfter reads the page p's cursor names, counting the request; nil
// when the cursor does not move forward (or is not an offset).
func (c *Client) pageAfter(ctx context.Context, q ListQuery, p ListPage, n int, reads *int) (*ListPage, *Error) {
	k, ok := listOffset(p.Next)
	if !ok || k <= p.Offset {
		return nil, nil
	}
	*reads++
	next, e := c.listPage(ctx, q, k, n)
	if e != nil {
		return nil, e
	}
	return &next, nil
}

// lastRows keeps the last n of rows, in the same array.
func lastRows(rows []model.ActionStatus, n int) []model.ActionStatus {
	if len(rows) <= n {
		return rows
	}
	return append(rows[:0], rows[len(rows)-n:]...)
}

// ReadRange reads the rows from offset from to offset to of the list q
// filters (at most pageLimit), by the cursors whatever a page holds
// (protocol §2.1); fewer when the list ends first. note says when the
// cursors went wrong and rows may be missing.
func (c *Client) ReadRange(ctx context.Context, q ListQuery, from, to int) (rows []model.ActionStatus, note string, err error) {
	p, note, e := c.readRange(ctx, q, from, to)
	return p.Rows, note, ctxErr(ctx, e)
}

// readRange is ReadRange as one page: the rows, from's offset, the last
// page's total_size and cursor.
func (c *Client) readRange(ctx context.Context, q ListQuery, from, to int) (ListPage, string, *Error) {
	to = min(to, from+pageLimit)
	reads := 0
	out := ListPage{Offset: from}
	p, e := c.listPage(ctx, q, from, to-from)
	for e == nil {
		out.Rows = append(out.Rows, p.Rows[:max(0, min(len(p.Rows), to-p.Offset))]...)
		out.Total, out.Next = p.Total, p.Next
		if len(p.Rows) == 0 || p.Next == "" || p.Offset+len(p.Rows) >= to {
			return out, "", nil
		}
		var next *ListPage
		next, e = c.pageAfter(ctx, q, p, to-p.Offset-len(p.Rows), &reads)
		if e == nil && next == nil {
			return out, "the list's cursors go backwards (" + oneLine(p.Next, 40) + " after offset:" + strconv.Itoa(p.Offset) + "): rows may be missing", nil
		}
		if next != nil {
			p = *next
		}
	}
	return out, "", e
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

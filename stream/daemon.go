package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"aipwatch/model"
)

// The daemon-wide routes of contract §7 (aip-daemon-behaviour part A §2):
// the action list and the global event log.

// ListQuery filters GET /aip/v1/actions; zero values filter nothing.
type ListQuery struct {
	State        string // one lifecycle state, snake_case
	CapabilityID string // exact match
	// Limit bounds the rows returned in all (0 = every row); pages are read
	// 1000 at a time, following the offset cursor to the end.
	Limit int
}

// listPage is the list route's body.
type listPage struct {
	Actions   []model.ActionStatus `json:"actions"`
	TotalSize int                  `json:"total_size"`
	Cursor    string               `json:"cursor"`
}

// maxListPages bounds the pages of one list read: a daemon whose offset
// cursors never end cannot keep aipwatch reading.
const maxListPages = 1000

// List reads the action list, following its offset paging to the end (or
// to q.Limit rows). The daemon orders rows by updated_at, oldest first.
func (c *Client) List(ctx context.Context, q ListQuery) ([]model.ActionStatus, error) {
	defer c.closeIdle()
	var out []model.ActionStatus
	cursor := ""
	seen := map[string]bool{}
	for range maxListPages {
		v := url.Values{"limit": {strconv.Itoa(pageLimit)}}
		if q.State != "" {
			v.Set("state", q.State)
		}
		if q.CapabilityID != "" {
			v.Set("capability_id", q.CapabilityID)
		}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		data, e := c.doJSON(ctx, "list", http.MethodGet, c.daemonURL("/aip/v1/actions", v), nil)
		if e != nil {
			return out, ctxErr(ctx, e)
		}
		var p listPage
		if err := decodeBody(data, "action_list", func(b []byte) error { p = listPage{}; return json.Unmarshal(b, &p) }); err != nil {
			return out, badReply("list", "an action list", err)
		}
		out = append(out, p.Actions...)
		if q.Limit > 0 && len(out) >= q.Limit {
			return out[:q.Limit], nil
		}
		if p.Cursor == "" || len(p.Actions) == 0 {
			return out, nil
		}
		if seen[p.Cursor] {
			return out, c.clean(&Error{Op: "list", Message: "the list cursors go round in a circle (" + oneLine(p.Cursor, 40) + " again)"})
		}
		seen[p.Cursor] = true
		cursor = p.Cursor
	}
	return out, c.clean(&Error{Op: "list", Message: fmt.Sprintf("more than %d pages", maxListPages)})
}

// daemonURL builds a daemon-wide route's URL under the base URL.
func (c *Client) daemonURL(path string, q url.Values) string {
	u := *c.reqURL
	u.Path = c.reqURL.Path + path
	u.RawPath = ""
	u.RawQuery = q.Encode()
	return u.String()
}

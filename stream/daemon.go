package stream

import (
	"net/url"

	"aipwatch/model"
)

// The daemon-wide routes of design §7 (protocol §2):
// the action list (listtail.go, listpoll.go, listwalk.go: never read whole
// unless asked) and the global event log (globalhead.go, globalfollow.go).

// ListQuery filters GET /aip/v1/actions; zero values filter nothing.
type ListQuery struct {
	State        string // one lifecycle state, snake_case
	CapabilityID string // exact match
}

// listPage is the list route's body.
type listPage struct {
	Actions   []model.ActionStatus `json:"actions"`
	TotalSize int                  `json:"total_size"`
	Cursor    string               `json:"cursor"`
}

// daemonURL builds a daemon-wide route's URL under the base URL.
func (c *Client) daemonURL(path string, q url.Values) string {
	u := *c.reqURL
	u.Path = c.reqURL.Path + path
	u.RawPath = ""
	u.RawQuery = q.Encode()
	return u.String()
}

package sim

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// ---- GET /aip/v1/actions (§2.1) ----

// handleList is action_list_for_actor: rows only for actions with a queue
// record or a stored result (a live synchronous action is not listed),
// states computed without chunks, ordered by updated_at ascending (the
// history first: it settled before any member), offset paging with an
// `offset:<n>` cursor omitted on the last page, limit clamped to 1..1000
// (default 100), exact filters on state and capability_id.
func (f *Fleet) handleList(w http.ResponseWriter, r *http.Request) {
	f.stats.list.Add(1)
	if perr := f.auth.authorize(r); perr != nil {
		f.auth.writeError(w, perr)
		return
	}
	q := r.URL.Query()
	limit := 100
	if q.Has("limit") {
		n, err := strconv.ParseUint(q.Get("limit"), 10, 32)
		if err != nil {
			queryError(w, "limit: invalid digit found in string")
			return
		}
		limit = int(min(max(n, 1), 1000))
	}
	if f.k.ListPageRows > 0 {
		limit = min(limit, f.k.ListPageRows) // fewer rows than asked: the cursor goes on (§2.1)
	}
	offset := 0
	if c := q.Get("cursor"); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "offset:"))
		if !strings.HasPrefix(c, "offset:") || err != nil || n < 0 {
			f.auth.writeError(w, &protoErr{Code: "query.invalid_cursor", Message: "action list cursor must be offset:<n>",
				Category: "permanent", Details: o("cursor", c), Source: runtimeSource()})
			return
		}
		offset = n
	}
	state, capability := q.Get("state"), q.Get("capability_id")
	members := f.memberRows(state, capability)
	f.mu.Lock()
	h := f.hist
	f.mu.Unlock()
	hs := h.selection(state, capability)
	if !ownersMatch(q) {
		members, hs.indices = nil, []int{}
	}
	total := hs.count() + len(members)
	from := min(offset, total)
	to := min(from+limit, total)
	actions := make([]any, 0, to-from)
	for i := from; i < to; i++ {
		if i < hs.count() {
			actions = append(actions, h.row(hs.nth(i)))
		} else {
			actions = append(actions, members[i-hs.count()])
		}
	}
	list := o("actions", actions, "total_size", total+f.k.TotalSizeSkew)
	if to < total {
		next := to
		if f.k.ListCursorsBackwards {
			next = max(0, from-limit)
		}
		list = append(list, kv{"cursor", "offset:" + strconv.Itoa(next)})
	}
	writeJSON(w, http.StatusOK, compact(o("action_list", list)))
}

// sortListRows orders rows as the list does: updated_at ascending as a
// time, a tie broken by action ID (protocol §2.1).
func sortListRows(rows []listRow) {
	slices.SortStableFunc(rows, func(a, b listRow) int {
		if c := a.updated.Compare(b.updated); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
}

// ownersMatch applies the filters session_id, principal_id and tenant_id,
// which the daemon honours (protocol §2.1): no row here has an AIP
// session or a verified tenant (the native edge has none), and every row
// is the native principal's, so a session or tenant filter keeps no row
// and a principal filter keeps all or none.
func ownersMatch(q url.Values) bool {
	return q.Get("session_id") == "" && q.Get("tenant_id") == "" &&
		(q.Get("principal_id") == "" || q.Get("principal_id") == nativePrincipal)
}

// memberRows are the members' listed rows (and the reads they served,
// open point 5), ordered by updated_at as a time (the spec's "Also" list: a
// string sort misorders sub-second times).
func (f *Fleet) memberRows(state, capability string) []obj {
	var rows []listRow
	for _, s := range f.members {
		s.mu.Lock()
		recorded := s.recordedLocked()
		st := s.stateLocked(false)
		updated := s.updatedAt
		s.mu.Unlock()
		if recorded {
			v, _, _ := s.statusObj(s.ActionID(), false)
			rows = append(rows, listRow{id: s.ActionID(), v: v, updated: updated, state: st, capability: "cap:hermes_agent:" + simEndpoint + ":" + s.sc.operation})
		}
		rows = append(rows, s.readRows()...)
	}
	rows = slices.DeleteFunc(rows, func(r listRow) bool {
		return (state != "" && state != r.state) || (capability != "" && capability != r.capability)
	})
	sortListRows(rows)
	out := make([]obj, len(rows))
	for i := range rows {
		out[i] = rows[i].v
	}
	return out
}

// histSelection is the history's rows a list query keeps, in list order,
// without listing them: arithmetic for a state filter, an index only for
// the rarer capability filter.
type histSelection struct {
	h       *history
	state   string
	indices []int // nil unless a capability filter applies
}

func (h *history) selection(state, capability string) histSelection {
	sel := histSelection{h: h, state: state}
	if state != "" && len(histPositions[state]) == 0 {
		sel.indices = []int{} // a state no history action is in
		return sel
	}
	if capability == "" {
		return sel
	}
	sel.indices = []int{}
	for k := range h.count(state) {
		if a := h.nth(state, k); "cap:hermes_agent:"+simEndpoint+":"+h.operation(a) == capability {
			sel.indices = append(sel.indices, a)
		}
	}
	return sel
}

func (s histSelection) count() int {
	if s.indices != nil {
		return len(s.indices)
	}
	return s.h.count(s.state)
}

func (s histSelection) nth(k int) int {
	if s.indices != nil {
		return s.indices[k]
	}
	return s.h.nth(s.state, k)
}

// ---- a history action's own routes ----

// histServer is a history action opened through its own routes.
type histServer struct {
	a int
	s *Server
}

// histOpenMax bounds the history actions kept open at once.
const histOpenMax = 8

// histRoute is the handler of a history action's own routes (status,
// events, chunks, result, cancel): a settled run of the scenario its
// state and capability stand for (history.go scenario), made when first
// read and kept among the last few; nil for an ID the history does not
// hold.
func (f *Fleet) histRoute(id string) http.Handler {
	f.mu.Lock()
	a := f.hist.index(id)
	if a < 0 {
		f.mu.Unlock()
		return nil
	}
	for _, h := range f.histOpen {
		if h.a == a {
			f.mu.Unlock()
			return h.s.Handler()
		}
	}
	name, mode := f.hist.scenario(a)
	past := f.hist.past(a)
	f.mu.Unlock()
	s, err := New(name, Knobs{Finished: true, Mode: mode, ActionID: id, Token: f.k.Token, Past: past})
	if err != nil {
		return nil
	}
	f.mu.Lock()
	f.histOpen = append(f.histOpen, histServer{a, s})
	var evicted []histServer
	if n := len(f.histOpen) - histOpenMax; n > 0 {
		evicted = slices.Clone(f.histOpen[:n])
		f.histOpen = slices.Delete(f.histOpen, 0, n)
	}
	f.mu.Unlock()
	for _, e := range evicted {
		go e.s.Close() // after the requests it still serves
	}
	return s.Handler()
}

// ---- counters (no daemon behaviour: what a test or a benchmark reads) ----

type fleetStats struct {
	list, events, eventBytes atomic.Int64
}

// FleetStats counts what clients asked of the daemon-wide routes.
type FleetStats struct {
	ListRequests  int64 `json:"list_requests"`
	EventRequests int64 `json:"event_requests"`
	EventBytes    int64 `json:"event_bytes"` // global-log body bytes written
}

// Stats are the counts so far.
func (f *Fleet) Stats() FleetStats {
	return FleetStats{ListRequests: f.stats.list.Load(), EventRequests: f.stats.events.Load(), EventBytes: f.stats.eventBytes.Load()}
}

// HistoryBytes is about the size of the global log's history as a client
// reads it (the events' JSON, no kinds filter): what replaying it costs.
// Events of one shape differ only in a few digits, so it renders at most
// 100,000 evenly spaced ones and scales.
func (f *Fleet) HistoryBytes() int64 {
	f.mu.Lock()
	h := f.hist
	f.mu.Unlock()
	if h.events == 0 {
		return 0
	}
	samples := min(h.events, 100_000)
	var n int64
	var b []byte
	for i := range samples {
		b, _, _ = h.appendEvent(b[:0], i*h.events/samples)
		n += int64(len(b))
	}
	return n * h.events / samples
}

// handleStats is GET /sim/stats: the counters as JSON, and with
// ?history=true HistoryBytes too (no daemon behaviour; cmd/aipdsim serves
// it for scripts/bench-fleet.sh).
func (f *Fleet) handleStats(w http.ResponseWriter, r *http.Request) {
	st := f.Stats()
	v := o("list_requests", st.ListRequests, "event_requests", st.EventRequests, "event_bytes", st.EventBytes)
	if r.URL.Query().Get("history") == "true" {
		v = append(v, kv{"history_bytes", f.HistoryBytes()})
	}
	writeJSON(w, http.StatusOK, compact(v))
}

// countingWriter counts the body bytes of a global-log reply.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// Unwrap lets http.ResponseController flush through it.
func (c countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

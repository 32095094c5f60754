package sim

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ---- GET /aip/v1/events (§2.2) ----

// globalEvent is one member's event in the merged log.
type globalEvent struct {
	s *Server
	e eventRec
}

// memberLog is the members' part of the global log: every member's events
// in the order they happened, less what a restart dropped.
func (f *Fleet) memberLog() []globalEvent {
	var all []globalEvent
	for _, s := range f.members {
		s.mu.Lock()
		for _, e := range s.events {
			all = append(all, globalEvent{s, e})
		}
		s.mu.Unlock()
	}
	slices.SortStableFunc(all, func(a, b globalEvent) int { return a.e.at.Compare(b.e.at) })
	f.mu.Lock()
	floor := min(f.liveFloor, len(all))
	f.mu.Unlock()
	return all[floor:]
}

// logView is one read of the global log: the history's events, then the
// members'; positions are evt_cursor_<n> (protocol §2.2, B9).
type logView struct {
	h            history
	members      []globalEvent
	tenantScoped bool // FleetKnobs.TenantScoped
}

func (f *Fleet) logView() logView {
	members := f.memberLog()
	f.mu.Lock()
	h := f.hist
	f.mu.Unlock()
	return logView{h: h, members: members, tenantScoped: f.k.TenantScoped}
}

// head is the position after the last event.
func (v *logView) head() int64 { return v.h.events + int64(len(v.members)) }

// tenantless are the kinds of event that carry no data.identity, so a
// tenant-scoped reader never gets them (FleetKnobs.TenantScoped): the
// runtime's chunk Event {action_id, sequence, kind}, the result and cancel
// Events, and the worker's (protocol §2.2). With a verified tenant the
// global log is read through the event store's stream_tenant_checked, which
// keeps an event only when its data.identity.tenant.id is the reader's
// tenant (getaip/core crates/aip-storage-postgres/src/lib.rs
// stream_tenant_checked, EventPageScope::Tenant). Every event the simulator
// writes is one of them. Whether the next cursor then passes the hidden
// events is not read ([I]): here it does.
var tenantless = map[string]bool{"aip.stream.chunk": true, "aip.action.result": true, "aip.action.cancelled": true,
	"aip.action.worker_result": true, "aip.action.async_result": true, "aip.action.retry_scheduled": true}

// page calls emit for at most limit events of the kinds (none = all) from
// position off, and returns the position after the last one read. A
// tenant-scoped view skips the tenantless kinds; the position still moves
// past them.
func (v *logView) page(off int64, limit int, kinds []string, emit func(kind, id string, js []byte) error) (int64, error) {
	want := func(k string) bool {
		return (len(kinds) == 0 || slices.Contains(kinds, k)) && !(v.tenantScoped && tenantless[k])
	}
	chunks, results := want("aip.stream.chunk"), want("aip.action.result")
	var b []byte
	n := 0
	for off < v.h.events && n < limit {
		switch {
		case !chunks && !results:
			off = v.h.events // the history holds no other kind
			continue
		case !chunks:
			// Straight to this action's result, its last event.
			first, count := v.h.eventsOf(v.h.actionAt(off))
			off = first + count - 1
		case !results && v.h.kindAt(off) == "aip.action.result":
			off++
			continue
		}
		var id, kind string
		b, id, kind = v.h.appendEvent(b[:0], off)
		off++
		n++
		if err := emit(kind, id, b); err != nil {
			return off, err
		}
	}
	for off < v.head() && n < limit {
		ge := &v.members[off-v.h.events]
		off++
		if !want(ge.e.kind) {
			continue
		}
		b = ge.s.appendEventJSON(b[:0], &ge.e)
		n++
		if err := emit(ge.e.kind, ge.s.eventID(&ge.e), b); err != nil {
			return off, err
		}
	}
	return off, nil
}

// RestartLog stands for the daemon restarted on a new, empty store: the
// history's actions and events are gone and the global log's positions
// start again from 0 with the members' next events (the list keeps the
// members, which go on running).
func (f *Fleet) RestartLog() {
	n := len(f.memberLog())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.liveFloor += n
	f.hist = newHistory(History{}, time.Now())
	f.restarts++
}

// handleEvents is the global log: a JSON page, or with follow=true an SSE
// stream of event frames and cursor frames that never ends with a terminal
// frame. It needs the scope events:read:any (FleetKnobs.GlobalEvents).
func (f *Fleet) handleEvents(w http.ResponseWriter, r *http.Request) {
	f.stats.events.Add(1)
	w = countingWriter{w, &f.stats.eventBytes}
	if perr := f.auth.authorize(r); perr != nil {
		f.auth.writeError(w, perr)
		return
	}
	if !f.k.GlobalEvents {
		f.auth.writeError(w, &protoErr{Code: "auth.not_authorized", Message: "missing scope events:read:any",
			Category: "auth", Source: o("component", "aip.server.native_http")})
		return
	}
	q := r.URL.Query()
	limit := 100
	if n, err := strconv.ParseUint(q.Get("limit"), 10, 32); err == nil {
		limit = int(min(max(n, 1), 1000))
	}
	var kinds []string
	for _, k := range strings.Split(q.Get("kinds")+","+q.Get("kind"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			kinds = append(kinds, k)
		}
	}
	cur := q.Get("cursor")
	if cur == "" {
		cur = strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	}
	var off int64
	if cur != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(cur, "evt_cursor_"), 10, 64)
		if !strings.HasPrefix(cur, "evt_cursor_") || err != nil || n < 0 {
			f.auth.writeError(w, &protoErr{Code: "query.invalid_cursor", Message: "invalid event cursor",
				Category: "permanent", Details: o("cursor", cur, "expected_prefix", "evt_cursor_"), Source: runtimeSource()})
			return
		}
		if f.k.EventCursors == CursorsPostgres {
			// The Postgres store takes only its own pg_evt_<seq> (A2).
			f.auth.writeError(w, &protoErr{Code: "query.invalid_cursor", Message: "event cursor `" + cur + "` must use `pg_evt_<seq>` format",
				Category: "permanent", Details: o("cursor", cur, "expected_prefix", "pg_evt_"), Source: runtimeSource()})
			return
		}
		off = n
	}
	if v := f.logView(); off > v.head() {
		if !f.k.PastHeadEmpty {
			// A cursor past the end of the log (open point 9, answer).
			f.auth.writeError(w, expiredCursor(cur, int(v.head())))
			return
		}
		off = v.head()
	}
	if q.Get("follow") != "true" {
		v := f.logView()
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriter(w)
		_, _ = bw.WriteString(`{"event_stream":{"events":[`)
		first := true
		next, _ := v.page(off, limit, kinds, func(_, _ string, js []byte) error {
			if !first {
				_ = bw.WriteByte(',')
			}
			first = false
			_, err := bw.Write(js)
			return err
		})
		_, _ = bw.WriteString(`],"next_cursor":"evt_cursor_` + strconv.FormatInt(next, 10) + `"}}`)
		_ = bw.Flush()
		return
	}
	f.followLog(w, r, off, limit, kinds)
}

// followLog is the SSE loop of the global follow: a page of event frames,
// a cursor frame after a page that moved, a sleep after an empty page.
func (f *Fleet) followLog(w http.ResponseWriter, r *http.Request, off int64, limit int, kinds []string) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(f.ctx, cancel)()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fk := Knobs{KeepaliveInterval: f.k.KeepaliveInterval}
	fw := &frameWriter{ctx: ctx, w: w, rc: http.NewResponseController(w), k: &fk, last: time.Now()}
	if fw.flush() != nil {
		return
	}
	f.mu.Lock()
	gen := f.restarts
	f.mu.Unlock()
	for {
		f.mu.Lock()
		restarted := f.restarts != gen
		f.mu.Unlock()
		if restarted {
			return // the daemon that served this connection is gone
		}
		v := f.logView()
		emitted := 0
		next, err := v.page(off, limit, kinds, func(kind, id string, js []byte) error {
			emitted++
			return fw.item(kind, "event", js, id)
		})
		if err != nil {
			return
		}
		if next != off {
			c := "evt_cursor_" + strconv.FormatInt(next, 10)
			if fw.frame("aip.stream.cursor", `{"next_cursor":"`+c+`"}`, c) != nil {
				return
			}
		}
		if fw.flush() != nil {
			return
		}
		if emitted == 0 && fw.idle(f.k.PollInterval, true) != nil {
			return
		}
		off = next
	}
}

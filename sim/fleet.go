package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fleet is a simulated daemon hosting several actions at once, for the
// operator console: each action is one Server (its own scenario, mode and
// knobs) behind one listener, and the fleet adds the daemon-wide routes
// (aip-daemon-behaviour part A §2): the action list and the global event
// log.
type Fleet struct {
	k       FleetKnobs
	members []*Server
	byID    map[string]*Server
	auth    *Server // the native bearer middleware of the daemon

	mu        sync.Mutex
	srv       *http.Server
	serveDone chan struct{}
	url       string
	ctx       context.Context
	stop      context.CancelFunc
}

// FleetKnobs are the daemon-wide settings of a Fleet.
type FleetKnobs struct {
	// Token is the bearer token every route requires ("" = insecure
	// development mode).
	Token string
	// GlobalEvents grants the token the scope events:read:any, which the
	// global event log needs on the native edge (§2.2); without it that
	// route answers 401 auth.not_authorized.
	GlobalEvents bool
	// PollInterval and KeepaliveInterval pace the global follow (0 = 500 ms
	// and 15 s, as the action follow).
	PollInterval, KeepaliveInterval time.Duration
}

// Member is one action of a Fleet: a scenario with its knobs (Knobs.ActionID
// names it; Token is the fleet's).
type Member struct {
	Scenario string
	Knobs    Knobs
}

// NewFleet builds a fleet; nothing runs until Start.
func NewFleet(k FleetKnobs, members ...Member) (*Fleet, error) {
	if len(members) == 0 {
		return nil, errors.New("sim: a fleet needs at least one action")
	}
	if k.PollInterval <= 0 {
		k.PollInterval = 500 * time.Millisecond
	}
	if k.KeepaliveInterval <= 0 {
		k.KeepaliveInterval = 15 * time.Second
	}
	f := &Fleet{k: k, byID: map[string]*Server{}}
	f.ctx, f.stop = context.WithCancel(context.Background())
	for _, m := range members {
		kn := m.Knobs
		kn.Token = k.Token
		s, err := New(m.Scenario, kn)
		if err != nil {
			f.Close()
			return nil, err
		}
		if _, dup := f.byID[s.ActionID()]; dup {
			f.Close()
			return nil, errors.New("sim: two fleet actions share the ID " + s.ActionID())
		}
		f.members = append(f.members, s)
		f.byID[s.ActionID()] = s
	}
	f.auth = f.members[0]
	return f, nil
}

// ConsoleFleet is the demo of the console: mixed modes, states and
// capabilities, one action streaming synchronously (visible only on the
// global event log until it settles), one worker whose lease expired.
func ConsoleFleet(speed float64) (*Fleet, error) {
	return NewFleet(FleetKnobs{GlobalEvents: true},
		Member{"chat-tools", Knobs{Speed: speed, ActionID: "act_sim_console_sync_chat"}},
		Member{"long", Knobs{Speed: speed, ActionID: "act_sim_console_sync_long"}},
		Member{"async-long", Knobs{Speed: speed, ActionID: "act_sim_console_async_long"}},
		Member{"responses-tools", Knobs{Speed: speed / 2, Mode: ModeAsync, ActionID: "act_sim_console_async_responses"}},
		Member{"async-long", Knobs{Speed: speed, ActionID: "act_sim_console_stuck_worker", LeaseExpired: true}},
		Member{"chat-error", Knobs{Finished: true, ActionID: "act_sim_console_done_chat_error"}},
		Member{"async-dead-lettered", Knobs{Finished: true, ActionID: "act_sim_console_dead_lettered"}},
		Member{"async-long", Knobs{Finished: true, ActionID: "act_sim_console_cancelled"}},
		Member{"responses-tools", Knobs{Finished: true, ActionID: "act_sim_console_done_responses"}},
	)
}

// Actions are the hosted actions, in the order given.
func (f *Fleet) Actions() []*Server { return slices.Clone(f.members) }

// Start listens on 127.0.0.1:0, starts every action and serves.
func (f *Fleet) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /aip/v1/actions", f.handleList)
	mux.HandleFunc("GET /aip/v1/events", f.handleEvents)
	mux.HandleFunc("POST /aip/v1/actions", f.handleSubmit)
	mux.HandleFunc("POST /aip/v1/messages", f.handleSubmit)
	handlers := map[string]http.Handler{}
	for _, s := range f.members {
		handlers[s.ActionID()] = s.Handler()
	}
	mux.HandleFunc("/aip/v1/actions/{id}/", func(w http.ResponseWriter, r *http.Request) {
		f.route(handlers, w, r)
	})
	mux.HandleFunc("/aip/v1/actions/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.route(handlers, w, r)
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	f.serveDone = make(chan struct{})
	f.url = "http://" + ln.Addr().String()
	srv, done := f.srv, f.serveDone
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return f.url, nil
}

// route hands an action's own routes to its Server; an ID the daemon does
// not know goes to the first one, which answers for unknown IDs as aipd
// does.
func (f *Fleet) route(handlers map[string]http.Handler, w http.ResponseWriter, r *http.Request) {
	h, ok := handlers[r.PathValue("id")]
	if !ok {
		h = handlers[f.members[0].ActionID()]
	}
	h.ServeHTTP(w, r)
}

// URL is the base URL after Start.
func (f *Fleet) URL() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.url
}

// Close stops serving and every action.
func (f *Fleet) Close() {
	f.stop()
	f.mu.Lock()
	srv, done := f.srv, f.serveDone
	f.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
		<-done
	}
	for _, s := range f.members {
		s.Close()
	}
}

// ---- GET /aip/v1/actions (§2.1) ----

// handleList is action_list_for_actor: rows only for actions with a queue
// record or a stored result (a live synchronous action is not listed),
// states computed without chunks, ordered by updated_at ascending, offset
// paging with an `offset:<n>` cursor omitted on the last page, limit clamped
// to 1..1000 (default 100), exact filters on state and capability_id.
func (f *Fleet) handleList(w http.ResponseWriter, r *http.Request) {
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
	var rows []listRow
	for _, s := range f.members {
		s.mu.Lock()
		recorded := s.recordedLocked()
		state := s.stateLocked(false)
		updated := s.updatedAt
		s.mu.Unlock()
		if recorded {
			v, _, _ := s.statusObj(s.ActionID(), false)
			rows = append(rows, listRow{v: v, updated: updated, state: state, capability: "cap:hermes_agent:" + simEndpoint + ":" + s.sc.operation})
		}
		rows = append(rows, s.readRows()...) // open point 5
	}
	rows = slices.DeleteFunc(rows, func(r listRow) bool {
		return (q.Get("state") != "" && q.Get("state") != r.state) || (q.Get("capability_id") != "" && q.Get("capability_id") != r.capability)
	})
	// Ordered by updated_at as a time (the spec's "Also" list: a string
	// sort misorders sub-second times).
	slices.SortStableFunc(rows, func(a, b listRow) int { return a.updated.Compare(b.updated) })
	total := len(rows)
	from := min(offset, total)
	to := min(from+limit, total)
	actions := make([]any, 0, to-from)
	for _, rw := range rows[from:to] {
		actions = append(actions, rw.v)
	}
	list := o("actions", actions, "total_size", total)
	if to < total {
		list = append(list, kv{"cursor", "offset:" + strconv.Itoa(to)})
	}
	writeJSON(w, http.StatusOK, compact(o("action_list", list)))
}

// listRow is one row of the action list and what it is filtered and
// ordered by.
type listRow struct {
	v          obj
	updated    time.Time
	state      string
	capability string
}

// handleSubmit hands a submission to the Server hosting its action ID; any
// other ID (a read's own new ID) goes to the first one, which answers
// reads for the whole daemon.
func (f *Fleet) handleSubmit(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	var env struct {
		Body struct {
			Action struct {
				ID string `json:"id"`
			} `json:"action"`
		} `json:"body"`
	}
	_ = json.Unmarshal(raw, &env)
	target := f.members[0]
	for _, s := range f.members {
		if s.ActionID() == env.Body.Action.ID {
			target = s
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	target.Handler().ServeHTTP(w, r)
}

// ---- GET /aip/v1/events (§2.2) ----

// globalEvent is one event of the merged log.
type globalEvent struct {
	s *Server
	e eventRec
}

// log is the daemon's global event log: every action's events in the order
// they happened; its cursors are evt_cursor_<offset>.
func (f *Fleet) log() []globalEvent {
	var all []globalEvent
	for _, s := range f.members {
		s.mu.Lock()
		for _, e := range s.events {
			all = append(all, globalEvent{s, e})
		}
		s.mu.Unlock()
	}
	slices.SortStableFunc(all, func(a, b globalEvent) int { return a.e.at.Compare(b.e.at) })
	return all
}

// handleEvents is the global log: a JSON page, or with follow=true an SSE
// stream of event frames and cursor frames that never ends with a terminal
// frame. It needs the scope events:read:any (FleetKnobs.GlobalEvents).
func (f *Fleet) handleEvents(w http.ResponseWriter, r *http.Request) {
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
	off := 0
	if cur != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(cur, "evt_cursor_"))
		if !strings.HasPrefix(cur, "evt_cursor_") || err != nil || n < 0 {
			f.auth.writeError(w, &protoErr{Code: "query.invalid_cursor", Message: "invalid event cursor",
				Category: "permanent", Details: o("cursor", cur, "expected_prefix", "evt_cursor_"), Source: runtimeSource()})
			return
		}
		off = n
	}
	page := func(off int) ([]globalEvent, int) {
		all := f.log()
		var out []globalEvent
		i := min(off, len(all))
		for ; i < len(all) && len(out) < limit; i++ {
			if len(kinds) == 0 || slices.Contains(kinds, all[i].e.kind) {
				out = append(out, all[i])
			}
		}
		return out, i
	}
	if q.Get("follow") != "true" {
		evs, next := page(off)
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriter(w)
		_, _ = bw.WriteString(`{"event_stream":{"events":[`)
		for i, ge := range evs {
			if i > 0 {
				_ = bw.WriteByte(',')
			}
			_, _ = bw.Write(ge.s.appendEventJSON(nil, &ge.e))
		}
		_, _ = bw.WriteString(`],"next_cursor":"evt_cursor_` + strconv.Itoa(next) + `"}}`)
		_ = bw.Flush()
		return
	}
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
	for {
		evs, next := page(off)
		for _, ge := range evs {
			fw.scratch = ge.s.appendEventJSON(fw.scratch[:0], &ge.e)
			if fw.item(ge.e.kind, "event", fw.scratch, ge.s.eventID(&ge.e)) != nil {
				return
			}
		}
		if next != off {
			c := "evt_cursor_" + strconv.Itoa(next)
			if fw.frame("aip.stream.cursor", `{"next_cursor":"`+c+`"}`, c) != nil {
				return
			}
		}
		if fw.flush() != nil {
			return
		}
		if len(evs) == 0 && fw.idle(f.k.PollInterval, true) != nil {
			return
		}
		off = next
	}
}

package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Fleet is a simulated daemon hosting several actions at once, for the
// operator console: each action is one Server (its own scenario, mode and
// knobs) behind one listener, and the fleet adds the daemon-wide routes
// (protocol §2): the action list and the global event
// log. "Fleet" here means a daemon of many actions; the connector-host
// deployment is TopologyFleet (topology.go), on which a Fleet may run too
// (FleetKnobs.Topology).
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
	// The settled past (history.go) and what a restart with a new store
	// left of the log: members' events before liveFloor are gone.
	hist      history
	liveFloor int
	restarts  int // RestartLog calls: a follow ends at the next
	// Opened history actions, newest last (histRoute).
	histOpen []histServer

	stats fleetStats
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
	// History is the settled past before the members (history.go): the
	// list's first rows and the global log's first events.
	History History
	// EventCursors is the global log's cursor store: CursorsMemory (the
	// default), or CursorsPostgres, which refuses every cursor it is given
	// back (protocol §10.2): a head seek is refused.
	EventCursors string
	// PastHeadEmpty answers a global-log cursor past the head with an
	// empty page (follow: frames from the head) and the head's cursor,
	// instead of 400 stream.cursor_expired: the other reading of the
	// spec's open point 9, which the daemon's source ruled out; kept so
	// that a client handles both.
	PastHeadEmpty bool

	// Faults no daemon is known to have, for the client to survive:
	// TotalSizeSkew is added to every list page's total_size (a total
	// that lies); ListCursorsBackwards makes every list page's cursor
	// point before the page instead of after it.
	TotalSizeSkew        int
	ListCursorsBackwards bool
	// ListPageRows caps every list page at this many rows whatever the
	// limit asked (0 = the limit): a proxy, or a daemon that clamps lower,
	// within protocol §2.1, where the page's cursor says where the next
	// one begins.
	ListPageRows int

	// Topology is every member's deployment (Knobs.Topology): "" keeps each
	// member's own, TopologyInProcess or TopologyFleet sets all of them. A
	// History is of the in-process deployment only (its log holds chunks).
	Topology string
	// TenantScoped: the reader's token is bound to a verified tenant, and
	// the global log is read through the runtime's tenant check, which
	// keeps only events whose data.identity.tenant.id matches: chunk,
	// result, cancel and worker events carry none, so it serves none of
	// them (fleet_log.go). Set on every member (Knobs.TenantScoped); a
	// member's own TenantScoped sets it here too. The list and each
	// action's own routes are unchanged.
	TenantScoped bool
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
	if k.EventCursors == "" {
		k.EventCursors = CursorsMemory
	}
	if k.EventCursors != CursorsMemory && k.EventCursors != CursorsPostgres {
		return nil, errors.New("sim: EventCursors must be memory or postgres")
	}
	if k.Topology != "" && k.Topology != TopologyInProcess && k.Topology != TopologyFleet {
		return nil, errors.New("sim: Topology must be in-process or fleet")
	}
	for _, m := range members {
		k.TenantScoped = k.TenantScoped || m.Knobs.TenantScoped // the reader's token: daemon-wide
	}
	fleetTopology := k.Topology == TopologyFleet
	for _, m := range members {
		fleetTopology = fleetTopology || (k.Topology == "" && m.Knobs.Topology == TopologyFleet)
	}
	if fleetTopology && (k.History.Actions > 0 || k.History.Events > 0) {
		return nil, errors.New("sim: a History models the in-process deployment only")
	}
	f := &Fleet{k: k, byID: map[string]*Server{}, hist: newHistory(k.History, time.Now())}
	f.ctx, f.stop = context.WithCancel(context.Background())
	for _, m := range members {
		kn := m.Knobs
		kn.Token = k.Token
		kn.TenantScoped = k.TenantScoped
		if k.Topology != "" {
			kn.Topology = k.Topology
		}
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
// Its settled actions ran before it started, each at a pace of its own
// (Knobs.Past), so that their reviews, stats and the pulse read a first
// token and a duration. Its members are ConsoleMembers, for a daemon of
// other FleetKnobs (a token, a topology: cmd/aipdsim).
func ConsoleFleet(speed float64) (*Fleet, error) {
	return NewFleet(FleetKnobs{GlobalEvents: true}, ConsoleMembers(speed)...)
}

// ConsoleMembers are the actions of ConsoleFleet.
func ConsoleMembers(speed float64) []Member {
	now := time.Now()
	past := func(pace float64, think time.Duration) PastRun { return PastRun{End: now, Pace: pace, Think: think} }
	return []Member{
		{"chat-tools", Knobs{Speed: speed, ActionID: "act_sim_console_sync_chat"}},
		{"long", Knobs{Speed: speed, ActionID: "act_sim_console_sync_long"}},
		{"async-long", Knobs{Speed: speed, ActionID: "act_sim_console_async_long"}},
		{"responses-tools", Knobs{Speed: speed / 2, Mode: ModeAsync, ActionID: "act_sim_console_async_responses"}},
		{"async-long", Knobs{Speed: speed, ActionID: "act_sim_console_stuck_worker", LeaseExpired: true}},
		{"chat-error", Knobs{Finished: true, ActionID: "act_sim_console_done_chat_error", Past: past(1.2, 450*time.Millisecond)}},
		{"async-dead-lettered", Knobs{Finished: true, ActionID: "act_sim_console_dead_lettered", Past: past(2, 1200*time.Millisecond)}},
		{"async-long", Knobs{Finished: true, ActionID: "act_sim_console_cancelled", Past: past(1, 300*time.Millisecond)}},
		{"responses-tools", Knobs{Finished: true, ActionID: "act_sim_console_done_responses", Past: past(3, 2*time.Second)}},
	}
}

// ProductionFleet stands for a daemon that has run for a while: the
// settled history h (generated when read, history.go) before two live
// actions, one synchronous streaming (seen only on the global log until it
// settles, §2.1) and one async running. The live IDs are ProductionLive,
// the members ProductionMembers.
func ProductionFleet(speed float64, h History) (*Fleet, error) {
	return NewFleet(FleetKnobs{GlobalEvents: true, History: h}, ProductionMembers(speed)...)
}

// ProductionMembers are the live actions of ProductionFleet.
func ProductionMembers(speed float64) []Member {
	return []Member{
		{"long", Knobs{Speed: speed, ActionID: ProductionLive[0]}},
		{"async-long", Knobs{Speed: speed, ActionID: ProductionLive[1]}},
	}
}

// ConnectorHostFleet is a daemon of several actions on TopologyFleet (the
// released getaip-server reaching Hermes through a connector host,
// topology.go), for a demo of that deployment: two streaming submissions
// whose chunks are recorded live (unknown without include_chunks, missing
// from the list until they settle), an async Chat turn and a sync
// Responses turn that record no chunk (their text arrives with the result,
// in output.events), an async action running until cancelled with no chunk
// ever, and two settled ones from before it started (Knobs.Past): a Chat
// turn cut by its length (finish length: partial from its result alone)
// and a complete one. tenantScoped makes the reader's token a tenant's
// (FleetKnobs.TenantScoped): the global log then serves none of their
// chunk, result or cancel events. The IDs are ConnectorHostActions, the
// members ConnectorHostMembers.
func ConnectorHostFleet(speed float64, tenantScoped bool) (*Fleet, error) {
	return NewFleet(FleetKnobs{GlobalEvents: true, Topology: TopologyFleet, TenantScoped: tenantScoped}, ConnectorHostMembers(speed)...)
}

// ConnectorHostMembers are the actions of ConnectorHostFleet. Their own
// knobs name no topology: FleetKnobs.Topology sets it, so they run
// in-process in a Fleet that does not.
func ConnectorHostMembers(speed float64) []Member {
	now := time.Now()
	past := func(pace float64, think time.Duration) PastRun { return PastRun{End: now, Pace: pace, Think: think} }
	ids := ConnectorHostActions
	return []Member{
		{"chat-tools", Knobs{Speed: speed, Mode: ModeStreaming, ActionID: ids[0]}},
		{"long", Knobs{Speed: speed, Mode: ModeStreaming, ActionID: ids[1]}},
		{"chat-tools", Knobs{Speed: speed, Mode: ModeAsync, ActionID: ids[2]}},
		{"responses-tools", Knobs{Speed: speed / 2, Mode: ModeSync, ActionID: ids[3]}},
		{"async-long", Knobs{Speed: speed, ActionID: ids[4]}},
		{"chat-length", Knobs{Finished: true, Mode: ModeAsync, ActionID: ids[5], Past: past(1.5, 600*time.Millisecond)}},
		{"chat-tools", Knobs{Finished: true, Mode: ModeSync, ActionID: ids[6], Past: past(1, 400*time.Millisecond)}},
	}
}

// ConnectorHostActions are the actions of ConnectorHostFleet, in order:
// streaming Chat, streaming endless, async Chat, sync Responses, async
// endless, settled async cut by length, settled sync complete.
var ConnectorHostActions = [7]string{"act_sim_host_streaming_chat", "act_sim_host_streaming_long",
	"act_sim_host_async_chat", "act_sim_host_sync_responses", "act_sim_host_async_long",
	"act_sim_host_done_length", "act_sim_host_done_chat"}

// ProductionLive are the live actions of ProductionFleet: the synchronous
// stream, then the async one.
var ProductionLive = [2]string{"act_sim_live_sync_stream", "act_sim_live_async_worker"}

// Actions are the hosted actions, in the order given.
func (f *Fleet) Actions() []*Server { return slices.Clone(f.members) }

// Start listens on 127.0.0.1:0, starts every action and serves.
func (f *Fleet) Start() (string, error) { return f.Listen("127.0.0.1:0") }

// Listen listens on addr, starts every action and serves; it returns the
// base URL.
func (f *Fleet) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /aip/v1/actions", f.handleList)
	mux.HandleFunc("GET /aip/v1/events", f.handleEvents)
	mux.HandleFunc("POST /aip/v1/actions", f.handleSubmit)
	mux.HandleFunc("POST /aip/v1/messages", f.handleSubmit)
	mux.HandleFunc("GET /sim/stats", f.handleStats)
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
		h = f.histRoute(r.PathValue("id"))
	}
	if h == nil {
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
	f.mu.Lock()
	opened := f.histOpen
	f.histOpen = nil
	f.mu.Unlock()
	for _, h := range opened {
		h.s.Close()
	}
}

// listRow is one row of the action list and what it is filtered and
// ordered by.
type listRow struct {
	id         string // the action's, which breaks a tie of updated_at
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

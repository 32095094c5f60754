// Package sim is an in-process fake of the AIP daemon (aipd) hosting one
// action that runs a scripted Hermes turn. It speaks the daemon's native
// HTTP routes over real HTTP, so the client can be tested and demoed without
// an aipd. See README.md.
package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Knobs tune and disturb the simulator. They combine freely. The zero value
// is a faithful, undisturbed daemon whose script runs instantly (Speed 0);
// use Speed 1 for demo pacing.
type Knobs struct {
	// Token, when set, is the native bearer token every /aip/v1 route
	// requires.
	Token string
	// Speed scales the script's pacing: 1 is demo pacing, 2 twice as fast,
	// 0 instant (the whole script is appended when the server starts).
	Speed float64
	// PollInterval is the follow loop's sleep after an empty page (0 = 500 ms).
	PollInterval time.Duration
	// KeepaliveInterval is the idle time before a ": keep-alive" comment
	// (0 = 15 s).
	KeepaliveInterval time.Duration

	// DropAfterFrames closes every follow connection abruptly after it has
	// written this many frames (keep-alives do not count).
	DropAfterFrames int
	// CutFrame, with DropAfterFrames, writes only the first half of the
	// last frame before the connection is closed.
	CutFrame bool
	// RepeatFrames re-sends a page's event and chunk frames once, right
	// after its cursor frame.
	RepeatFrames bool
	// ExpireCursors answers the first N follow requests that carry a cursor
	// with stream.cursor_expired.
	ExpireCursors int
	// KeepaliveOnly holds data back once, right after the first cursor
	// frame, for this long, sending only keep-alives.
	KeepaliveOnly time.Duration
	// Stall sends nothing at all once, right after the first cursor frame
	// (after KeepaliveOnly, if both are set), for this long.
	Stall time.Duration
	// SlowBytes writes the follow body one byte at a time with this delay
	// between bytes, flushing each.
	SlowBytes time.Duration
	// Unavailable answers the first N follow requests with HTTP 503
	// storage.unavailable.
	Unavailable int
	// ResultNotReady answers the first N result reads after the action
	// settled with 503 action.result_not_ready.
	ResultNotReady int
	// Finished makes the script complete before the server starts serving
	// (review mode). The long scenario then ends cancelled.
	Finished bool
	// Hold, when set, stops the script after its first chunk until Hold is
	// closed (or the action is cancelled), and the rest then comes at once
	// (as at Speed 0; an endless script keeps its floor): the action is in
	// flight for as long as a test needs it to be, whatever the Speed, and
	// not a moment longer. No daemon behaviour: a test's pause button.
	Hold <-chan struct{}
	// EchoToken, when set, makes the simulator hostile: it echoes this
	// string into every SSE id and every text, tool, ID, cursor and
	// message field it sends (echo.go). No daemon behaviour: a hostile server (design §5).
	EchoToken string
	// FirehoseN is the number of deltas of the firehose scenario
	// (0 = DefaultFirehoseN).
	FirehoseN int

	// Mode is how the action was submitted: ModeSync (no record while it
	// runs, the guide's `action call`), ModeAsync (queued, then running,
	// with a queue record) or ModeStreaming (the synchronous path, like
	// sync; on TopologyFleet the only mode whose chunks are recorded
	// centrally). "" = the scenario's own mode.
	Mode string
	// Topology is the deployment: TopologyInProcess ("" too: Hermes in the
	// daemon's process, every chunk recorded) or TopologyFleet (the
	// released getaip-server reaching Hermes through a connector host: an
	// async or sync action records no chunk centrally, its result's
	// output.events hold every provider frame). topology.go.
	Topology string
	// TenantScoped: the reader's token is bound to a verified tenant, so
	// the global log (a Fleet's GET /aip/v1/events) omits every event that
	// carries no tenant identity: chunk, result, cancel and worker events
	// (fleet_log.go). A Server alone serves no global log; in a Fleet one
	// member's TenantScoped makes the whole daemon's so.
	TenantScoped bool
	// FleetError (TopologyFleet only): the connector host or the central
	// admission refuses the action before Hermes runs, with one of
	// FleetErrors (topology.go): a sync or streaming submission answers
	// that error and leaves no record; an async one is acked and fails in
	// its worker, dead-lettered.
	FleetError string
	// Cursors is the event store's cursor behaviour: CursorsMemory, or
	// CursorsPostgres (every cursor the daemon hands out is refused).
	// "" = the scenario's own.
	Cursors string
	// CancelErrorReply: the cancel takes effect, but the cancel route
	// answers an error (protocol §10.6). In-process: the handler's own
	// cancel failed (503 runtime.handler_failed); on TopologyFleet: the
	// connector host's cancel failed (502 connector_host.execution).
	CancelErrorReply bool
	// CancelInTransit: every cancel request crosses the run's result on
	// the wire. It reaches the daemon only once the run has settled, and
	// this long after, as from a client far from aipd: transport latency,
	// no daemon behaviour. The daemon then answers what it answers a late
	// cancel: 200, the result kept (protocol §6.3, "late
	// cancel → 200 with the result kept"; B4). 0 = off. --demo=late-cancel.
	// Only for a scenario that settles by itself: on an endless one (long,
	// async-long) the held cancel waits until the client gives up.
	CancelInTransit time.Duration
	// ActionID replaces the scenario's action ID (a Fleet hosts one
	// scenario more than once).
	ActionID string
	// LeaseExpired: an async action's worker lease expired while it still
	// reads running (a stuck worker, protocol §2.4).
	LeaseExpired bool
	// Submit tunes POST /aip/v1/actions (sim/submit.go).
	Submit SubmitKnobs
	// Past, with Finished and a non-zero End, stamps the run's events at
	// the times it ran (past.go) instead of all at the server's start.
	Past PastRun
}

// Execution modes and cursor behaviours (protocol §1.2,
// the table, A2).
const (
	ModeSync        = "sync"
	ModeAsync       = "async"
	CursorsMemory   = "memory"
	CursorsPostgres = "postgres"
)

// RequestLog is one request the simulator received.
type RequestLog struct {
	Method      string
	Path        string
	RawQuery    string
	LastEventID string
	Time        time.Time
}

// Server is the simulated daemon with its one action.
type Server struct {
	sc       *scenario
	k        Knobs
	actionID string
	steps    func(yield func(step) bool)
	handler  http.Handler
	ctx      context.Context // cancelled by Close
	stop     context.CancelFunc
	settled  chan struct{}
	cancelCh chan struct{} // closed by the first cancel of a running action
	runDone  chan struct{}
	// virtual: the run's events are stamped by virt, the past run's clock
	// (past.go), not the wall clock.
	virtual   bool
	virt      time.Time
	beginOnce sync.Once
	closeOnce sync.Once

	mode         string // ModeSync or ModeAsync
	cursors      string // CursorsMemory or CursorsPostgres
	handlerFails bool
	topology     string    // TopologyInProcess or TopologyFleet
	fleetErr     *protoErr // Knobs.FleetError: the handler fails with it, before any frame

	mu   sync.Mutex
	conn connector
	// streaming: submitted with mode streaming, which runs as ModeSync
	// (topology.go); set with mode.
	streaming bool
	// What the runtime records besides the result (protocol
	// §10.1, A3, B4): an async action's worker start and cancel without a
	// result, a sync handler's failure, a late cancel's queue state.
	workerStarted  bool
	asyncCancelled bool
	handlerFailed  bool
	lateCancelled  bool
	// workerRefusal: an async submission whose input the schema refuses is
	// acked and fails in the worker (protocol open point 4).
	workerRefusal *protoErr
	// republishing: an async re-run of an action whose chunks exist,
	// queued until its worker fails to publish (open point 1, republish.go).
	republishing bool
	events       []eventRec
	chunks       []chunkRec
	result       *resultRec
	// prev is the settled result a synchronous re-run has not replaced
	// yet (sim/submit.go, §1.3): a sync run writes nothing until it
	// settles (§1.2, §1.5), so the earlier record and result stay.
	prev            *resultRec
	startedAt       time.Time
	updatedAt       time.Time
	completedAt     time.Time
	cancelRequested bool
	cancelCount     int
	requests        []RequestLog
	closed          bool
	handlers        sync.WaitGroup
	srv             *http.Server
	serveDone       chan struct{}
	url             string
	eventSerial     int

	followSeen    atomic.Int64 // follow requests, for Unavailable
	expiredSeen   atomic.Int64 // follow requests with a cursor, for ExpireCursors
	notReadySeen  atomic.Int64 // result reads after settle, for ResultNotReady
	holdDone      atomic.Bool  // KeepaliveOnly / Stall happened
	messageSerial atomic.Int64
	sub           submitState // sim/submit.go
}

// eventRec is one stored Event. The Events of chunks, by far the most
// numerous, are rendered when served rather than stored as JSON.
type eventRec struct {
	kind      string
	at        time.Time
	id        string // "" for a chunk's Event: derived from seq
	json      []byte // the Event JSON; nil for a chunk's Event
	seq       uint64 // a chunk's Event: its chunk
	chunkKind string
}

// eventID is the Event's id.
func (s *Server) eventID(e *eventRec) string {
	if e.json != nil {
		return e.id
	}
	return chunkEventID(s.actionID, e.seq)
}

// appendEventJSON appends the Event JSON.
func (s *Server) appendEventJSON(b []byte, e *eventRec) []byte {
	if e.json != nil {
		return append(b, e.json...)
	}
	return appendChunkEventJSON(b, s.actionID, e.seq, e.chunkKind, e.at)
}

// appendChunkEventJSON appends the Event of a chunk (docs/protocol.md §7.1).
func appendChunkEventJSON(b []byte, actionID string, seq uint64, kind string, at time.Time) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, chunkEventID(actionID, seq)...)
	b = append(b, `","kind":"aip.stream.chunk","occurred_at":"`...)
	b = at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","action_id":`...)
	b = appendCompactString(b, actionID)
	b = append(b, `,"data":{"action_id":`...)
	b = appendCompactString(b, actionID)
	b = append(b, `,"sequence":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, `,"kind":`...)
	b = appendCompactString(b, kind)
	return append(b, "}}"...)
}

// resultRec is the stored ActionResult.
type resultRec struct {
	status string
	err    *protoErr
	// A connector result: output is prefix + events + suffix.
	prefix, suffix []byte
	events         [][]byte
	text           string
	// A runtime result for a cancelled run: output is literal. A failed
	// runtime result has neither: no output.
	literal []byte
}

// New builds a simulator for one scenario. Nothing runs until Start or
// Handler is called.
func New(scenario string, k Knobs) (*Server, error) {
	sc := lookup(scenario)
	if sc == nil {
		return nil, unknownScenario(scenario)
	}
	if k.Speed < 0 {
		return nil, errors.New("sim: Speed must not be negative")
	}
	if k.FirehoseN < 0 {
		return nil, errors.New("sim: FirehoseN must not be negative")
	}
	if k.PollInterval <= 0 {
		k.PollInterval = 500 * time.Millisecond
	}
	if k.KeepaliveInterval <= 0 {
		k.KeepaliveInterval = 15 * time.Second
	}
	steps, maxEvents := sc.script(k)
	mode, cursors := orDefault(k.Mode, orDefault(sc.mode, ModeSync)), orDefault(k.Cursors, orDefault(sc.cursors, CursorsMemory))
	if mode != ModeSync && mode != ModeAsync && mode != ModeStreaming {
		return nil, errors.New("sim: Mode must be sync, async or streaming")
	}
	if cursors != CursorsMemory && cursors != CursorsPostgres {
		return nil, errors.New("sim: Cursors must be memory or postgres")
	}
	topology := orDefault(k.Topology, TopologyInProcess)
	if topology != TopologyInProcess && topology != TopologyFleet {
		return nil, errors.New("sim: Topology must be in-process or fleet")
	}
	var fleetErr *protoErr
	if k.FleetError != "" {
		if topology != TopologyFleet {
			return nil, errors.New("sim: FleetError needs Topology fleet")
		}
		var err error
		if fleetErr, err = fleetError(k.FleetError); err != nil {
			return nil, err
		}
		// The remote handler fails before the host runs Hermes: no frame.
		steps = func(func(step) bool) {}
	}
	streaming := mode == ModeStreaming
	if streaming {
		mode = ModeSync // the synchronous path (topology.go)
	}
	s := &Server{
		sc:           sc,
		k:            k,
		mode:         mode,
		streaming:    streaming,
		cursors:      cursors,
		topology:     topology,
		fleetErr:     fleetErr,
		handlerFails: sc.handlerFails || fleetErr != nil,
		actionID:     orDefault(k.ActionID, "act_sim_"+strings.ReplaceAll(sc.name, "-", "_")+"_01"),
		steps:        steps,
		settled:      make(chan struct{}),
		cancelCh:     make(chan struct{}),
		runDone:      make(chan struct{}),
	}
	if k.Submit.ActionID != "" { // sim/submit.go: the ID a submission will carry
		s.actionID = k.Submit.ActionID
	}
	s.conn = connector{actionID: s.actionID, operation: sc.operation, maxEvents: maxEvents}
	if !sc.endless {
		// A finite script never outgrows its event limit; sizing the logs
		// up front keeps the firehose from copying them over and over.
		n := min(maxEvents, 1<<20) + 4
		s.chunks = make([]chunkRec, 0, n)
		s.events = make([]eventRec, 0, n+4)
		s.conn.events = make([][]byte, 0, n)
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.handler = s.routes()
	return s, nil
}

// ActionID is the id of the simulated action.
func (s *Server) ActionID() string { return s.actionID }

// Scenario is the scenario name.
func (s *Server) Scenario() string { return s.sc.name }

// Handler starts the action (if it has not started) and returns the HTTP
// handler of the daemon's routes.
func (s *Server) Handler() http.Handler {
	if !s.k.Submit.Await { // else the submission begins it (sim/submit.go)
		s.begin()
	}
	if s.k.EchoToken != "" {
		return echoToken(s.handler, s.k.EchoToken)
	}
	return s.handler
}

// Start listens on 127.0.0.1:0 and serves in the background.
func (s *Server) Start() (string, error) { return s.Listen("127.0.0.1:0") }

// Listen listens on addr and serves in the background. It returns the base
// URL.
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	h := s.Handler()
	s.mu.Lock()
	if s.closed || s.srv != nil {
		s.mu.Unlock()
		ln.Close()
		return "", errors.New("sim: server already started or closed")
	}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	s.serveDone = make(chan struct{})
	s.url = "http://" + ln.Addr().String()
	srv, done := s.srv, s.serveDone
	s.mu.Unlock()
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return s.url, nil
}

// URL is the base URL after Start ("" before).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops serving and the script, and waits for every goroutine the
// simulator started.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		srv, done := s.srv, s.serveDone
		s.mu.Unlock()
		s.stop()
		if srv != nil {
			_ = srv.Close()
			<-done
		}
		s.handlers.Wait()
		// If the script never began, nothing will close runDone.
		s.beginOnce.Do(func() { close(s.runDone) })
		<-s.runDoneCh()
	})
}

func (s *Server) runDoneCh() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runDone
}

// CancelCount is the number of cancel POSTs received.
func (s *Server) CancelCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelCount
}

// Requests is a copy of the request log.
func (s *Server) Requests() []RequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestLog(nil), s.requests...)
}

// Settled is closed when the run is over: its result is stored, or it
// ended without one (an async cancel, a sync handler failure). A re-run
// (a settled ID submitted again without an idempotency key, §1.3) has its
// own channel: Settled then returns the re-run's.
func (s *Server) Settled() <-chan struct{} { return s.settledCh() }

func (s *Server) settledCh() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settled
}

// storedLocked is the result the routes read: the run's, else the one a
// synchronous re-run has not replaced yet.
func (s *Server) storedLocked() *resultRec {
	if s.result != nil {
		return s.result
	}
	return s.prev
}

// rerun runs the handler of a settled action again, in mode (protocol
// §1.3: the same ID and contract without an idempotency key;
// nothing short-circuits, the model and tools run again). Async: the
// in-memory queue replaces the settled record with a new queued one, so
// the action reads queued, then running, with no result until the re-run
// settles. Sync: no record is written until it settles (§1.2), so the
// earlier record and result stay readable until then. What the event
// store does with the re-run's chunks, whose sequences start at 0 again,
// is not in the spec ([I]): the simulator keeps the latest run's chunks
// and appends their Events to the log (same IDs, derived from the
// sequence).
func (s *Server) rerun(mode string) {
	s.mu.Lock()
	done := s.runDone
	s.mu.Unlock()
	<-done // the settled run's goroutine has returned
	steps, _ := s.sc.script(s.k)
	if s.fleetErr != nil {
		steps = func(func(step) bool) {} // refused again before Hermes runs
	}
	s.sub.mu.Lock()
	s.sub.mode = mode
	s.sub.mu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	// The re-run runs in its own submission's mode: an action whose sync
	// handler failed has no record (§1.2), so it may come back async.
	s.mode, s.streaming = ModeSync, mode == ModeStreaming
	if mode == "async" {
		s.mode = ModeAsync
	}
	if s.mode == ModeSync {
		s.prev = s.storedLocked()
	} else {
		s.prev = nil
		s.startedAt = time.Now().UTC()
		s.completedAt = time.Time{}
	}
	s.result = nil
	s.workerStarted, s.asyncCancelled, s.handlerFailed, s.lateCancelled, s.cancelRequested = false, false, false, false, false
	s.chunks = nil
	s.conn = connector{actionID: s.actionID, operation: s.sc.operation, maxEvents: s.conn.maxEvents}
	s.steps = steps
	s.settled, s.cancelCh, s.runDone = make(chan struct{}), make(chan struct{}), make(chan struct{})
	s.updatedAt = time.Now().UTC()
	s.mu.Unlock()
	parked := make(chan struct{})
	go s.run(parked)
	<-parked
}

// Mode is the execution mode (ModeSync, ModeAsync or ModeStreaming).
func (s *Server) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streaming {
		return ModeStreaming
	}
	return s.mode
}

// Topology is the deployment (TopologyInProcess or TopologyFleet).
func (s *Server) Topology() string { return s.topology }

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// queuedDelay is how long an async action stays queued before a worker
// claims it: the worker loop polls every 250 ms (protocol §1.2).
const queuedDelay = 250 * time.Millisecond

// begin starts the script once. At Speed 0 (or with Finished) it returns
// only after everything that needs no waiting has been appended.
func (s *Server) begin() {
	s.beginOnce.Do(func() {
		s.mu.Lock()
		s.startedAt = time.Now().UTC()
		s.updatedAt = s.startedAt
		s.mu.Unlock()
		parked := make(chan struct{})
		go s.run(parked)
		<-parked
	})
}

// scale turns a scripted delay into real time.
func (s *Server) scale(st step) time.Duration {
	var d time.Duration
	if !s.k.Finished && s.k.Speed > 0 {
		d = time.Duration(float64(st.delay) / s.k.Speed)
	}
	if st.floor && !s.k.Finished {
		d = max(d, minEndlessStep)
	}
	return d
}

// run plays the script. parked is closed the first time it has to wait.
func (s *Server) run(parked chan struct{}) {
	s.mu.Lock()
	runDone, cancelCh, steps := s.runDone, s.cancelCh, s.steps // a re-run replaces them
	s.mu.Unlock()
	defer close(runDone)
	if s.k.Finished && !s.k.Past.End.IsZero() {
		steps = s.stampPast(steps)
	}
	park := sync.OnceFunc(func() { close(parked) })
	defer park()
	var timer *time.Timer
	if s.mode == ModeAsync {
		if d := s.scale(step{delay: queuedDelay}); d > 0 {
			park()
			timer = time.NewTimer(d)
			select {
			case <-timer.C:
			case <-cancelCh:
			case <-s.ctx.Done():
				timer.Stop()
				return
			}
		}
		s.mu.Lock()
		s.workerStarted = true
		if refusal := s.workerRefusal; refusal != nil {
			// The check skipped at submission fails the action in the
			// worker: a failed result, dead-lettered (open point 4, A7).
			s.settleLocked(&resultRec{status: "failed", err: refusal})
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
	hold, released := s.k.Hold, false // after the first chunk, once
	for st := range steps {
		d := s.scale(st)
		if released && !st.floor {
			d = 0
		}
		if d > 0 {
			park()
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			select {
			case <-timer.C:
			case <-cancelCh:
			case <-s.ctx.Done():
				timer.Stop()
				return
			}
		} else if s.ctx.Err() != nil {
			return
		}
		if !s.feed(st.f) {
			return
		}
		if hold != nil {
			park()
			select {
			case <-hold:
			case <-cancelCh:
			case <-s.ctx.Done():
				return
			}
			hold, released = nil, true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.result != nil, s.asyncCancelled:
		return
	case s.fleetErr != nil:
		// Refused before the host ran Hermes (Knobs.FleetError).
		s.handlerFailLocked()
		return
	case s.cancelRequested:
		// Cancelled while the last frame was on its way.
		s.cancelRunLocked()
		return
	case s.sc.endless:
		// Only reached with Finished: the action was cancelled before review.
		s.requestCancelLocked("cancelled before the review")
		s.cancelRunLocked()
		return
	}
	if s.handlerFails {
		s.handlerFailLocked()
		return
	}
	// The upstream closed without a terminal frame (a terminal frame or the
	// event limit would have settled the action in feed).
	s.appendChunkLocked(s.conn.unterminated())
	s.settleConnectorLocked()
}

// handlerFailLocked ends a run whose connector handler returned an error
// (protocol §10.3). Synchronous: the error goes back to the
// submitter and nothing is persisted, so the action has no record and no
// result, for ever; its chunks stay readable. Asynchronous: the worker turns
// the error into a failed result (no retry for Hermes streams), and the
// action is dead-lettered.
func (s *Server) handlerFailLocked() {
	if s.mode == ModeSync {
		s.handlerFailed = true
		close(s.settled)
		return
	}
	if s.fleetErr != nil {
		// The worker's failed_result: the error, no output (RT failed_result).
		s.settleLocked(&resultRec{status: "failed", err: s.fleetErr})
		return
	}
	s.settleLocked(&resultRec{status: "failed", err: transportErr(), literal: compact(o())})
}

// transportErr is the connector's error for a stream that broke
// mid-read: code connector.hermes_agent.transport, category transport
// (hermes_failure_with_retry_safety), so a sync submission gets it as
// HTTP 503 (protocol open point 8: "a sync transport error →
// 503").
func transportErr() *protoErr {
	return &protoErr{Code: "connector.hermes_agent.transport",
		Message:  "Hermes endpoint `" + simEndpoint + "` stream decode failed: error decoding response body",
		Category: "transport", Source: o("connector", "hermes-agent")} // protocol §8.3
}

// feed hands one frame to the connector. It reports whether the script
// goes on.
func (s *Server) feed(f frame) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.result != nil || s.asyncCancelled {
		return false
	}
	if s.cancelRequested {
		s.cancelRunLocked()
		return false
	}
	rec, stop := s.conn.ingest(f)
	s.appendChunkLocked(rec)
	if stop {
		s.settleConnectorLocked()
		return false
	}
	return true
}

func (s *Server) appendChunkLocked(rec chunkRec) {
	if !s.centralChunksLocked() {
		// On the fleet the host's store keeps it (topology.go); the
		// aggregate output still gets the frame (connector.ingest).
		return
	}
	s.chunks = append(s.chunks, rec)
	s.updatedAt = s.nowLocked()
	s.events = append(s.events, eventRec{kind: "aip.stream.chunk", at: s.updatedAt, seq: rec.seq, chunkKind: rec.kind})
}

// chunkEventID is the runtime's id of a chunk's Event (docs/protocol.md §7.1).
func chunkEventID(actionID string, seq uint64) string {
	h := sha256.New()
	h.Write([]byte("aip.stream.chunk.event.v1\x00" + actionID + "\x00"))
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], seq)
	h.Write(be[:])
	return "evt_stream_" + hex.EncodeToString(h.Sum(nil))
}

// appendEventLocked appends a runtime Event other than a chunk's.
func (s *Server) appendEventLocked(kind string, data obj) {
	now := s.nowLocked()
	s.updatedAt = now
	s.eventSerial++
	id := "evt_" + fakeHex(s.actionID+"/"+kind+"/"+strconv.Itoa(s.eventSerial), 32)
	ev := o("id", id, "kind", kind, "occurred_at", now.Format(time.RFC3339Nano), "action_id", s.actionID, "data", data)
	s.events = append(s.events, eventRec{kind: kind, at: now, id: id, json: compact(ev)})
}

// settleConnectorLocked stores the connector's result.
func (s *Server) settleConnectorLocked() {
	status, perr := s.conn.outcome()
	s.settleLocked(&resultRec{
		status: status,
		err:    perr,
		prefix: s.conn.outputPrefix(),
		suffix: s.conn.outputSuffix(),
		events: s.conn.events,
		text:   s.conn.text.String(),
	})
}

// requestCancelLocked records a cancellation request (the runtime's event).
func (s *Server) requestCancelLocked(reason string) {
	var r any
	if reason != "" {
		r = reason
	}
	s.appendEventLocked("aip.action.cancelled", o("target", "action", "action_id", s.actionID, "reason", r))
	if s.result != nil && s.mode == ModeAsync {
		s.lateCancelled = true // the queue record says cancelled; the result stays (B4)
	}
	s.stopRunLocked()
}

// stopRunLocked tells a run that has not settled to stop (its next step
// ends it as cancelled: cancelRunLocked), once.
func (s *Server) stopRunLocked() {
	if s.result == nil && !s.cancelRequested && !s.handlerFailed {
		s.cancelRequested = true
		close(s.cancelCh)
	}
}

// cancelRunLocked ends a running action as cancelled (protocol
// §10.1, A4): the connector future is dropped and nothing more is published,
// no chunk. Synchronous: the runtime stores the cancelled result.
// Asynchronous: the queue record turns cancelled and no result is ever
// stored.
func (s *Server) cancelRunLocked() {
	if s.mode == ModeAsync {
		s.asyncCancelled = true
		s.updatedAt = s.nowLocked()
		s.completedAt = s.updatedAt
		close(s.settled)
		return
	}
	s.settleLocked(&resultRec{status: "cancelled", literal: compact(o("cancelled", true, "reason", cancelReasonText))})
}

func (s *Server) settleLocked(r *resultRec) {
	s.result, s.prev = r, nil
	s.appendEventLocked("aip.action.result", o("action_id", s.actionID, "status", r.status))
	if s.mode == ModeAsync {
		// The worker that settled it says so after the result (protocol
		// §2.2: aip.action.worker_result {action_id, status, worker_id?}).
		s.appendEventLocked("aip.action.worker_result", o("action_id", s.actionID, "status", r.status, "worker_id", simWorkerID))
	}
	s.completedAt = s.updatedAt
	close(s.settled)
}

// stateLocked is action_lifecycle_state (getaip/core
// crates/aip-runtime/src/lib.rs, called by build_action_status; protocol
// §6.1, §10.5, §10.7), in its order: a dead-letter reason (here a failed async
// action) → `dead_lettered`; else a stored result → its status, even with
// chunks loaded; else loaded chunks → `streaming`, only when the caller asked
// for them (withChunks), and so before the queue record's status: an async
// action cancelled without a result reads `streaming`; else the queue
// record's status (`cancelled`, `queued`, `running`); a synchronous action
// has no record until it settles, so reads `unknown`. A synchronous re-run
// reads its earlier result's status until it settles (storedLocked).
func (s *Server) stateLocked(withChunks bool) string {
	switch {
	case s.result != nil && s.mode == ModeAsync && s.result.status == "failed":
		return "dead_lettered"
	case s.storedLocked() != nil:
		return s.storedLocked().status
	case withChunks && len(s.chunks) > 0:
		return "streaming"
	case s.asyncCancelled:
		return "cancelled"
	case s.mode == ModeSync:
		return "unknown"
	case !s.workerStarted:
		return "queued"
	}
	return "running"
}

// recordedLocked: the runtime holds a queue record or a result (the list,
// capability_id, started_at and the result route know the action).
func (s *Server) recordedLocked() bool {
	return s.mode == ModeAsync || s.storedLocked() != nil
}

// queuedStateLocked is the queue record's status, "" without a record (B4).
func (s *Server) queuedStateLocked() string {
	switch {
	case !s.recordedLocked():
		return ""
	case s.republishing:
		return "queued" // the new record (open point 1)
	case s.lateCancelled, s.asyncCancelled:
		return "cancelled"
	}
	return s.stateLocked(false)
}

func isTerminalState(state string) bool {
	switch state {
	case "cancelled", "completed", "failed", "expired", "dead_lettered":
		return true
	}
	return false
}

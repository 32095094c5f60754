package sim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /aip/v1/actions/{id}", s.handleStatus)
	mux.HandleFunc("GET /aip/v1/actions/{id}/events", s.handleEvents)
	mux.HandleFunc("GET /aip/v1/actions/{id}/chunks", s.handleEvents)
	mux.HandleFunc("GET /aip/v1/actions/{id}/result", s.handleResult)
	mux.HandleFunc("POST /aip/v1/actions/{id}/cancel", s.handleCancel)
	mux.HandleFunc("POST /aip/v1/actions", s.handleSubmit)  // sim/submit.go
	mux.HandleFunc("POST /aip/v1/messages", s.handleSubmit) // sim/submit.go
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, []byte(`{"status":"ok"}`))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, RequestLog{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
			LastEventID: r.Header.Get("Last-Event-ID"), Time: time.Now()})
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/aip/v1/actions/") && strings.HasSuffix(r.URL.Path, "/cancel") {
			s.cancelCount++
		}
		if s.closed {
			s.mu.Unlock()
			http.Error(w, "simulator closed", http.StatusServiceUnavailable)
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		if strings.HasPrefix(r.URL.Path, "/aip/v1/") {
			if perr := s.authorize(r); perr != nil {
				s.writeError(w, perr)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// authorize is the native bearer middleware (docs/protocol.md §4.3).
func (s *Server) authorize(r *http.Request) *protoErr {
	deny := func(msg string) *protoErr {
		return &protoErr{Code: "auth.native_http_unauthorized", Message: msg, Category: "auth",
			Source: o("component", "aip.server.native_http")}
	}
	values := r.Header.Values("Authorization")
	if s.k.Token == "" {
		if len(values) > 0 {
			return deny("native bearer authentication is not configured")
		}
		return nil // insecure development mode
	}
	if len(values) == 0 || strings.TrimSpace(values[0]) == "" {
		return deny("missing bearer token")
	}
	v := values[0]
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return deny("invalid authorization header: header value is not visible ASCII")
		}
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return deny("invalid authorization header: expected `Bearer <token>`")
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return deny("invalid authorization header: empty bearer token")
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(s.k.Token)) != 1 {
		return deny("invalid bearer token")
	}
	return nil
}

// statusFor maps an error category to HTTP (docs/protocol.md §7.3).
func statusFor(category string) int {
	switch category {
	case "auth":
		return http.StatusUnauthorized
	case "policy":
		return http.StatusForbidden
	case "temporary", "transport":
		return http.StatusServiceUnavailable
	case "connector":
		return http.StatusBadGateway
	case "economic":
		return http.StatusPaymentRequired
	}
	return http.StatusBadRequest
}

// writeError writes the full error envelope; the ProtocolError sits at
// /body/error/error.
func (s *Server) writeError(w http.ResponseWriter, e *protoErr) {
	id := "msg_" + fakeHex(s.actionID+"/msg/"+strconv.FormatInt(s.messageSerial.Add(1), 10), 32)
	env := o("aip_version", "1.0", "message_type", "aip.core.v1.error", "message_id", id,
		"sent_at", time.Now().UTC().Format(time.RFC3339Nano),
		"body", o("error", o("error", rawJSON(e.json()))))
	writeJSON(w, statusFor(e.Category), compact(env))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// queryError is axum's Query rejection: 400 with a plain-text body.
func queryError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, "Failed to deserialize query string: "+msg)
}

// runtimeSource is the runtime's error source (protocol §10.8 B5).
func runtimeSource() obj { return o("component", "aip-runtime") }

// simWorkerID is the one worker of the simulator's queue: its leases and
// its aip.action.worker_result events name it.
const simWorkerID = "worker_sim_1"

// actionID reads the path id; a non-act_ id is query.invalid.
func (s *Server) actionIDFrom(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, "act_") || len(id) == len("act_") {
		s.writeError(w, &protoErr{Code: "query.invalid", Message: "invalid action id: expected an id starting with act_",
			Category: "permanent", Details: o("action_id", id), Source: o("component", "aip.server.http")})
		return "", false
	}
	return id, true
}

func boolParam(w http.ResponseWriter, q map[string][]string, name string) (bool, bool) {
	v, ok := q[name]
	if !ok || len(v) == 0 {
		return false, true
	}
	switch v[0] {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	queryError(w, name+": provided string was not `true` or `false`")
	return false, false
}

// ---- status ----

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	id, ok := s.actionIDFrom(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	withResult, ok := boolParam(w, q, "include_result")
	if !ok {
		return
	}
	withChunks, ok := boolParam(w, q, "include_chunks")
	if !ok {
		return
	}
	if row, ok := s.readRow(id); ok { // a completed read (reads.go)
		writeJSON(w, http.StatusOK, compact(o("action_status", row.v)))
		return
	}
	if id != s.actionID || !s.submitted() { // sim/submit.go: not submitted yet (Await)
		base := "/aip/v1/actions/" + id
		body := compact(o("action_status", o("action_id", id, "state", "unknown",
			"updated_at", time.Now().UTC().Format(time.RFC3339Nano),
			"links", o("self", base, "result", base+"/result", "events", base+"/events",
				"chunks", base+"/chunks", "cancel", base+"/cancel"))))
		writeJSON(w, http.StatusOK, body)
		return
	}

	v, res, chunks := s.statusObj(id, withChunks)
	if withResult && res != nil {
		v = append(v, kv{"result", rawJSON(hole)})
	}
	if withChunks && len(chunks) > 0 {
		v = append(v, kv{"chunks", rawJSON(hole)})
	}
	base := "/aip/v1/actions/" + id
	v = append(v, kv{"links", o("self", base, "result", base+"/result", "events", base+"/events",
		"chunks", base+"/chunks", "cancel", base+"/cancel")})

	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	fills := []func(io.Writer){}
	if withResult && res != nil {
		fills = append(fills, func(w io.Writer) { s.writeResult(w, res) })
	}
	if withChunks && len(chunks) > 0 {
		fills = append(fills, func(w io.Writer) { writeChunkArray(w, chunks) })
	}
	writeHoles(bw, compact(o("action_status", v)), fills...)
	_ = bw.Flush()
}

// statusObj is build_action_status without its large parts (the result
// and the chunks, which the caller streams in): the fields, and what the
// caller may add. withChunks is the caller's include_chunks.
func (s *Server) statusObj(id string, withChunks bool) (obj, *resultRec, []chunkRec) {
	s.mu.Lock()
	state := s.stateLocked(withChunks)
	queued := s.queuedStateLocked()
	recorded := s.recordedLocked()
	running := s.mode == ModeAsync && s.workerStarted && s.result == nil && !s.asyncCancelled
	res := s.storedLocked()
	chunks := s.chunks
	started, updated, completed := s.startedAt, s.updatedAt, s.completedAt
	settledWithout := s.asyncCancelled
	s.mu.Unlock()

	// Without a queue record or a result (a synchronous action still
	// running, or one whose handler failed) the runtime knows neither the
	// capability nor a start time (protocol §2.1, B4).
	v := o("action_id", id)
	if recorded {
		v = append(v, kv{"capability_id", "cap:hermes_agent:" + simEndpoint + ":" + s.sc.operation})
	}
	v = append(v, kv{"state", state})
	if queued != "" {
		v = append(v, kv{"queued_state", queued})
	}
	if res != nil {
		v = append(v, kv{"result_status", res.status})
	}
	if recorded {
		if s.mode == ModeSync {
			started = completed // the record is written as the action settles
		}
		v = append(v, kv{"started_at", started.Format(time.RFC3339Nano)})
	}
	v = append(v, kv{"updated_at", updated.Format(time.RFC3339Nano)})
	if res != nil || settledWithout {
		v = append(v, kv{"completed_at", completed.Format(time.RFC3339Nano)})
	}
	if running {
		// A worker holds the action under a 30 s lease, renewed by its
		// heartbeat (protocol §1.2, §2.1).
		expires := time.Now().UTC().Add(30 * time.Second)
		if s.k.LeaseExpired {
			expires = started.Add(-time.Second) // its heartbeat never renewed it: a stuck worker
		}
		v = append(v, kv{"retry", o("attempts", 1)}, kv{"lease", o("worker_id", simWorkerID, "lease_id", "lease_"+fakeHex(id, 16),
			"acquired_at", started.Format(time.RFC3339Nano), "expires_at", expires.Format(time.RFC3339Nano))})
	}
	return v, res, chunks
}

// hole marks where a large part is streamed into a skeleton document; the
// compact encoder never writes a raw NUL byte.
const hole = "\x00"

func writeHoles(w io.Writer, skeleton []byte, fills ...func(io.Writer)) {
	parts := bytes.Split(skeleton, []byte(hole))
	for i, p := range parts {
		if i > 0 {
			fills[i-1](w)
		}
		_, _ = w.Write(p)
	}
}

func writeChunkArray(w io.Writer, chunks []chunkRec) {
	_, _ = io.WriteString(w, "[")
	for i, c := range chunks {
		if i > 0 {
			_, _ = io.WriteString(w, ",")
		}
		_, _ = w.Write(c.json)
	}
	_, _ = io.WriteString(w, "]")
}

// writeResult writes the ActionResult JSON.
func (s *Server) writeResult(w io.Writer, res *resultRec) {
	if res.literal != nil || res.prefix == nil {
		v := o("action_id", s.actionID, "status", res.status)
		if res.literal != nil {
			v = append(v, kv{"output", rawJSON(res.literal)})
		}
		if res.err != nil {
			v = append(v, kv{"error", rawJSON(res.err.json())})
		}
		_, _ = w.Write(compact(v))
		return
	}
	output := func(w io.Writer) {
		_, _ = w.Write(res.prefix)
		for i, e := range res.events {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			_, _ = w.Write(e)
		}
		_, _ = w.Write(res.suffix)
	}
	var message []any
	if res.text != "" {
		message = append(message, o("type", "text", "text", res.text, "format", "plain"))
	}
	message = append(message, o("type", "json", "data", rawJSON(hole)))
	v := o("action_id", s.actionID, "status", res.status, "output", rawJSON(hole), "message", message)
	if res.err != nil {
		v = append(v, kv{"error", rawJSON(res.err.json())})
	}
	writeHoles(w, compact(v), output, output)
}

// ---- result ----

func (s *Server) handleResult(w http.ResponseWriter, r *http.Request) {
	id, ok := s.actionIDFrom(w, r)
	if !ok {
		return
	}
	if _, ok := s.readRow(id); ok { // a completed read (reads.go)
		writeJSON(w, http.StatusOK, compact(o("action_result", s.readResult(id))))
		return
	}
	if id != s.actionID || !s.submitted() {
		s.writeError(w, &protoErr{Code: "action.not_found", Message: "action not found", Category: "permanent",
			Details: o("action_id", id), Source: runtimeSource()})
		return
	}
	s.mu.Lock()
	res := s.storedLocked()
	state := s.stateLocked(false)
	recorded := s.recordedLocked()
	s.mu.Unlock()
	if res != nil && s.notReadySeen.Add(1) <= int64(s.k.ResultNotReady) {
		// Pretend the result has not landed yet.
		res, state = nil, "running"
	}
	if res == nil && !recorded {
		// A synchronous action has no record until it settles, and one
		// whose handler failed never gets one (the table; A3).
		s.writeError(w, &protoErr{Code: "action.not_found", Message: "action not found", Category: "permanent",
			Details: o("action_id", id), Source: runtimeSource()})
		return
	}
	if res == nil {
		// query_error_body: temporary, but retryable false (B5); for an
		// async action cancelled in flight this answer never changes (A1).
		s.writeError(w, &protoErr{Code: "action.result_not_ready", Message: "action result is not ready yet",
			Category: "temporary", Details: o("action_id", id, "state", state), Source: runtimeSource()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = io.WriteString(bw, `{"action_result":`)
	s.writeResult(bw, res)
	_, _ = io.WriteString(bw, `}`)
	_ = bw.Flush()
}

// ---- cancel ----

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	id, ok := s.actionIDFrom(w, r)
	if !ok {
		return
	}
	// The body is optional; like axum's Option<Json<CancelBody>>, one that
	// does not parse is the same as none.
	var body struct {
		Reason *string `json:"reason"`
	}
	var reason string
	if raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<16)); err == nil && len(bytes.TrimSpace(raw)) > 0 {
		if json.Unmarshal(raw, &body) == nil && body.Reason != nil {
			reason = *body.Reason
		}
	}
	if id != s.actionID { // another action: none is hosted, whenever it arrives
		s.writeError(w, &protoErr{Code: "resource.not_found", Message: id, Category: "permanent", Source: runtimeSource()})
		return
	}
	// A cancel held in transit reaches the daemon later: it is judged by
	// the daemon's state then (a sync handler that failed meanwhile left
	// no record, A3: not found).
	if d := s.k.CancelInTransit; d > 0 && !s.inTransit(r, d) {
		return // the client gave up, or the simulator stopped
	}
	s.mu.Lock()
	gone := s.handlerFailed // no owner and no record: nothing to cancel
	s.mu.Unlock()
	if gone || !s.submitted() { // sim/submit.go: not submitted yet (Await)
		s.writeError(w, &protoErr{Code: "resource.not_found", Message: id, Category: "permanent", Source: runtimeSource()})
		return
	}
	if s.k.CancelErrorReply && s.topology == TopologyFleet {
		// The central handle_cancel awaits the host's cancel (REMOTE
		// RemoteConnectorHandler::cancel_with_context) before it records the
		// cancellation, and the host's refusal is the route's answer; the run
		// still ends cancelled (spec Part T, [C] order, [I] effect): a sync or
		// streaming run stores {cancelled, reason}, an async one's queue
		// record turns cancelled as A1 says. No aip.action.cancelled event is
		// recorded, the recording step being the one skipped [I].
		s.mu.Lock()
		s.stopRunLocked()
		s.mu.Unlock()
		s.writeError(w, hostCancelError())
		return
	}
	s.mu.Lock()
	s.requestCancelLocked(reason)
	s.mu.Unlock()
	if s.k.CancelErrorReply {
		// The execution was cancelled first; the handler's own cancel then
		// failed, and that error is the route's answer (A6).
		s.writeError(w, &protoErr{Code: "runtime.handler_failed", Message: "connector cancel failed: upstream stop returned HTTP 502",
			Category: "temporary", Source: runtimeSource()})
		return
	}
	writeJSON(w, http.StatusOK, compact(o("action_result", o("action_id", id, "status", "cancelled",
		"output", o("cancelled", true)))))
}

// inTransit holds a cancel request until the run has settled and d more
// (Knobs.CancelInTransit: transport latency, no daemon behaviour); false
// when the client or the simulator gave up first.
func (s *Server) inTransit(r *http.Request, d time.Duration) bool {
	select {
	case <-s.settledCh():
	case <-r.Context().Done():
		return false
	case <-s.ctx.Done():
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.ctx.Done():
	}
	return false
}

// ---- events ----

// cursor is an action-events cursor: the event offset and the last chunk
// sequence seen (-1 for none).
type cursor struct {
	off   uint64
	chunk int64
}

func (c cursor) String() string {
	tail := "none"
	if c.chunk >= 0 {
		tail = strconv.FormatInt(c.chunk, 10)
	}
	return "aev_cursor_" + strconv.FormatUint(c.off, 10) + "_" + tail
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseCursor accepts aev_cursor_<n>_<m|none> and evt_cursor_<n>.
func parseCursor(text string) (cursor, bool) {
	if rest, ok := strings.CutPrefix(text, "evt_cursor_"); ok && digits(rest) {
		n, err := strconv.ParseUint(rest, 10, 64)
		return cursor{off: n, chunk: -1}, err == nil
	}
	rest, ok := strings.CutPrefix(text, "aev_cursor_")
	if !ok {
		return cursor{}, false
	}
	offText, chunkText, ok := strings.Cut(rest, "_")
	if !ok || !digits(offText) {
		return cursor{}, false
	}
	n, err := strconv.ParseUint(offText, 10, 64)
	if err != nil {
		return cursor{}, false
	}
	if chunkText == "none" {
		return cursor{off: n, chunk: -1}, true
	}
	if !digits(chunkText) {
		return cursor{}, false
	}
	m, err := strconv.ParseInt(chunkText, 10, 64)
	return cursor{off: n, chunk: m}, err == nil
}

func invalidCursor(text string) *protoErr {
	return &protoErr{Code: "query.invalid_cursor", Message: "invalid action events cursor", Category: "permanent",
		Details: o("cursor", text, "expected_prefix", "aev_cursor_"), Source: runtimeSource()}
}

// postgresCursor is the Postgres store's refusal of any cursor the runtime
// passes on (protocol §10.2): the runtime turns aev_cursor_<n>_<m>
// into evt_cursor_<n>, which the store does not accept.
func postgresCursor(c cursor) *protoErr {
	evt := "evt_cursor_" + strconv.FormatUint(c.off, 10)
	return &protoErr{Code: "query.invalid_cursor", Message: "event cursor `" + evt + "` must use `pg_evt_<seq>` format",
		Category: "permanent", Details: o("cursor", evt, "expected_prefix", "pg_evt_"), Source: runtimeSource()}
}

func expiredCursor(text string, available int) *protoErr {
	return &protoErr{Code: "stream.cursor_expired", Message: "cursor is beyond the end of the event log",
		Category: "permanent", Details: o("cursor", text, "available_events", available), Source: runtimeSource()}
}

type eventsQuery struct {
	cursor        string // "" = none
	limit         int
	kinds         []string
	includeChunks bool
	follow        bool
}

func parseEventsQuery(w http.ResponseWriter, r *http.Request) (eventsQuery, bool) {
	q := r.URL.Query()
	eq := eventsQuery{limit: 100}
	if q.Has("limit") {
		n, err := strconv.ParseUint(q.Get("limit"), 10, 32)
		if err != nil {
			queryError(w, "limit: invalid digit found in string")
			return eq, false
		}
		eq.limit = int(min(max(n, 1), 1000))
	}
	var ok bool
	if eq.includeChunks, ok = boolParam(w, q, "include_chunks"); !ok {
		return eq, false
	}
	if eq.follow, ok = boolParam(w, q, "follow"); !ok {
		return eq, false
	}
	for _, k := range strings.Split(q.Get("kinds"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			eq.kinds = append(eq.kinds, k)
		}
	}
	if k := strings.TrimSpace(q.Get("kind")); k != "" {
		eq.kinds = append(eq.kinds, k)
	}
	slices.Sort(eq.kinds)
	eq.kinds = slices.Compact(eq.kinds)
	if strings.HasSuffix(r.URL.Path, "/chunks") {
		eq.kinds = []string{"aip.stream.chunk"}
		eq.includeChunks = true
	}
	eq.cursor = q.Get("cursor")
	if eq.cursor == "" {
		eq.cursor = strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	}
	return eq, true
}

type page struct {
	events   []eventRec
	chunks   []chunkRec
	next     cursor
	terminal bool
}

// readPage is the runtime's read_action_events: events after the cursor's
// offset, then chunks after its sequence, at most limit items, events first.
func (s *Server) readPage(id string, cur cursor, curText string, q eventsQuery) (page, *protoErr) {
	var events []eventRec
	var chunks []chunkRec
	terminal := false
	if id == s.actionID {
		s.mu.Lock()
		events, chunks = s.events, s.chunks
		// The follow loop's own check reads the state without chunks (A5).
		terminal = isTerminalState(s.stateLocked(false))
		s.mu.Unlock()
	}
	if cur.off > uint64(len(events)) {
		return page{}, expiredCursor(curText, len(events))
	}
	p := page{next: cur, terminal: terminal}
	off := int(cur.off)
	for ; off < len(events) && len(p.events) < q.limit; off++ {
		if len(q.kinds) == 0 || slices.Contains(q.kinds, events[off].kind) {
			p.events = append(p.events, events[off])
		}
	}
	p.next.off = uint64(off)
	if q.includeChunks {
		// Chunk sequences are their log positions.
		from := min(max(cur.chunk+1, 0), int64(len(chunks)))
		room := int64(q.limit - len(p.events))
		to := min(from+room, int64(len(chunks)))
		p.chunks = chunks[from:to]
		if len(p.chunks) > 0 {
			p.next.chunk = int64(p.chunks[len(p.chunks)-1].seq)
		}
	}
	return p, nil
}

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := s.actionIDFrom(w, r)
	if !ok {
		return
	}
	q, ok := parseEventsQuery(w, r)
	if !ok {
		return
	}
	if q.follow {
		s.follow(w, r, id, q)
		return
	}
	cur := cursor{chunk: -1}
	if q.cursor != "" {
		if cur, ok = parseCursor(q.cursor); !ok {
			s.writeError(w, invalidCursor(q.cursor))
			return
		}
		if s.cursors == CursorsPostgres {
			s.writeError(w, postgresCursor(cur))
			return
		}
	}
	p, perr := s.readPage(id, cur, q.cursor, q)
	if s.cursors == CursorsPostgres {
		p.next.off = 0 // the store's pg_evt_<seq> does not parse: offset 0 (A2)
	}
	if perr != nil {
		s.writeError(w, perr)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = io.WriteString(bw, `{"action_events":{"action_id":`)
	_, _ = bw.Write(appendCompactString(nil, id))
	_, _ = io.WriteString(bw, `,"events":[`)
	var scratch []byte
	for i := range p.events {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		scratch = s.appendEventJSON(scratch[:0], &p.events[i])
		_, _ = bw.Write(scratch)
	}
	_ = bw.WriteByte(']')
	if len(p.chunks) > 0 {
		_, _ = io.WriteString(bw, `,"chunks":`)
		writeChunkArray(bw, p.chunks)
	}
	_, _ = io.WriteString(bw, `,"cursor":"`+p.next.String()+`","terminal":`+strconv.FormatBool(p.terminal)+`}}`)
	_ = bw.Flush()
}

// follow is the SSE loop of native_sse_follow_response (docs/protocol.md §5).
func (s *Server) follow(w http.ResponseWriter, r *http.Request, id string, q eventsQuery) {
	unavailable := s.followSeen.Add(1) <= int64(s.k.Unavailable)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fw := &frameWriter{ctx: ctx, w: w, rc: http.NewResponseController(w), k: &s.k, last: time.Now()}
	if fw.flush() != nil {
		return
	}
	if unavailable {
		// Runtime errors on the follow route arrive in an open stream as
		// aip.error; only auth, a bad id and the query are HTTP errors (B6).
		fw.errorFrame(&protoErr{Code: "storage.unavailable", Message: "event storage is temporarily unavailable",
			Category: "temporary", Retryable: true, RetryAfterMs: 1000, Source: o("component", "aip.storage")})
		return
	}

	cur := cursor{chunk: -1}
	if q.cursor != "" {
		var ok bool
		if cur, ok = parseCursor(q.cursor); !ok {
			fw.errorFrame(invalidCursor(q.cursor))
			return
		}
		if s.cursors == CursorsPostgres {
			fw.errorFrame(postgresCursor(cur))
			return
		}
		if s.expiredSeen.Add(1) <= int64(s.k.ExpireCursors) {
			s.mu.Lock()
			n := len(s.events)
			s.mu.Unlock()
			fw.errorFrame(expiredCursor(q.cursor, n))
			return
		}
	}
	curText := q.cursor
	for first := true; ; first = false {
		if !first && s.cursors == CursorsPostgres {
			// The loop's next read carries the cursor it made itself, and
			// the store refuses it: a Postgres follow dies after one page.
			fw.errorFrame(postgresCursor(cur))
			return
		}
		p, perr := s.readPage(id, cur, curText, q)
		if perr != nil {
			fw.errorFrame(perr)
			return
		}
		if s.cursors == CursorsPostgres {
			p.next.off = 0
		}
		if s.writePage(fw, p) != nil {
			return
		}
		framed := len(p.events)+len(p.chunks) > 0
		next := p.next.String()
		if p.terminal {
			if fw.frame("aip.stream.terminal", `{"terminal":true,"action_id":`+string(appendCompactString(nil, id))+`}`, next) == nil {
				_ = fw.flush()
			}
			return
		}
		if fw.flush() != nil {
			return
		}
		cur, curText = p.next, next
		if !framed && fw.idle(s.k.PollInterval, true) != nil {
			return
		}
	}
}

// writePage writes one page's frames: events, chunks, the cursor frame, and
// the knobs that act on pages (repeats, the one-time hold).
func (s *Server) writePage(fw *frameWriter, p page) error {
	if len(p.events)+len(p.chunks) == 0 {
		return nil
	}
	items := func() error {
		for i := range p.events {
			e := &p.events[i]
			fw.scratch = s.appendEventJSON(fw.scratch[:0], e)
			if err := fw.item(e.kind, "event", fw.scratch, s.eventID(e)); err != nil {
				return err
			}
		}
		for _, c := range p.chunks {
			if err := fw.item("aip.stream.chunk", "chunk", c.json, "chunk:"+strconv.FormatUint(c.seq, 10)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := items(); err != nil {
		return err
	}
	next := p.next.String()
	if err := fw.frame("aip.stream.cursor", `{"next_cursor":"`+next+`"}`, next); err != nil {
		return err
	}
	if s.k.RepeatFrames {
		if err := items(); err != nil {
			return err
		}
	}
	if (s.k.KeepaliveOnly > 0 || s.k.Stall > 0) && s.holdDone.CompareAndSwap(false, true) {
		if err := fw.flush(); err != nil {
			return err
		}
		if err := fw.idle(s.k.KeepaliveOnly, true); err != nil {
			return err
		}
		if err := fw.idle(s.k.Stall, false); err != nil {
			return err
		}
	}
	return nil
}

package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The daemon's two deployments (topology.go): in-process, and the released
// getaip-server reaching Hermes through a connector host.

// heldRun starts scenario with its run held after its first frame, and
// returns a release (also run at cleanup, so a failing test ends).
func heldRun(t *testing.T, scenario string, k Knobs) (*Server, string, func()) {
	t.Helper()
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	k.Hold = hold
	t.Cleanup(release)
	s, u := start(t, scenario, k)
	return s, u, release
}

// waitFed waits until the run has fed its first frame to the connector
// (recorded centrally or not).
func waitFed(t *testing.T, s *Server) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s.mu.Lock()
		n := len(s.conn.events)
		s.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never fed a frame")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// aggregateT is the result's output, the connector's aggregate.
func aggregateT(t *testing.T, res actionResult) aggregate {
	t.Helper()
	var a aggregate
	mustJSON(t, res.Output, &a)
	return a
}

// On the fleet an async action records no chunk centrally, while it runs
// or after; its result's output.events hold every provider frame, the same
// frames the in-process build records as chunks.
func TestFleetAsyncRecordsNoChunk(t *testing.T) {
	t.Parallel()
	s, u, release := heldRun(t, "chat-tools", Knobs{Topology: TopologyFleet, Mode: ModeAsync, PollInterval: 10 * time.Millisecond})
	waitFed(t, s)
	// Running, with its queue record (RT: the central runtime owns async
	// admission), but no chunk to read: not streaming with include_chunks.
	for _, q := range []string{"", "include_chunks=true"} {
		if st := statusT(t, u, s.ActionID(), q); st["state"] != "running" || st["chunks"] != nil {
			t.Fatalf("%q: %v", q, st)
		}
	}
	if p, _ := readPageT(t, u, s.ActionID(), "include_chunks=true"); len(p.Chunks)+len(p.Events) != 0 {
		t.Fatalf("a running fleet async action has chunks or events: %+v", p)
	}
	release()
	waitSettled(t, s)
	log := everything(t, s, u)
	if len(log.Chunks) != 0 {
		t.Fatalf("%d chunks recorded centrally", len(log.Chunks))
	}
	if p, _ := readPageT(t, u, s.ActionID(), "kinds=aip.stream.chunk"); len(p.Events) != 0 {
		t.Fatal("aip.stream.chunk events recorded centrally")
	}
	if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "completed" {
		t.Fatalf("%v", st)
	}
	var kinds []string
	for _, e := range log.Events {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, " ") != "aip.action.result aip.action.worker_result" {
		t.Fatalf("events %v", kinds)
	}
	got := aggregateT(t, resultT(t, s, u))

	// The same turn in-process: its chunks are the frames of the result.
	in, iu := start(t, "chat-tools", Knobs{Mode: ModeAsync})
	waitSettled(t, in)
	chunks := everything(t, in, iu).Chunks
	want := aggregateT(t, resultT(t, in, iu))
	if len(got.Events) != len(chunks) || len(got.Events) != len(want.Events) || got.Text != want.Text || got.Text == "" ||
		!got.Terminal || got.Truncated || got.EndpointID != "sim" || got.Operation != "chat_stream" || got.HTTPStatus != 200 {
		t.Fatalf("fleet aggregate: %d events %q %v; in-process %d chunks, %d events", len(got.Events), got.Text, got.Terminal, len(chunks), len(want.Events))
	}
	for i, c := range chunks {
		h := c.hermes(t)
		if got.Events[i].RawData != h.RawData || !bytes.Equal(got.Events[i].Data, h.Data) || got.Events[i].Terminal != h.Terminal {
			t.Fatalf("event %d differs from the in-process chunk: %+v / %+v", i, got.Events[i], h)
		}
	}
}

// On the fleet a sync action has no record and no chunk while it runs:
// unknown with and without include_chunks; its result is the aggregate.
func TestFleetSyncRecordsNoChunk(t *testing.T) {
	t.Parallel()
	s, u, release := heldRun(t, "responses-tools", Knobs{Topology: TopologyFleet, Mode: ModeSync})
	waitFed(t, s)
	for _, q := range []string{"", "include_chunks=true"} {
		if st := statusT(t, u, s.ActionID(), q); st["state"] != "unknown" {
			t.Fatalf("%q: %v", q, st)
		}
	}
	if p, _ := readPageT(t, u, s.ActionID(), "include_chunks=true"); len(p.Chunks) != 0 {
		t.Fatal("a chunk recorded centrally")
	}
	release()
	waitSettled(t, s)
	if log := everything(t, s, u); len(log.Chunks) != 0 || len(log.Events) != 1 || log.Events[0].Kind != "aip.action.result" {
		t.Fatalf("%+v", log)
	}
	res := resultT(t, s, u)
	if a := aggregateT(t, res); res.Status != "completed" || len(a.Events) != 31 || !a.Terminal || a.Operation != "responses_stream" {
		t.Fatalf("%s: %d events", res.Status, len(a.Events))
	}
	if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "completed" {
		t.Fatalf("%v", st)
	}
}

// A stream that closes without a terminal frame: the connector's extra
// error chunk stays in the host's store too; the result says it.
func TestFleetUnterminatedResult(t *testing.T) {
	t.Parallel()
	s, u := start(t, "chat-unterminated", Knobs{Topology: TopologyFleet})
	waitSettled(t, s)
	if log := everything(t, s, u); len(log.Chunks) != 0 {
		t.Fatalf("%d chunks", len(log.Chunks))
	}
	res := resultT(t, s, u)
	if res.Status != "failed" || res.Error == nil || res.Error.Code != "connector.hermes_agent.stream_incomplete" || aggregateT(t, res).Terminal {
		t.Fatalf("%+v", res)
	}
}

// Streaming takes the synchronous path on both topologies: no record while
// it runs (unknown without include_chunks, streaming with it once a chunk
// exists), not listed until it settles. Its chunks are recorded centrally
// on both.
func TestStreamingModeBothTopologies(t *testing.T) {
	t.Parallel()
	for _, topo := range []string{TopologyInProcess, TopologyFleet} {
		t.Run(topo, func(t *testing.T) {
			t.Parallel()
			hold := make(chan struct{})
			release := sync.OnceFunc(func() { close(hold) })
			t.Cleanup(release)
			f, u := startFleet(t, FleetKnobs{Topology: topo},
				Member{"chat-tools", Knobs{Mode: ModeStreaming, Hold: hold, ActionID: "act_streaming"}},
				Member{"chat-error", Knobs{Finished: true, ActionID: "act_done"}})
			s := f.Actions()[0]
			if s.Mode() != ModeStreaming || s.Topology() != topo {
				t.Fatalf("mode %s topology %s", s.Mode(), s.Topology())
			}
			waitFed(t, s)
			if st := statusT(t, u, s.ActionID()); st["state"] != "unknown" || st["capability_id"] != nil {
				t.Fatalf("without chunks: %v", st)
			}
			if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "streaming" {
				t.Fatalf("with chunks: %v", st)
			}
			if p, _ := readPageT(t, u, s.ActionID(), "include_chunks=true"); len(p.Chunks) != 1 {
				t.Fatalf("%d chunks while held after the first", len(p.Chunks))
			}
			for _, a := range listT(t, u, "").L.Actions {
				if a["action_id"] == "act_streaming" {
					t.Fatal("a running streaming action is listed")
				}
			}
			release()
			waitSettled(t, s)
			if n := len(everything(t, s, u).Chunks); n != 47 {
				t.Fatalf("%d chunks", n)
			}
			listed := false
			for _, a := range listT(t, u, "").L.Actions {
				listed = listed || a["action_id"] == "act_streaming"
			}
			if !listed {
				t.Fatal("the settled streaming action is not listed")
			}
		})
	}
}

// A submission's mode streaming: the POST is held open and answers the
// result (never an ack), on both topologies; on the fleet its chunks are
// recorded centrally, a sync submission's are not.
func TestSubmitStreamingMode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		topo, mode string
		chunks     bool
	}{
		{TopologyInProcess, ModeStreaming, true},
		{TopologyFleet, ModeStreaming, true},
		{TopologyFleet, ModeSync, false},
		{TopologyFleet, ModeAsync, false},
	} {
		t.Run(c.topo+"/"+c.mode, func(t *testing.T) {
			t.Parallel()
			s, u := start(t, "chat-tools", Knobs{Topology: c.topo, Submit: SubmitKnobs{Await: true}})
			r, env := postT(t, u, envelope(s.ActionID(), "cap:hermes_agent:sim:chat_stream", chatIn, c.mode, ""))
			if r.status != http.StatusOK {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if c.mode == ModeAsync {
				if env.Body.Ack == nil {
					t.Fatalf("async: no ack: %s", r.body)
				}
				waitSettled(t, s)
			} else if env.Body.Ack != nil || env.Body.ActionResult == nil || env.Body.ActionResult.Status != "completed" {
				t.Fatalf("%s: %s", c.mode, r.body)
			}
			if s.SubmittedMode() != c.mode || s.Mode() != c.mode {
				t.Fatalf("submitted %q, runs %q", s.SubmittedMode(), s.Mode())
			}
			if n := len(everything(t, s, u).Chunks); (n > 0) != c.chunks {
				t.Fatalf("%d chunks recorded centrally", n)
			}
			if a := aggregateT(t, resultT(t, s, u)); len(a.Events) != 47 {
				t.Fatalf("%d events in the result", len(a.Events))
			}
		})
	}
}

func TestTopologyKnobsAreChecked(t *testing.T) {
	t.Parallel()
	for _, k := range []Knobs{
		{Topology: "cloud"},
		{FleetError: FleetErrHostNotReady},                            // in-process
		{Topology: TopologyFleet, FleetError: "connector_host.bored"}, // unknown
	} {
		if _, err := New("chat-tools", k); err == nil {
			t.Fatalf("%+v was accepted", k)
		}
	}
	if s, err := New("chat-tools", Knobs{Topology: TopologyInProcess, Mode: ModeStreaming}); err != nil || s.Mode() != ModeStreaming {
		t.Fatalf("%v", err)
	}
	if _, err := NewFleet(FleetKnobs{Topology: "cloud"}, Member{"chat-tools", Knobs{}}); err == nil {
		t.Fatal("an unknown fleet topology was accepted")
	}
	if _, err := NewFleet(FleetKnobs{Topology: TopologyFleet, History: History{Actions: 10, Events: 100}}, Member{"chat-tools", Knobs{}}); err == nil {
		t.Fatal("a History on the fleet topology was accepted")
	}
}

// A tenant-scoped token reads a global log without the chunk, result,
// cancel and worker events (they carry no tenant identity); the list and
// each action's own reads are as before.
func TestTenantScopedGlobalLog(t *testing.T) {
	t.Parallel()
	members := func() []Member {
		return []Member{
			{"chat-tools", Knobs{Finished: true, ActionID: "act_done_sync"}},
			{"chat-error", Knobs{Finished: true, Mode: ModeAsync, ActionID: "act_done_async"}},
			{"async-long", Knobs{Finished: true, ActionID: "act_cancelled"}},
		}
	}
	_, open := startFleet(t, FleetKnobs{GlobalEvents: true}, members()...)
	if n := len(logT(t, open, "limit=1000").S.Events); n == 0 {
		t.Fatal("the unscoped log is empty")
	}
	for name, fk := range map[string]FleetKnobs{
		"fleet":  {GlobalEvents: true, TenantScoped: true},
		"member": {GlobalEvents: true},
	} {
		ms := members()
		if name == "member" {
			ms[1].Knobs.TenantScoped = true // one member's makes the daemon's
		}
		f, u := startFleet(t, fk, ms...)
		p := logT(t, u, "limit=1000")
		if len(p.S.Events) != 0 {
			t.Fatalf("%s: the tenant-scoped log serves %d events, first %s", name, len(p.S.Events), p.S.Events[0].Kind)
		}
		head := logT(t, open, "limit=1000").S.Next
		if p.S.Next != head {
			t.Fatalf("%s: the position did not move past the hidden events: %s, want %s", name, p.S.Next, head)
		}
		if n := len(logT(t, u, "kinds=aip.action.result").S.Events); n != 0 {
			t.Fatalf("%s: %d result events", name, n)
		}
		if l := listT(t, u, ""); len(l.L.Actions) != 3 {
			t.Fatalf("%s: %d rows listed", name, len(l.L.Actions))
		}
		if log := everything(t, f.Actions()[0], u); len(log.Chunks) != 47 {
			t.Fatalf("%s: per-action reads changed: %d chunks", name, len(log.Chunks))
		}
		// A follow serves cursor frames only: read until its cursor has
		// passed every hidden event (the head), the timer a hang guard.
		st := openFollow(t, u+"/aip/v1/events?follow=true")
		guard := time.AfterFunc(10*time.Second, st.close)
		for passed := false; !passed; {
			fr, ok := st.next()
			if !ok || fr.partial {
				t.Fatalf("%s: the follow ended before its cursor reached %s", name, head)
			}
			if fr.event != "" && fr.event != "aip.stream.cursor" {
				t.Fatalf("%s: a tenant-scoped follow served %s", name, fr.event)
			}
			passed = fr.event == "aip.stream.cursor" && fr.id == head
		}
		guard.Stop()
		st.close()
	}
}

// rawError reads an error envelope whose details may be any JSON.
func rawError(t *testing.T, r reply, status int) (protocolError, json.RawMessage) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	var env struct {
		Body struct {
			Error struct {
				Error json.RawMessage `json:"error"`
			} `json:"error"`
		} `json:"body"`
	}
	mustJSON(t, r.body, &env)
	var pe struct {
		protocolError
		Details json.RawMessage `json:"details"`
	}
	mustJSON(t, env.Body.Error.Error, &pe)
	var plain protocolError
	plain.Code, plain.Message, plain.Category, plain.Retryable, plain.RetryAfterMs, plain.Source =
		pe.Code, pe.Message, pe.Category, pe.Retryable, pe.RetryAfterMs, pe.Source
	return plain, pe.Details
}

// The fleet's refusals (Knobs.FleetError), as the source shapes them: a
// sync or streaming submission answers the error with its category's HTTP
// status, and nothing is persisted (unknown for good); an async one is
// acked and dead-lettered with the error as its failed result.
func TestFleetErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, code, category, source, details string
		status, retryAfter                    int
		retryable                             bool
	}{
		{FleetErrHostNotReady, "connector_host.not_ready", "temporary", "aip-connector-host", "", 503, 10_000, true},
		{FleetErrHostCapacity, "connector_host.capacity", "temporary", "aip-connector-host", "", 503, 100, true},
		{FleetErrSchedulerOverloaded, "connector.scheduler_overloaded", "temporary", "aip-connector-remote.scheduler", "", 503, 100, true},
		{FleetErrAdmissionCapacity, "connector.admission_capacity", "temporary", "aip-connector-remote", `"tenant"`, 503, 1000, true},
		{FleetErrNoTenant, "auth.not_authorized", "auth", "aip-runtime", "", 401, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check := func(pe protocolError, details json.RawMessage) {
				t.Helper()
				if pe.Code != c.code || pe.Category != c.category || pe.Retryable != c.retryable || pe.RetryAfterMs != c.retryAfter ||
					pe.Source["component"] != c.source || string(details) != c.details {
					t.Fatalf("%+v details %s", pe, details)
				}
				if c.name == FleetErrNoTenant && !strings.Contains(pe.Message, "remote connector execution requires a verified tenant") {
					t.Fatalf("message %q", pe.Message)
				}
			}
			for _, mode := range []string{ModeSync, ModeStreaming} {
				s, u := start(t, "chat-tools", Knobs{Topology: TopologyFleet, FleetError: c.name, Submit: SubmitKnobs{Await: true}})
				check(rawError(t, do(t, http.MethodPost, u+"/aip/v1/actions", envelope(s.ActionID(), "cap:hermes_agent:sim:chat_stream", chatIn, mode, "")), c.status))
				if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "unknown" {
					t.Fatalf("%s: %v", mode, st)
				}
				if r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"); r.status != http.StatusBadRequest {
					t.Fatalf("%s: result %d", mode, r.status)
				}
				if l := s.Submissions(); len(l) != 1 || l[0].Reply != "error:"+c.code {
					t.Fatalf("%+v", l)
				}
			}
			s, u := start(t, "chat-tools", Knobs{Topology: TopologyFleet, FleetError: c.name, Submit: SubmitKnobs{Await: true}})
			if r, env := postT(t, u, envelope(s.ActionID(), "cap:hermes_agent:sim:chat_stream", chatIn, ModeAsync, "")); r.status != 200 || env.Body.Ack == nil {
				t.Fatalf("async: %d %s", r.status, r.body)
			}
			waitSettled(t, s)
			if st := statusT(t, u, s.ActionID()); st["state"] != "dead_lettered" || st["result_status"] != "failed" {
				t.Fatalf("%v", st)
			}
			r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result")
			var p struct {
				R struct {
					Status string          `json:"status"`
					Output json.RawMessage `json:"output"`
					Error  json.RawMessage `json:"error"`
				} `json:"action_result"`
			}
			mustJSON(t, r.body, &p)
			if p.R.Status != "failed" || p.R.Output != nil {
				t.Fatalf("%s", r.body)
			}
			var pe struct {
				protocolError
				Details json.RawMessage `json:"details"`
			}
			mustJSON(t, p.R.Error, &pe)
			plain := pe.protocolError
			plain.Source = pe.Source
			check(plain, pe.Details)
		})
	}
}

// The failing cancel on the fleet: the host's cancel fails, the route
// answers its error (502 connector_host.execution, the host's source),
// and the run still ends cancelled, a sync or streaming one with the
// stored {cancelled, reason}.
func TestFleetCancelErrorStillCancels(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeSync, ModeStreaming, ModeAsync} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s, u, _ := heldRun(t, "long", Knobs{Topology: TopologyFleet, Mode: mode, CancelErrorReply: true})
			waitFed(t, s)
			pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{"reason":"x"}`), http.StatusBadGateway)
			if pe.Code != "connector_host.execution" || pe.Category != "connector" || pe.Source["component"] != "aip-connector-host" {
				t.Fatalf("%+v", pe)
			}
			waitSettled(t, s)
			st := statusT(t, u, s.ActionID())
			if st["state"] != "cancelled" {
				t.Fatalf("%v", st)
			}
			// The recording step after the host's cancel was skipped.
			if p, _ := readPageT(t, u, s.ActionID(), "kinds=aip.action.cancelled"); len(p.Events) != 0 {
				t.Fatal("an aip.action.cancelled event was recorded")
			}
			if mode == ModeAsync {
				if st["queued_state"] != "cancelled" || st["result_status"] != nil {
					t.Fatalf("%v", st)
				}
				return
			}
			res := resultT(t, s, u)
			var out struct {
				Cancelled bool   `json:"cancelled"`
				Reason    string `json:"reason"`
			}
			mustJSON(t, res.Output, &out)
			if res.Status != "cancelled" || !out.Cancelled || out.Reason == "" {
				t.Fatalf("%+v", res)
			}
		})
	}
	// In-process, the same knob keeps its own answer (A6).
	s, u, _ := heldRun(t, "long", Knobs{CancelErrorReply: true})
	waitFed(t, s)
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{}`), http.StatusServiceUnavailable); pe.Code != "runtime.handler_failed" {
		t.Fatalf("%+v", pe)
	}
}

// The demo of the connector-host deployment: streaming actions stream
// live, the others record no chunk; the settled ones' results hold their
// frames.
func TestConnectorHostFleet(t *testing.T) {
	t.Parallel()
	f, err := ConnectorHostFleet(4, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	u, err := f.Start()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*Server{}
	for _, s := range f.Actions() {
		if s.Topology() != TopologyFleet {
			t.Fatalf("%s runs %s", s.ActionID(), s.Topology())
		}
		by[s.ActionID()] = s
	}
	ids := ConnectorHostActions
	for _, id := range ids {
		if by[id] == nil {
			t.Fatalf("%s is missing", id)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); statusT(t, u, ids[1], "include_chunks=true")["state"] != "streaming"; {
		if time.Now().After(deadline) {
			t.Fatal("the streaming action never streams")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, id := range []string{ids[2], ids[4], ids[5], ids[6]} {
		if n := len(everything(t, by[id], u).Chunks); n != 0 {
			t.Fatalf("%s: %d chunks", id, n)
		}
	}
	res := resultT(t, by[ids[5]], u)
	a := aggregateT(t, res)
	if res.Status != "completed" || len(a.Events) != 20 || !strings.Contains(string(a.Events[len(a.Events)-2].Data), `"finish_reason":"length"`) {
		t.Fatalf("%s %d events", res.Status, len(a.Events))
	}
	if n := len(logT(t, u, "limit=1000").S.Events); n != 0 {
		t.Fatalf("the tenant-scoped log serves %d events", n)
	}
}

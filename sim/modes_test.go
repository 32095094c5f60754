package sim

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The daemon behaviours that the first reading missed, one test each,
// named after the section of docs/protocol.md they model.

func TestA1AsyncCancelHasNoResult(t *testing.T) {
	t.Parallel()
	s, u := start(t, "async-long", Knobs{Speed: 4, PollInterval: 10 * time.Millisecond})
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] == "streaming" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("async-long never streams")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{"reason":"stop"}`)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"status":"cancelled"`) {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	waitSettled(t, s)
	st := statusT(t, u, s.ActionID())
	if st["state"] != "cancelled" || st["queued_state"] != "cancelled" || st["result_status"] != nil {
		t.Fatalf("state without chunks: %v", st)
	}
	// No result: action_lifecycle_state looks at the loaded chunks before
	// the queue record's status.
	if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "streaming" {
		t.Fatalf("state with chunks: %v", st)
	}
	for range 3 {
		pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"), http.StatusServiceUnavailable)
		if pe.Code != "action.result_not_ready" || pe.Retryable {
			t.Fatalf("%+v", pe)
		}
	}
	// The follow ends: cancelled is terminal without chunks.
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	if frames[len(frames)-1].event != "aip.stream.terminal" {
		t.Fatal("no terminal frame for the cancelled async action")
	}
	log := everything(t, s, u)
	if last := log.Chunks[len(log.Chunks)-1]; last.Kind != "data" {
		t.Fatalf("a chunk was published on cancel: %s", last.Kind)
	}
}

func TestA7AsyncFailureIsDeadLettered(t *testing.T) {
	t.Parallel()
	s, u := start(t, "async-dead-lettered", Knobs{})
	waitSettled(t, s)
	st := statusT(t, u, s.ActionID())
	if st["state"] != "dead_lettered" || st["result_status"] != "failed" {
		t.Fatalf("%v", st)
	}
	// The dead-letter reason comes before the result and the loaded chunks.
	if st := statusT(t, u, s.ActionID(), "include_chunks=true"); st["state"] != "dead_lettered" || st["chunks"] == nil {
		t.Fatalf("with include_chunks: state %v, chunks loaded %v", st["state"], st["chunks"] != nil)
	}
	if res := resultT(t, s, u); res.Status != "failed" || res.Error == nil || res.Error.Code != "connector.hermes_agent.stream_failed" {
		t.Fatalf("%+v", res)
	}
}

func TestA2PostgresRefusesItsOwnCursors(t *testing.T) {
	t.Parallel()
	// The run is held after its first chunk (Knobs.Hold) while the
	// cursors are tried, then plays out at once. Should a follow not die on
	// its cursor, the hold ends after 10 s and the follow with it: a
	// failure, not a hang.
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	time.AfterFunc(10*time.Second, release)
	s, u := start(t, "postgres", Knobs{Hold: hold, PollInterval: 10 * time.Millisecond})
	for deadline := time.Now().Add(5 * time.Second); statusT(t, u, s.ActionID(), "include_chunks=true")["state"] != "streaming"; {
		if time.Now().After(deadline) {
			t.Fatal("never streams")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A follow without a cursor serves one page, then dies on its own cursor.
	frames, _ := followAll(t, followURL(u, s.ActionID(), ""))
	last := frames[len(frames)-1]
	if last.event != "aip.error" || !strings.Contains(last.data, "must use `pg_evt_<seq>` format") ||
		!strings.Contains(last.data, `"expected_prefix":"pg_evt_"`) {
		t.Fatalf("last frame %+v", last)
	}
	var cursors []string
	for _, f := range frames {
		if f.event == "aip.stream.cursor" {
			cursors = append(cursors, f.id)
		}
	}
	if len(cursors) != 1 || !strings.HasPrefix(cursors[0], "aev_cursor_0_") {
		t.Fatalf("cursors %v", cursors)
	}
	// A follow or a page with that cursor is refused.
	frames, _ = followAll(t, followURL(u, s.ActionID(), "cursor="+cursors[0]))
	if len(frames) != 1 || frames[0].event != "aip.error" {
		t.Fatalf("%+v", frames)
	}
	pe := envelopeError(t, get(t, eventsURL(u, s.ActionID(), "include_chunks=true&cursor="+cursors[0])), http.StatusBadRequest)
	if pe.Code != "query.invalid_cursor" {
		t.Fatalf("%+v", pe)
	}
	// What works: requests without a cursor; the status with chunks holds
	// every chunk.
	release()
	waitSettled(t, s)
	r := get(t, u+"/aip/v1/actions/"+s.ActionID()+"?include_chunks=true")
	var st struct {
		S struct {
			Chunks []chunk `json:"chunks"`
		} `json:"action_status"`
	}
	mustJSON(t, r.body, &st)
	if len(st.S.Chunks) != 47 {
		t.Fatalf("%d chunks in the status", len(st.S.Chunks))
	}
}

func TestA3SyncHandlerFailureNeverSettles(t *testing.T) {
	t.Parallel()
	s, u := start(t, "sync-handler-failed", Knobs{})
	waitSettled(t, s)
	if st := statusT(t, u, s.ActionID()); st["state"] != "unknown" || st["capability_id"] != nil {
		t.Fatalf("%v", st)
	}
	p, _ := readPageT(t, u, s.ActionID(), "include_chunks=true&limit=1000")
	if len(p.Chunks) == 0 || p.Terminal {
		t.Fatalf("%d chunks, terminal %v", len(p.Chunks), p.Terminal)
	}
	if last := p.Chunks[len(p.Chunks)-1]; last.Kind != "data" {
		t.Fatalf("the failed run ends on %s", last.Kind)
	}
	if pe := envelopeError(t, get(t, u+"/aip/v1/actions/"+s.ActionID()+"/result"), http.StatusBadRequest); pe.Code != "action.not_found" {
		t.Fatalf("%+v", pe)
	}
	if pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{}`), http.StatusBadRequest); pe.Code != "resource.not_found" {
		t.Fatalf("%+v", pe)
	}
	// Its follow never ends: keep-alives only (the client's stall rule).
	st := openFollow(t, followURL(u, s.ActionID(), ""))
	time.Sleep(100 * time.Millisecond)
	st.close()
	for _, f := range st.all() {
		if f.event == "aip.stream.terminal" {
			t.Fatal("a terminal frame for a run with no record")
		}
	}
}

func TestA6CancelErrorReply(t *testing.T) {
	t.Parallel()
	s, u := start(t, "long", Knobs{Speed: 4, CancelErrorReply: true})
	time.Sleep(50 * time.Millisecond)
	pe := envelopeError(t, do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{"reason":"x"}`), http.StatusServiceUnavailable)
	if pe.Code != "runtime.handler_failed" {
		t.Fatalf("%+v", pe)
	}
	waitSettled(t, s)
	if res := resultT(t, s, u); res.Status != "cancelled" {
		t.Fatalf("the cancel did not take effect: %s", res.Status)
	}
}

func TestB4LateCancelAsyncQueuedState(t *testing.T) {
	t.Parallel()
	s, u := start(t, "late-cancel", Knobs{Mode: ModeAsync})
	waitSettled(t, s)
	do(t, http.MethodPost, u+"/aip/v1/actions/"+s.ActionID()+"/cancel", `{}`)
	if st := statusT(t, u, s.ActionID()); st["state"] != "completed" || st["queued_state"] != "cancelled" {
		t.Fatalf("%v", st)
	}
}

func TestModeKnobsAreChecked(t *testing.T) {
	t.Parallel()
	if _, err := New("chat-tools", Knobs{Mode: "stream"}); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
	if _, err := New("chat-tools", Knobs{Cursors: "mysql"}); err == nil {
		t.Fatal("an unknown cursor store was accepted")
	}
}

package cli

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"aipwatch/sim"
)

// The conformance table: one test per row of "where the daemon surprised the
// first client" (protocol §10) and per divergence A1 to A7 of
// docs/protocol.md. Each runs the real client (the
// CLI, in process) against the simulator in the mode that row is about, and
// asserts the verdict, the exit code and what the operator is told.
//
// The row about response_get's "404" belongs to reconciliation (design
// §8) and is tested with it.

// live starts a scenario that is still running when the client attaches.
func live(t *testing.T, scenario string, k sim.Knobs) *sim.Server {
	t.Helper()
	if k.Speed == 0 {
		k.Speed = 20
	}
	return startSim(t, scenario, k)
}

func plain(t *testing.T, srv *sim.Server, extra ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"--url", srv.URL(), "--output", "plain"}, extra...)
	return runCLI(t, append(args, srv.ActionID())...)
}

func wantLine(t *testing.T, out, line string) {
	t.Helper()
	if !strings.Contains(out, line) {
		t.Fatalf("the operator is not told %q:\n%s", line, out)
	}
}

func wantExit(t *testing.T, code, want int, out, errOut string) {
	t.Helper()
	if code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
}

// Row: state `unknown` does not mean "no such action" (design §2 step 1).
// The guide's default `action call` is synchronous: no record while it runs.
func TestRowUnknownIsNotNoSuchAction(t *testing.T) {
	t.Parallel()
	srv := live(t, "chat-tools", sim.Knobs{Mode: sim.ModeSync})
	code, out, errOut := plain(t, srv)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "aipd has no record of "+srv.ActionID()+" yet (a synchronous or streaming action has none while it runs): waiting for its first event")
	wantLine(t, out, "verdict: verified (")
}

// Row: "any chunks → streaming" holds only with include_chunks=true. The
// probe reads without it, so a synchronous action attached mid-stream reads
// unknown, and is followed from its first chunk.
func TestRowStreamingOnlyWithIncludeChunks(t *testing.T) {
	t.Parallel()
	srv := live(t, "chat-tools", sim.Knobs{Speed: 4})
	waitStreaming(t, srv)
	before := len(srv.Requests())
	code, out, errOut := plain(t, srv)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "aipd has no record of")
	wantLine(t, out, "I'll take a look at the project layout first.")
	for _, r := range srv.Requests()[before:] {
		if r.Path == "/aip/v1/actions/"+srv.ActionID() {
			if q, _ := url.ParseQuery(r.RawQuery); q.Get("include_chunks") == "true" {
				t.Fatalf("the state was read with include_chunks: %+v", r)
			}
			break
		}
	}
}

// Row and A1: an asynchronous action cancelled in flight never gets a
// stored result; its state `cancelled` decides (design §2 step 7).
func TestRowA1AsyncCancelNeverGetsAResult(t *testing.T) {
	t.Parallel()
	srv := live(t, "async-long", sim.Knobs{})
	code, out, errOut := plain(t, srv, "--cancel")
	wantExit(t, code, 7, out, errOut)
	wantLine(t, out, "result not ready (action.result_not_ready): read 2")
	wantLine(t, out, "cancel: cancelled")
	wantLine(t, out, "verdict: cancelled (AIP state cancelled, no stored result (cancelled in flight))")
	if strings.Contains(out+errOut, "keeps running") {
		t.Fatal("a cancelled action is said to keep running")
	}

	// Reviewing it later ends the same way.
	done := startSim(t, "async-long", sim.Knobs{Finished: true})
	code, out, errOut = plain(t, done)
	wantExit(t, code, 7, out, errOut)
	wantLine(t, out, "verdict: cancelled")
}

// Row and A2: a Postgres-backed daemon refuses every cursor it hands out;
// the client restarts once, then reads without cursors and says so once.
func TestRowA2PostgresRefusesItsOwnCursors(t *testing.T) {
	t.Parallel()
	srv := live(t, "postgres", sim.Knobs{})
	waitStreaming(t, srv)
	code, out, errOut := plain(t, srv)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "aipd refuses its own cursors (query.invalid_cursor): reading the action without cursors from now on")
	if n := strings.Count(out, "refuses its own cursors"); n != 1 {
		t.Fatalf("said %d times", n)
	}
	wantLine(t, out, "verdict: verified (")

	// A review needs a second page, which is refused the same way.
	done := startSim(t, "postgres", sim.Knobs{Finished: true})
	code, out, errOut = plain(t, done)
	wantExit(t, code, 0, out, errOut)
	wantLine(t, out, "reading the action without cursors")
}

// Row and A7: a failed async action is dead_lettered with a readable failed
// result; the result decides (row 4 of design §3).
func TestRowA7DeadLetteredWithFailedResult(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "async-dead-lettered", sim.Knobs{})
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
	wantExit(t, code, 4, out, errOut)
	v := lastJSON(t, out)
	if v["verdict"] != "failed" || v["error_code"] != "connector.hermes_agent.stream_failed" {
		t.Fatalf("%v", v)
	}
}

// Row and A4: the daemon publishes no chunk when it cancels: the transcript
// ends on an ordinary delta, and the result decides.
func TestRowA4CancelPublishesNoChunk(t *testing.T) {
	t.Parallel()
	srv := live(t, "long", sim.Knobs{})
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "jsonl", "--cancel", srv.ActionID())
	wantExit(t, code, 7, out, errOut)
	v := lastJSON(t, out)
	if v["verdict"] != "cancelled" || v["finish_reason"] != "" || !strings.Contains(strings.Join(toStrings(v["reasons"]), ","), "AIP result cancelled") {
		t.Fatalf("%v", v)
	}
}

// Row and A5: an async action reads queued, then running (never streaming
// without include_chunks); it has a record, so nothing is said about one.
func TestRowA5AsyncStates(t *testing.T) {
	t.Parallel()
	srv := live(t, "chat-tools", sim.Knobs{Mode: sim.ModeAsync})
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "jsonl", srv.ActionID())
	wantExit(t, code, 0, out, errOut)
	if strings.Contains(out, "no_record") {
		t.Fatal("an async action was said to have no record")
	}
	if v := lastJSON(t, out); v["verdict"] != "verified" {
		t.Fatalf("%v", v)
	}
}

// Row and A3: /result of a synchronous action without a record answers
// action.not_found; a synchronous run whose handler failed keeps its chunks
// and stays unknown for ever: settled incomplete after --stall-timeout
// (design §2 step 6b).
func TestRowA3SyncHandlerFailureSettlesIncomplete(t *testing.T) {
	t.Parallel()
	srv := live(t, "sync-handler-failed", sim.Knobs{})
	code, out, errOut := plain(t, srv, "--stall-timeout", "400ms")
	wantExit(t, code, 6, out, errOut)
	wantLine(t, out, "no progress for 0.4s and aipd holds no record or result: the run ended without one")
	wantLine(t, out, "verdict: incomplete (no AIP result: the run ended without one)")
}

// Row: the state comes from a read without include_chunks: with it, an async
// action cancelled without a result reads `streaming` for ever. Cursor-free
// reading (on a Postgres daemon) reads both.
func TestRowStateFromReadWithoutChunks(t *testing.T) {
	t.Parallel()
	srv := live(t, "async-long", sim.Knobs{Cursors: sim.CursorsPostgres})
	waitStreaming(t, srv)
	code, out, errOut := plain(t, srv, "--cancel")
	wantExit(t, code, 7, out, errOut)
	wantLine(t, out, "reading the action without cursors")
	wantLine(t, out, "verdict: cancelled")
}

// Rows on the open questions of protocol §10 (its last row): limit is clamped, never refused; kinds
// filters events only, never chunks.
func TestRowLimitClampedKindsFilterEventsOnly(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{})
	r := getJSON(t, srv.URL()+"/aip/v1/actions/"+srv.ActionID()+"/events?include_chunks=true&limit=5000&kinds=aip.action.result")
	page := r["action_events"].(map[string]any)
	if ev := page["events"].([]any); len(ev) != 1 {
		t.Fatalf("kinds did not filter events: %d", len(ev))
	}
	if ch := page["chunks"].([]any); len(ch) != 47 {
		t.Fatalf("kinds filtered chunks: %d", len(ch))
	}
}

// A6: a cancel whose reply is an error although the action was cancelled
// is a cancel that worked (design §2 step 9).
func TestRowA6CancelErrorReplyThatCancelled(t *testing.T) {
	t.Parallel()
	srv := live(t, "long", sim.Knobs{CancelErrorReply: true})
	code, out, errOut := plain(t, srv, "--cancel")
	wantExit(t, code, 7, out, errOut)
	wantLine(t, out, "cancel: cancelled")
	wantLine(t, out, "verdict: cancelled")
}

// Done when: an action ID that no daemon knows is waited for at most
// --appear-timeout, then one line says what was checked and what to check.
func TestUnknownIDGivesUpAfterAppearTimeout(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{})
	start := time.Now()
	code, out, errOut := runCLI(t, "--url", srv.URL(), "--output", "plain", "--appear-timeout", "300ms", "act_nobody_knows")
	wantExit(t, code, 1, out, errOut)
	if time.Since(start) < 300*time.Millisecond {
		t.Fatal("gave up before --appear-timeout")
	}
	lines := strings.Split(strings.TrimSpace(out+"\n"+errOut), "\n")
	var line string
	for _, l := range lines {
		if strings.Contains(l, "act_nobody_knows") {
			line = l
		}
	}
	for _, want := range []string{"act_nobody_knows", "within 300ms", strings.TrimPrefix(srv.URL(), "http://"),
		"never submitted", "rejected before it ran", "synchronous run that failed before its first chunk", "--url"} {
		if !strings.Contains(line, want) {
			t.Fatalf("%q does not say %q\nstderr: %s", line, want, errOut)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func getJSON(t *testing.T, target string) map[string]any {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// waitStreaming waits until the action has chunks (a status read with
// include_chunks=true says streaming), so the client attaches mid-stream.
func waitStreaming(t *testing.T, srv *sim.Server) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		st := getJSON(t, srv.URL()+"/aip/v1/actions/"+srv.ActionID()+"?include_chunks=true")["action_status"].(map[string]any)
		if st["state"] == "streaming" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never streaming: %v", st["state"])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

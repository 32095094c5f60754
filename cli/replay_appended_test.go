package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/model"
	"aipwatch/record"
	"aipwatch/sim"
	"aipwatch/stream"
)

// A recording that several runs appended to (a resumed run appends, and
// so does any run given the same --record) replays to how the runs ended
// together: a failed run (here a 401) before a verified one does not make
// the replay an error, and its error stays in the connection log; a failed
// run after one that read the result leaves that verdict standing, with a
// warning. A recording whose only run failed still replays as that error.
func TestReplayOfAppendedRuns(t *testing.T) {
	t.Parallel()
	srv := startSim(t, "chat-tools", sim.Knobs{Token: "right"})
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	for p, tok := range map[string]string{good: "right", bad: "wrong"} {
		if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runRec := func(rec, tok string) int {
		code, _, _ := runCLI(t, "--url", srv.URL(), "--token-file", tok, "--output", "jsonl", "--record", rec, srv.ActionID())
		return code
	}
	onlyBad := filepath.Join(dir, "only-bad.jsonl")
	if code := runRec(onlyBad, bad); code != model.ExitError {
		t.Fatalf("a wrong token: exit %d", code)
	}
	if code, out, _ := runCLI(t, "--replay", onlyBad, "--output", "jsonl"); code != model.ExitError || lastJSON(t, out)["type"] != "error" {
		t.Fatalf("the failed run alone replays as exit %d:\n%s", code, out)
	}

	badThenGood := filepath.Join(dir, "bad-then-good.jsonl")
	runRec(badThenGood, bad)
	if code := runRec(badThenGood, good); code != 0 {
		t.Fatalf("the good run: exit %d", code)
	}
	code, out, errOut := runCLI(t, "--replay", badThenGood, "--output", "jsonl")
	if v := lastJSON(t, out); code != 0 || v["verdict"] != "verified" {
		t.Fatalf("failed then verified: exit %d %s\n%s", code, errOut, out)
	}
	// The earlier run's error still reaches the model, for its connection
	// log (the TUI's l), and the next run's mode lifts it.
	rp, err := record.Open(badThenGood)
	if err != nil {
		t.Fatal(err)
	}
	a := model.NewAction(srv.ActionID())
	if err := rp.Run(context.Background(), stream.SinkFunc(func(m stream.Msg) { stream.Apply(a, m) })); err != nil {
		t.Fatalf("replay of failed then verified: %v", err)
	}
	logged := false
	for _, h := range a.Timeline() {
		logged = logged || (h.Kind == model.HapError && h.Code == "auth.native_http_unauthorized")
	}
	if !logged || a.Connection().Err != nil {
		t.Fatalf("earlier error logged %v, connection error %v", logged, a.Connection().Err)
	}

	goodThenBad := filepath.Join(dir, "good-then-bad.jsonl")
	runRec(goodThenBad, good)
	runRec(goodThenBad, bad)
	code, out, errOut = runCLI(t, "--replay", goodThenBad, "--output", "jsonl")
	if v := lastJSON(t, out); code != 0 || v["verdict"] != "verified" {
		t.Fatalf("verified then failed: exit %d %s\n%s", code, errOut, out)
	}
	if !strings.Contains(errOut, "a later run in the recording failed") {
		t.Fatalf("no warning for the later failed run: %q", errOut)
	}
}

// A run of another action appended to the same file (--record given the
// same path for two actions) is not this action's evidence: the replay
// skips it with a warning, and ends as the first action's runs did.
func TestReplaySkipsAnotherActionsRun(t *testing.T) {
	t.Parallel()
	first := startSim(t, "chat-tools", sim.Knobs{})
	second := startSim(t, "chat-error", sim.Knobs{})
	rec := filepath.Join(t.TempDir(), "two.jsonl")
	if code, _, _ := runCLI(t, "--url", first.URL(), "--output", "jsonl", "--record", rec, first.ActionID()); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	runCLI(t, "--url", second.URL(), "--output", "jsonl", "--record", rec, second.ActionID())
	code, out, errOut := runCLI(t, "--replay", rec, "--output", "jsonl")
	if v := lastJSON(t, out); code != 0 || v["verdict"] != "verified" || v["action_id"] != first.ActionID() ||
		!strings.Contains(errOut, "a run of another action ("+second.ActionID()+") appended here is skipped") {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
}

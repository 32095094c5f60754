package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/internal/deadlines"
	"aipwatch/model"
	"aipwatch/safe"
	"aipwatch/stream"
)

// complete asks the tree for the words that fit, as a shell's script does,
// with a daemon's read bounded by a minute (runPatient).
func complete(t *testing.T, getenv func(string) string, args ...string) []string {
	t.Helper()
	return completeWith(t, runPatient, getenv, args...)
}

// completeWith is complete run by run (runWith: completion's own 1 s bound).
func completeWith(t *testing.T, run func(func(string) string, ...string) (int, string, string), getenv func(string) string, args ...string) []string {
	t.Helper()
	code, out, errOut := run(getenv, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d %s", args, code, errOut)
	}
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, ":") { // the last line is the directive
			words = append(words, strings.SplitN(l, "\t", 2)[0])
		}
	}
	return words
}

func has(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// completion prints each shell's script; the words it completes are the
// config's contexts, AIP's states, the output modes, and action IDs from
// the daemon's recent list (one read) and this machine's journal.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for shell, head := range map[string]string{"bash": "# bash completion V2 for aipwatch", "zsh": "#compdef aipwatch",
		"fish": "# fish completion for aipwatch", "powershell": "# powershell completion for aipwatch"} {
		code, out, errOut := runCLI(t, "completion", shell)
		if code != 0 || !strings.HasPrefix(out, head) || errOut != "" {
			t.Errorf("%s: exit %d, starts %q, stderr %q", shell, code, out[:min(len(out), 40)], errOut)
		}
	}
	if code, out, _ := runCLI(t, "completion", "tcsh"); code != model.ExitUsage || out != "" {
		t.Errorf("completion tcsh: exit %d", code)
	}
	if w := complete(t, noEnv, "ls", "--state", ""); !has(w, "dead_lettered") || !has(w, "pending_approval") || has(w, "verified") {
		t.Errorf("--state: %v", w)
	}
	if w := complete(t, noEnv, "--output", ""); strings.Join(w, ",") != "tui,plain,jsonl" {
		t.Errorf("--output: %v", w)
	}
	f := newContextFixture(t, twoContexts)
	if w := complete(t, f.getenv, "ls", "--context", ""); strings.Join(w, ",") != "prod,staging" {
		t.Errorf("--context: %v", w)
	}
	if w := complete(t, f.getenv, "contexts", "use", ""); strings.Join(w, ",") != "prod,staging" {
		t.Errorf("contexts use: %v", w)
	}
	if w := complete(t, noEnv, "sbm"); len(w) != 0 {
		t.Errorf("sbm: %v", w)
	}
	if w := complete(t, noEnv, "su"); !has(w, "submit") {
		t.Errorf("su: %v", w)
	}

	fl, getenv := fleetWithJournal(t, func(url string) string {
		return `{"kind":"submit","action_id":"act_mine_sync","base_url":"` + url + `"}` + "\n" +
			`{"kind":"submit","action_id":"act_elsewhere","base_url":"http://127.0.0.1:1"}` + "\n"
	})
	for _, args := range [][]string{{"--url", fl.URL(), ""}, {"reconcile", "--url", fl.URL(), ""}} {
		before := fl.Stats().ListRequests
		w := complete(t, getenv, args...)
		if !has(w, "act_dead") || !has(w, "act_mine_sync") || has(w, "act_elsewhere") {
			t.Errorf("%v: IDs %v", args, w)
		}
		if n := fl.Stats().ListRequests - before; n != 1 {
			t.Errorf("%v: %d list requests, want 1", args, n)
		}
	}
	// Up to four IDs follow at once (design §12): the second is offered
	// too, never one already given; past four, and past reconcile's one,
	// no ID.
	if w := complete(t, getenv, "--url", fl.URL(), "act_dead", ""); has(w, "act_dead") || !has(w, "act_mine_sync") {
		t.Errorf("a second ID: %v", w)
	}
	if w := complete(t, getenv, "--url", fl.URL(), "act_a", "act_b", "act_c", "act_d", ""); len(w) != 0 {
		t.Errorf("a fifth ID: %v", w)
	}
	if w := complete(t, getenv, "reconcile", "--url", fl.URL(), "act_dead", ""); len(w) != 0 {
		t.Errorf("reconcile's second ID: %v", w)
	}
}

// An ID completion's read of the daemon is bounded by 1 s (design §11): its
// requests carry a deadline 1 s from the read's start. Read from the
// requests' deadlines (of a daemon that refuses at once, so that the read
// ends long before its bound), not from how long a stalled read took.
func TestCompletionReadIsBoundedByOneSecond(t *testing.T) {
	t.Parallel()
	refusing := newAuthLog(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"code":"auth.forbidden","message":"no"}}`, http.StatusForbidden)
	})
	log := &deadlines.Log{}
	client, err := stream.NewDaemon(stream.Config{BaseURL: refusing.srv.URL, HTTP: &http.Client{Transport: log}})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	ids := recentIDs(client, completionTimeout)
	after := time.Now()
	if len(ids) != 0 {
		t.Fatalf("a daemon that refuses gave %v", ids)
	}
	if err := log.Within(before, after, time.Second); err != nil { // design §11
		t.Fatal(err)
	}
}

// A daemon that does not answer in time still lets an ID completion offer
// the journal's IDs (its bound: TestCompletionReadIsBoundedByOneSecond).
func TestCompletionOfAStalledDaemon(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stalled := newAuthLog(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	getenv, path := stateEnv(t)
	writeJournal(t, path, `{"kind":"submit","action_id":"act_journalled","base_url":"`+stalled.srv.URL+`"}`+"\n")
	if w := completeWith(t, runWith, getenv, "--url", stalled.srv.URL, ""); !has(w, "act_journalled") {
		t.Errorf("words %v", w)
	}
}

// runPatient runs the tree as Run does, but an ID completion's read is
// bounded by a minute (a hang guard) instead of 1 s: a test whose daemon
// must answer asserts nothing a loaded machine's scheduler decides (the
// 1 s bound itself: TestCompletionReadIsBoundedByOneSecond).
func runPatient(getenv func(string) string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	sout, serr := safe.NewWriter(&out, safe.Terminal), safe.NewWriter(&errb, safe.Terminal)
	e := &runEnv{stdin: strings.NewReader(""), stdout: sout, stderr: serr, getenv: getenv, keys: testKeys(), args: args,
		completionBound: time.Minute}
	code := e.run(args)
	_ = sout.Flush()
	_ = serr.Flush()
	return code, out.String(), errb.String()
}

// writeJournal puts lines at the journal's path.
func writeJournal(t *testing.T, path, lines string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
}

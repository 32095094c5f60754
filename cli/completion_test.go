package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aipwatch/model"
)

// complete asks the tree for the words that fit, as a shell's script does.
func complete(t *testing.T, getenv func(string) string, args ...string) []string {
	t.Helper()
	code, out, errOut := runWith(getenv, append([]string{"__complete"}, args...)...)
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

// A daemon that does not answer holds an ID completion at most about a
// second (design §11): the journal's IDs are offered all the same.
func TestCompletionOfAStalledDaemon(t *testing.T) {
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
	start := time.Now()
	w := complete(t, getenv, "--url", stalled.srv.URL, "")
	// Generous: the bound is 1 s; a loaded machine may add some.
	if took := time.Since(start); took > 20*time.Second || !has(w, "act_journalled") {
		t.Errorf("took %v, words %v", took, w)
	}
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

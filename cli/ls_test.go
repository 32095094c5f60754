package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aipwatch/sim"
)

func startFleet(t *testing.T, k sim.FleetKnobs, members ...sim.Member) *sim.Fleet {
	t.Helper()
	f, err := sim.NewFleet(k, members...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// `aipwatch ls` (design §7): a table for people, one object per action
// for scripts; a live synchronous action is not in the daemon's list.
func TestListCommand(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_sync"}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 1, ActionID: "act_live_async", LeaseExpired: true}},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_dead"}},
	)
	code, out, errOut := runCLI(t, "ls", "--url", f.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ACTION") || strings.Contains(out, "act_live_sync") {
		t.Fatalf("%s", out)
	}
	if !strings.Contains(out, "dead_lettered") || !strings.Contains(out, "hermes_agent:sim:responses_stream") {
		t.Fatalf("%s", out)
	}

	code, out, _ = runCLI(t, "ls", "--url", f.URL(), "--output", "jsonl", "--state", "dead_lettered")
	if code != 0 {
		t.Fatal(code)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &obj); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if obj["type"] != "action" || obj["action_id"] != "act_dead" || obj["result_status"] != "failed" || obj["operation"] != "responses_stream" {
		t.Fatalf("%v", obj)
	}
	if code, _, _ := runCLI(t, "ls", "--url", f.URL(), "extra"); code != 2 {
		t.Fatalf("ls with an argument: exit %d", code)
	}
}

// No ACTION_ID and no terminal: a usage error that says where IDs come from.
func TestNoActionIDPointsToList(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI(t, "--output", "plain")
	if code != 2 || !strings.Contains(errOut, "aipwatch ls") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// `aipwatch ls` marks the journal's actions of the daemon it lists, and only
// those: an entry made against another daemon (another port, a demo's
// simulator long gone) names an action this one does not have. The journal
// is the run's ($XDG_STATE_HOME), never the one of the user running tests.
func TestListJournalIsThisDaemons(t *testing.T) {
	t.Parallel()
	f, getenv := fleetWithJournal(t, func(url string) string {
		return `{"kind":"submit","action_id":"act_mine_sync","base_url":"` + url + `/"}` + "\n" +
			`{"kind":"submit","action_id":"act_elsewhere","base_url":"http://127.0.0.1:1"}` + "\n" +
			`{"kind":"reconcile","action_id":"act_no_url"}` + "\n"
	})
	code, out, errOut := runWith(getenv, "ls", "--url", f.URL())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "act_mine_sync") || !strings.Contains(out, "act_dead") {
		t.Fatalf("this daemon's rows are missing:\n%s", out)
	}
	if strings.Contains(out, "act_elsewhere") || strings.Contains(out, "act_no_url") {
		t.Fatalf("another daemon's journal entry is listed:\n%s", out)
	}
}

// `aipwatch ls` refused by aipd: exit 1, the error, and what to check.
func TestListDeniedHasAHint(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{Token: "right"},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_dead"}},
	)
	code, _, errOut := runCLI(t, "ls", "--url", f.URL())
	if code != 1 || !strings.Contains(errOut, "HTTP 401") || !strings.Contains(errOut, "hint: aipd refused the credentials") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// ls's help is on stdout and lists only what ls uses; the flags of
// following one action are refused, not ignored.
func TestListFlags(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "ls", "--help")
	if code != 0 || !strings.Contains(out, "--state STATE") || strings.Contains(out, "--cancel") || strings.Contains(out, "--cursor") {
		t.Fatalf("ls --help: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"ls", "--cancel"}, {"ls", "--cursor", "aev_cursor_1_0"}, {"ls", "--demo=chat-tools"}, {"ls", "act_x"}} {
		if code, _, errOut := runCLI(t, args...); code != 2 || !strings.HasPrefix(errOut, "aipwatch ls: ") {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
	code, out, _ = runCLI(t, "submit", "--help")
	if code != 0 || strings.Contains(out, "--replay") || strings.Contains(out, "(default 1m0s) (default") || !strings.Contains(out, "Demo scenarios") {
		t.Fatalf("submit --help: exit %d\n%s", code, out)
	}
}

// Filtered, ls marks the journal's actions it lists and adds none the
// daemon did not list: those cannot be said to match the filter.
func TestListFilterLeavesOutJournalOnlyRows(t *testing.T) {
	t.Parallel()
	f, getenv := fleetWithJournal(t, func(url string) string {
		return `{"kind":"submit","action_id":"act_mine_sync","base_url":"` + url + `"}` + "\n" +
			`{"kind":"submit","action_id":"act_dead","base_url":"` + url + `"}` + "\n"
	})
	code, out, errOut := runWith(getenv, "ls", "--url", f.URL(), "--state", "dead_lettered")
	if code != 0 || strings.Contains(out, "act_mine_sync") || !strings.Contains(out, "act_dead") {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
}

// Small invocation mistakes are named: credentials in --url, an empty
// token file, a bad $AIP_ACTION_ID, a scenario given as an argument,
// the console demo without a terminal.
func TestInvocationMistakesAreNamed(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"--url", "http://u:pw@127.0.0.1:1", "act_x"}, nil, 2, "carries credentials"},
		{[]string{"--url", "http://127.0.0.1:1", "--token-file", empty, "act_x"}, nil, 1, "is empty"},
		{[]string{"--url", "http://127.0.0.1:1"}, map[string]string{"AIP_ACTION_ID": "bogus"}, 2, "(from $AIP_ACTION_ID)"},
		{[]string{"--demo", "long"}, nil, 2, "--demo=long"},
		{[]string{"--demo=console", "--output", "plain"}, nil, 2, "aipwatch ls --demo"},
	} {
		var out, errb bytes.Buffer
		code := Run(c.args, strings.NewReader(""), &out, &errb, func(k string) string { return c.env[k] }, testKeys())
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) || strings.Contains(errb.String(), "pw@") {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out.String(), errb.String())
		}
	}
}

// fleetWithJournal is a daemon listing one settled action (act_dead) and
// an environment whose journal holds lines(the daemon's URL).
func fleetWithJournal(t *testing.T, lines func(url string) string) (*sim.Fleet, func(string) string) {
	t.Helper()
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_dead"}},
	)
	getenv, path := stateEnv(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(lines(f.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	return f, getenv
}

// ls reads the journal by safe's private-file rule and says what it could
// not use: a torn line is skipped with a warning (the entry after it
// still lists), and a FIFO at the journal's path is refused at once (it
// hung ls) with the daemon's list still printed.
func TestListSaysWhatTheJournalRead(t *testing.T) {
	t.Parallel()
	f, getenv := fleetWithJournal(t, func(url string) string {
		return `{"kind":"submit","action_id":"act_torn","base_ur` + "\n" +
			`{"kind":"submit","action_id":"act_mine_sync","base_url":"` + url + `"}` + "\n"
	})
	code, out, errOut := runWith(getenv, "ls", "--url", f.URL())
	if code != 0 || !strings.Contains(out, "act_mine_sync") || !strings.Contains(errOut, "1 damaged line(s) skipped") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}

	fifoEnv, path := stateEnv(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip(err)
	}
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runWith(fifoEnv, "ls", "--url", f.URL())
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.out, "act_dead") || !strings.Contains(r.err, "journal not read") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("ls hung on a FIFO at the journal's path")
	}
}

// ls --output jsonl says per action whether the daemon listed it and
// whether this machine's journal holds it, each on its own: listed and
// journalled, listed only, journalled only (design §7).
func TestListJSONLJournalField(t *testing.T) {
	t.Parallel()
	f := startFleet(t, sim.FleetKnobs{},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_listed_journalled"}},
		sim.Member{Scenario: "async-dead-lettered", Knobs: sim.Knobs{Finished: true, ActionID: "act_listed_only"}},
	)
	getenv, path := stateEnv(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"kind":"submit","action_id":"act_listed_journalled","base_url":"` + f.URL() + `"}` + "\n" +
		`{"kind":"submit","action_id":"act_journal_only","base_url":"` + f.URL() + `"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runWith(getenv, "ls", "--url", f.URL(), "--output", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := map[string][2]any{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		got[obj["action_id"].(string)] = [2]any{obj["listed"], obj["journal"]}
	}
	want := map[string][2]any{
		"act_listed_journalled": {true, true},
		"act_listed_only":       {true, false},
		"act_journal_only":      {false, true},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: listed, journal = %v, want %v", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("rows %v\n%s", got, out)
	}
}

// lsRows runs ls --output jsonl and returns its objects.
func lsRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"ls", "--output", "jsonl"}, args...)...)
	if code != 0 {
		t.Fatalf("ls %v: exit %d: %s", args, code, errOut)
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		rows = append(rows, o)
	}
	return rows
}

// historyDaemon is a fleet of actions settled in the past, a live async
// action and act_newest, settled as the fleet starts. The live one runs at
// a hundredth of demo pace: its first chunk (which would make it the
// newest row) comes long after any test has read the list, however loaded
// the machine.
func historyDaemon(t *testing.T, actions int) *sim.Fleet {
	t.Helper()
	return startFleet(t, sim.FleetKnobs{History: sim.History{Actions: actions}},
		sim.Member{Scenario: "async-long", Knobs: sim.Knobs{Speed: 0.01, ActionID: "act_live_async"}},
		sim.Member{Scenario: "chat-tools", Knobs: sim.Knobs{Finished: true, ActionID: "act_newest"}})
}

// design §7: ls prints the most recent 100 rows by default, newest first,
// in a few requests whatever the history; --limit N.
func TestListPrintsTheMostRecent(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 100_000)
	rows := lsRows(t, "--url", f.URL())
	if len(rows) != 100 || rows[0]["action_id"] != "act_newest" {
		t.Fatalf("%d rows, first %v", len(rows), rows[0]["action_id"])
	}
	for i := 1; i < len(rows); i++ {
		if rows[i]["updated_at"].(string) > rows[i-1]["updated_at"].(string) {
			t.Fatalf("row %d is newer than the one before", i)
		}
	}
	if n := f.Stats().ListRequests; n > 5 {
		t.Fatalf("ls made %d list requests, want at most 5", n)
	}
	if rows := lsRows(t, "--url", f.URL(), "--limit", "7"); len(rows) != 7 || rows[0]["action_id"] != "act_newest" {
		t.Fatalf("--limit 7: %d rows", len(rows))
	}
}

// A second --state adds a state: the rows of both, merged newest first.
func TestListStatesAdd(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 2000)
	rows := lsRows(t, "--url", f.URL(), "--state", "failed", "--state", "cancelled", "--limit", "30")
	got := map[string]int{}
	for _, r := range rows {
		got[r["state"].(string)]++
	}
	if len(rows) != 30 || got["failed"] == 0 || got["cancelled"] == 0 || got["failed"]+got["cancelled"] != 30 {
		t.Fatalf("states %v", got)
	}
}

// --since keeps the rows updated within the duration (all of them: no
// default limit), newest first.
func TestListSince(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 2000)
	// The history's newest action settled a minute before the daemon
	// started, the others 30 s apart: 5 minutes hold about 9 of them.
	rows := lsRows(t, "--url", f.URL(), "--since", "5m")
	if len(rows) < 5 || len(rows) > 14 {
		t.Fatalf("%d rows within 5m", len(rows))
	}
	cutoff := time.Now().Add(-5 * time.Minute).UTC().Format(time.RFC3339)
	for _, r := range rows {
		if r["updated_at"].(string) < cutoff {
			t.Fatalf("a row updated at %v, before %s", r["updated_at"], cutoff)
		}
	}
}

// --all prints every row, page by page, each once.
func TestListAll(t *testing.T) {
	t.Parallel()
	f := historyDaemon(t, 2500)
	rows := lsRows(t, "--url", f.URL(), "--all")
	seen := map[string]bool{}
	for _, r := range rows {
		id := r["action_id"].(string)
		if seen[id] {
			t.Fatalf("%s twice", id)
		}
		seen[id] = true
	}
	if len(rows) != 2502 {
		t.Fatalf("%d rows, want 2502", len(rows))
	}
	if n := f.Stats().ListRequests; n > 6 {
		t.Fatalf("%d list requests for 2502 rows", n)
	}
}

func TestListFlagMistakes(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--limit", "0"}, {"--all", "--limit", "5"}, {"--since", "-1m"}, {"--since", "soon"}} {
		code, _, errOut := runCLI(t, append([]string{"ls", "--url", "http://127.0.0.1:1"}, args...)...)
		if code != 2 || !strings.HasPrefix(errOut, "aipwatch ls: ") {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
}

package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"aipwatch/journal"
	"aipwatch/sim"
)

// ls --all-contexts reads this machine's journal once for every daemon:
// what it has to say (a torn line) is said once, and each context's rows
// are marked from the entries made against its own daemon only.
func TestListAllContextsReadsTheJournalOnce(t *testing.T) {
	t.Parallel()
	urls := consoleDaemons(t, 2)
	f := newContextFixture(t, fmt.Sprintf("[contexts.east]\nurl = %q\n[contexts.west]\nurl = %q\n", urls[0], urls[1]))
	f.write(t, filepath.Join("aipwatch", journal.FileName), `{"kind":"submit","action_id":"act_torn","base_ur`+"\n"+
		`{"kind":"submit","action_id":"act_sim_console_done_chat_error","base_url":"`+urls[1]+`"}`+"\n")
	code, out, errOut := f.run("ls", "--all-contexts", "--output", "jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, "damaged line(s) skipped"); n != 1 {
		t.Errorf("the journal's warning said %d times, want once:\n%s", n, errOut)
	}
	marked := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			ID      string `json:"action_id"`
			Context string `json:"context"`
			Journal bool   `json:"journal"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		if row.Journal {
			marked[row.Context+"/"+row.ID] = true
		}
	}
	if len(marked) != 1 || !marked["west/act_sim_console_done_chat_error"] {
		t.Errorf("journal marks %v, want west's row alone", marked)
	}
}

// consoleDaemons starts n simulated daemons of the console demo's actions
// (the same IDs on each) and returns their URLs.
func consoleDaemons(t *testing.T, n int) []string {
	t.Helper()
	var urls []string
	for range n {
		fl, err := sim.ConsoleFleet(1)
		if err != nil {
			t.Fatal(err)
		}
		u, err := fl.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(fl.Close)
		urls = append(urls, u)
	}
	return urls
}

package cli

import (
	"bytes"
	"strings"
	"testing"
)

// The resume command keeps --timestamps and the two timeouts when they are
// not the defaults, and leaves them out when they are (a default given
// explicitly too: design §1, 1m and 6m).
func TestResumeCommandKeepsTheTimeouts(t *testing.T) {
	t.Parallel()
	o, _, err := parse([]string{"--url", "http://127.0.0.1:1", "--timestamps", "--appear-timeout", "7s", "--stall-timeout", "3m0s", "act_9"},
		&bytes.Buffer{}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := "aipwatch --url http://127.0.0.1:1 --timestamps --appear-timeout 7s --stall-timeout 3m0s act_9"
	if got := o.w.resume("", "act_9"); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	o, _, err = parse([]string{"--url", "http://127.0.0.1:1", "--appear-timeout", "1m", "--stall-timeout", "6m", "act_9"}, &bytes.Buffer{}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := o.w.resume("", "act_9"); got != "aipwatch --url http://127.0.0.1:1 act_9" {
		t.Fatalf("the defaults repeated: %s", got)
	}
}

// The report of an internal error keeps at most 200 characters of the
// panic's message; a replay's and a demo's offer no resume (nothing runs).
func TestPanicReportBoundAndNoResumeOfAReplay(t *testing.T) {
	t.Parallel()
	o := oneFollow(conn{url: "http://127.0.0.1:1"}, followFlags{}, runFlags{})
	r := o.panicReport(strings.Repeat("x", 201))
	first, _, _ := strings.Cut(r, "\n")
	if first != "aipwatch: internal error: "+strings.Repeat("x", 200)+"…" {
		t.Fatalf("first line %q", first)
	}
	if r := o.panicReport(strings.Repeat("y", 200)); !strings.Contains(r, strings.Repeat("y", 200)+"\n") {
		t.Fatalf("200 characters cut:\n%s", r)
	}
	if !strings.Contains(r, "resume with: ") {
		t.Fatalf("a live action's report offers no resume:\n%s", r)
	}
	for _, o := range []*follow{
		oneFollow(conn{url: "http://127.0.0.1:1"}, followFlags{replay: "run.jsonl"}, runFlags{}),
		oneFollow(conn{url: "http://127.0.0.1:1"}, followFlags{}, runFlags{demo: "chat-tools"}),
	} {
		if r := o.panicReport("boom"); strings.Contains(r, "resume with") {
			t.Errorf("replay %q demo %q offers a resume:\n%s", o.f.replay, o.w.r.demo, r)
		}
	}
}

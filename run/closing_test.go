package run

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"aipwatch/model"
	"aipwatch/stream"
)

// plan is a run of the words given, each its own ID (CONTEXT/act_… its
// part after the slash), whose resume command is the words joined.
func plan(words ...string) *Plan {
	p := &Plan{Resume: func(cursor string, args ...string) string {
		if cursor != "" {
			args = append([]string{"--cursor", cursor}, args...)
		}
		return "aipwatch " + strings.Join(args, " ")
	}}
	for _, w := range words {
		id := w
		if _, after, ok := strings.Cut(w, "/"); ok {
			id = after
		}
		p.Targets = append(p.Targets, Target{Arg: w, ID: id})
	}
	return p
}

// The exit code: an action stopped on an error exits 1 (not pending, and it
// is not resumed); an action aipd ended, its outcome not read, is pending but
// not resumed; one live action is "the action keeps running".
func TestSeveralActionsExitAndResumeOfEachKind(t *testing.T) {
	t.Parallel()
	p := plan("act_e_01", "act_d_02", "act_l_03")
	ended := model.NewAction("act_d_02")
	ended.TerminalFrameSeen = true
	if !ended.Ended() || ended.Verdict().Final {
		t.Fatal("the fixture: an ended action with no final verdict")
	}
	runs := []outcome{{a: model.NewAction("act_e_01"), err: errors.New("status: connection refused")}, {a: ended}, {a: model.NewAction("act_l_03")}}
	var w strings.Builder
	if code := p.exit(runs, &w); code != model.ExitError {
		t.Fatalf("exit %d, want %d: the first stopped on an error", code, model.ExitError)
	}
	if !strings.Contains(w.String(), "the action keeps running") || !strings.HasSuffix(w.String(), " act_l_03\n") ||
		strings.Contains(w.String(), "act_d_02") || strings.Contains(w.String(), "act_e_01") {
		t.Fatalf("the resume names only the live one:\n%s", w.String())
	}
}

// Quitting never cancels: the resume command names every action still
// live, as given (CONTEXT/act_… too), and none that stopped on an error.
func TestSeveralActionsResumeNamesTheLiveOnes(t *testing.T) {
	t.Parallel()
	p := plan("act_a_01", "west/act_b_02", "act_c_03")
	runs := []outcome{{a: model.NewAction("act_a_01")}, {a: model.NewAction("act_b_02")},
		{a: model.NewAction("act_c_03"), err: errors.New("status: connection refused")}}
	var w strings.Builder
	if code := p.exit(runs, &w); code != model.ExitPending {
		t.Fatalf("exit %d, want pending (%d): the first is still running", code, model.ExitPending)
	}
	if !strings.Contains(w.String(), "2 actions keep running") || !strings.HasSuffix(w.String(), " act_a_01 west/act_b_02\n") {
		t.Fatalf("the resume command:\n%s", w.String())
	}
}

// Tags: none for one action (CONTEXT/act_… alone); several get the end of
// each ID that tells it from the others'; a writer shared by several puts
// its tag before each whole line, the last one without a newline too.
func TestSeveralActionsTags(t *testing.T) {
	t.Parallel()
	if tags := plan("west/act_x_01").tags(); len(tags) != 1 || tags[0] != "" {
		t.Fatalf("one action tagged %q", tags)
	}
	if tags := plan("act_x_01", "act_x_02").tags(); tags[0] == tags[1] || !strings.HasSuffix("act_x_01] ", tags[0][1:]) ||
		!strings.HasSuffix("act_x_02] ", tags[1][1:]) {
		t.Fatalf("two actions tagged %q", tags)
	}
	var mu sync.Mutex
	var out strings.Builder
	w := &tagged{mu: &mu, w: &out, tag: "[01] "}
	_, _ = w.Write([]byte("a\nb"))
	_, _ = w.Write([]byte("c\nd"))
	w.flush()
	if out.String() != "[01] a\n[01] bc\n[01] d\n" {
		t.Fatalf("tagged lines %q", out.String())
	}
}

// A demo's simulator dies with aipwatch: no resume command, the demo
// command instead.
func TestDemoDetachSaysTheSimulatorStopped(t *testing.T) {
	t.Parallel()
	p := &Plan{Targets: []Target{{Arg: "act_sim_long_01", ID: "act_sim_long_01"}}, Again: "aipwatch --demo=long"}
	var w strings.Builder
	if code := p.exit([]outcome{{a: model.NewAction("act_sim_long_01")}}, &w); code != model.ExitPending {
		t.Fatalf("exit %d", code)
	}
	msg := w.String()
	if strings.Contains(msg, "resume with") || strings.Contains(msg, "--cursor") ||
		!strings.Contains(msg, "simulator stopped with it") || !strings.Contains(msg, "aipwatch --demo=long") {
		t.Fatalf("demo detach message:\n%s", msg)
	}
}

// The detach message says only what aipwatch saw (design §2.8): no
// "keeps running" before aipd answered, for an action aipd has no record
// of and sent nothing of, or in a replay (nothing runs there).
func TestDetachMessageSaysWhatWasSeen(t *testing.T) {
	t.Parallel()
	never := model.NewAction("act_x")
	unknown := model.NewAction("act_x")
	stream.Apply(unknown, stream.StatusMsg{Status: model.ActionStatus{ActionID: "act_x", State: model.StateUnknown}})
	running := model.NewAction("act_x")
	stream.Apply(running, stream.StatusMsg{Status: model.ActionStatus{ActionID: "act_x", State: "running"}})
	replay := plan("act_x")
	replay.Flags.Replay = true
	for _, c := range []struct {
		name string
		p    *Plan
		a    *model.Action
		want string
	}{
		{"aipd never answered", plan("act_x"), never, "before aipd answered: whether the action runs is not known"},
		{"no record, nothing came", plan("act_x"), unknown, "aipd has no record of act_x and sent none of its events: check the ID"},
		{"running", plan("act_x"), running, "the action keeps running"},
		{"a replay", replay, running, "the recording ends before the action settled"},
	} {
		msg := c.p.detach([]outcome{{a: c.a}})
		// Nothing of an action aipd has no record of was seen: no command
		// resumes what may not exist (issue 46 item 13).
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "resume with: ") != (c.a != unknown) {
			t.Errorf("%s: %q", c.name, msg)
		}
		if c.name != "running" && strings.Contains(msg, "keeps running") {
			t.Errorf("%s: claims the action keeps running: %q", c.name, msg)
		}
	}
}

// The report of an internal error keeps at most 200 characters of the
// panic's message, on one line; the resume command follows when given.
func TestPanicReportBound(t *testing.T) {
	t.Parallel()
	r := PanicReport(strings.Repeat("x", 201)+"\nsecond", "aipwatch act_1")
	first, _, _ := strings.Cut(r, "\n")
	if first != "aipwatch: internal error: "+strings.Repeat("x", 200)+"…" {
		t.Fatalf("first line %q", first)
	}
	if !strings.HasSuffix(r, "resume with: aipwatch act_1\n") {
		t.Fatalf("no resume:\n%s", r)
	}
	if r := PanicReport("boom", ""); strings.Contains(r, "resume with") {
		t.Fatalf("a resume with none given:\n%s", r)
	}
}

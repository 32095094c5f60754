package run

import (
	"errors"
	"strings"
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

// Tags: none for one action (CONTEXT/act_… alone); several get each
// one's name.
func TestSeveralActionsTags(t *testing.T) {
	t.Parallel()
	if tags := plan("west/act_x_01").tags(); len(tags) != 1 || tags[0] != "" {
		t.Fatalf("one action tagged %q", tags)
	}
	p := plan("act_x_01", "act_x_02")
	p.Targets[1].Context = "west"
	if tags := p.tags(); tags[0] != "[act_x_01] " || tags[1] != "[west/act_x_02] " {
		t.Fatalf("two actions tagged %q", tags)
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

// A replay resumes nothing: nothing runs there, the recording just stops.
func TestReplayDetachSaysTheRecordingEnds(t *testing.T) {
	t.Parallel()
	p := plan("act_r_01")
	p.Flags.Replay = true
	a := model.NewAction("act_r_01")
	stream.Apply(a, stream.StatusMsg{Status: model.ActionStatus{ActionID: "act_r_01", State: "running"}})
	var w strings.Builder
	p.exit([]outcome{{a: a}}, &w)
	if !strings.Contains(w.String(), "the recording ends before the action settled") || strings.Contains(w.String(), "keeps running") {
		t.Fatalf("replay detach message:\n%s", w.String())
	}
}

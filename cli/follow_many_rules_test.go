package cli

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"aipwatch/model"
)

// Several actions (design §12): four at most (five refused, four taken,
// in argument order), each word once, and every flag of one action's run
// refused by its own name before any request.
func TestSeveralActionsBoundsAndRefusals(t *testing.T) {
	t.Parallel()
	four := []string{"act_m_01", "act_m_02", "act_m_03", "act_m_04"}
	o, _, err := parse(four, nil, noEnv)
	if err != nil {
		t.Fatalf("four ACTION_IDs refused: %v", err)
	}
	var got []string
	for _, tg := range o.targets {
		got = append(got, tg.id)
	}
	if fmt.Sprint(got) != fmt.Sprint(four) {
		t.Fatalf("targets %v, want %v in argument order", got, four)
	}
	if _, _, err := parse(append(four, "act_m_05"), nil, noEnv); err == nil || !strings.Contains(err.Error(), "at most 4") {
		t.Fatalf("five ACTION_IDs: %v, want a usage error naming 4", err)
	}
	oneRun := [][]string{
		{"--cursor", "aev_1"}, {"--cancel"}, {"--replay", "run.jsonl"}, {"--demo=chat-tools"},
		{"--record", "run.jsonl"}, {"--export", "run.md"}, {"--speed", "2"},
	}
	for _, flags := range oneRun {
		name, _, _ := strings.Cut(flags[0], "=")
		_, _, err := parse(append(flags, "act_m_01", "act_m_02"), nil, noEnv)
		if err == nil || !strings.Contains(err.Error(), name+" follows one action") {
			t.Errorf("%v with two IDs: %v, want a usage error naming %s", flags, err, name)
		}
	}
	if _, _, err := parse([]string{"act_m_01", "act_m_02", "act_m_01"}, nil, noEnv); err == nil || !strings.Contains(err.Error(), "act_m_01 is given twice") {
		t.Errorf("an ID given twice: %v", err)
	}
}

// CONTEXT/act_… is followed on that context's daemon, the others on the
// run's own; a context's plain http:// to a host not loopback is refused.
func TestSeveralActionsEachOnItsDaemon(t *testing.T) {
	t.Parallel()
	f := newContextFixture(t, "[contexts.west]\nurl = \"https://west.example:8443\"\n[contexts.far]\nurl = \"http://far.example:8080\"\n")
	o, _, err := parse([]string{"--url", "http://127.0.0.1:9", "act_here_01", "west/act_there_02"}, nil, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.targets) != 2 || o.targets[0].conn.url != "http://127.0.0.1:9" ||
		o.targets[1].conn.url != "https://west.example:8443" || o.targets[1].id != "act_there_02" || o.targets[1].context != "west" {
		t.Fatalf("targets %+v", o.targets)
	}
	if _, _, err := parse([]string{"act_here_01", "far/act_there_02"}, nil, f.getenv); err == nil || !strings.Contains(err.Error(), "plain http://") {
		t.Fatalf("far's plain http:// taken: %v", err)
	}
}

// The exit code: an action stopped on an error exits 1 (not pending, and it
// is not resumed); an action aipd ended, its outcome not read, is pending but
// not resumed; one live action is "the action keeps running".
func TestSeveralActionsExitAndResumeOfEachKind(t *testing.T) {
	t.Parallel()
	o := &options{conn: conn{url: "http://127.0.0.1:8080"}}
	o.targets = []target{{arg: "act_e_01", id: "act_e_01"}, {arg: "act_d_02", id: "act_d_02"}, {arg: "act_l_03", id: "act_l_03"}}
	ended := model.NewAction("act_d_02")
	ended.TerminalFrameSeen = true
	if !ended.Ended() || ended.Verdict().Final {
		t.Fatal("the fixture: an ended action with no final verdict")
	}
	runs := []manyRun{{a: model.NewAction("act_e_01"), err: errors.New("status: connection refused")}, {a: ended}, {a: model.NewAction("act_l_03")}}
	var w strings.Builder
	if code := o.manyExit(runs, &w); code != model.ExitError {
		t.Fatalf("exit %d, want %d: the first stopped on an error", code, model.ExitError)
	}
	if !strings.Contains(w.String(), "the action keeps running") || !strings.HasSuffix(w.String(), " act_l_03\n") ||
		strings.Contains(w.String(), "act_d_02") || strings.Contains(w.String(), "act_e_01") {
		t.Fatalf("the resume names only the live one:\n%s", w.String())
	}
}

// Tags: none for one action (CONTEXT/act_… alone); a writer shared by
// several puts its tag before each whole line, the last one without a
// newline too.
func TestSeveralActionsTags(t *testing.T) {
	t.Parallel()
	one := &options{targets: []target{{arg: "west/act_x_01", id: "act_x_01"}}}
	if tags := one.tags(); len(tags) != 1 || tags[0] != "" {
		t.Fatalf("one action tagged %q", tags)
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

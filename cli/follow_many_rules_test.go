package cli

import (
	"fmt"
	"strings"
	"testing"
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
